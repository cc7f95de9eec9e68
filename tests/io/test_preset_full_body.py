"""Presets carry full_body and each chain's pull (issue 16); older presets load unchanged."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rigedit
from rigedit.io.preset import load_preset, save_preset


def test_full_body_and_pull_round_trip(tmp_path):
    rig = rigedit.Rig.default()
    rig.full_body = True
    rig.chain("left_arm").pull = 0.3
    rig.chain("right_leg").pull = 0.2
    path = tmp_path / "fb.json"
    save_preset(rig, path)
    doc = json.loads(path.read_text())
    assert doc["full_body"] is True
    back = load_preset(path)
    assert back.full_body is True
    for name in rig.chain_names:
        assert back.chain(name).pull == pytest.approx(rig.chain(name).pull, abs=1e-15)


def test_a_preset_without_them_loads_as_before(tmp_path):
    rig = rigedit.Rig.default()
    path = tmp_path / "plain.json"
    save_preset(rig, path)
    doc = json.loads(path.read_text())
    assert "full_body" not in doc and all("pull" not in c for c in doc["chains"])
    back = load_preset(path)
    assert back.full_body is False
    assert back.chain("left_leg").pull == 0.0 and back.chain("left_leg").pull_is_default


def test_a_set_pull_is_kept_with_full_body_off(tmp_path):
    rig = rigedit.Rig.default()
    rig.chain("left_arm").pull = 0.7
    path = tmp_path / "pull.json"
    save_preset(rig, path)
    back = load_preset(path)
    assert back.full_body is False and back.chain("left_arm").pull == 0.7
    assert back.chain("right_arm").pull_is_default


@pytest.mark.parametrize("bad", [1.5, -0.2, "x"])
def test_a_bad_pull_names_the_field(tmp_path, bad):
    rig = rigedit.Rig.default()
    path = tmp_path / "bad.json"
    save_preset(rig, path)
    doc = json.loads(path.read_text())
    doc["chains"][1]["pull"] = bad
    path.write_text(json.dumps(doc))
    with pytest.raises(rigedit.PresetError, match=r"chains\[1\]\.pull"):
        load_preset(path)


def test_a_full_body_preset_opens_solved_with_full_body(tmp_path):
    rig = rigedit.Rig.default()
    rig.full_body = True
    shoulder = rig.world_position("LeftArm")
    rig.chain("left_arm").target = shoulder + np.array([0.0, -0.3, 0.6])
    rig.solve()
    path = tmp_path / "reach.json"
    save_preset(rig, path)
    back = load_preset(path)
    back.solve()
    np.testing.assert_allclose(back.world_position("LeftHand"), rig.world_position("LeftHand"), atol=1e-3)
