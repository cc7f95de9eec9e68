"""Presets keep whether a chain's goal follows the clip and its offset keys (issue 14); older
files load with goals that do not follow; bad values name file, path and problem."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rigedit
from rigedit.core.autochains import propose_chains
from rigedit.core.clip_goals import follow_kwargs
from rigedit.core.curve import Key
from rigedit.core.rig import BUNDLED_PRESETS
from rigedit.io.bvh import read_bvh
from rigedit.io.preset import PresetError, dumps_preset, loads_preset, preset_schema

WALK = Path("/work/shared/data/cmu_12_01_walk.bvh")


def humanoid_doc() -> dict:
    return json.loads((BUNDLED_PRESETS / "humanoid.json").read_text())


def test_an_older_file_loads_with_goals_that_do_not_follow_and_saves_as_it_was():
    rig = loads_preset(json.dumps(humanoid_doc()), "humanoid.json")
    assert all(not ch.follow_clip and ch.offset_keys == () for ch in rig.chains)
    doc = json.loads(dumps_preset(rig))
    assert all("follow_clip" not in c and "offset_keys" not in c for c in doc["chains"])


def test_the_follow_flag_and_offset_keys_round_trip(tmp_path):
    imp = read_bvh(WALK)
    rig = rigedit.Rig(imp.skeleton, clip=imp.clip)
    for p in propose_chains(imp.skeleton, imp.clip.frame(0)):
        rig.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole, **follow_kwargs(imp.clip))
    rig.time = 1.0
    arm = rig.chain("left_arm")
    arm.target = np.asarray(arm.target) + [0.0, 0.05, 0.0]
    rig.chain("left_leg").offset_keys = (Key(0.5, (0.0, 0.02, 0.0), "linear"), Key(0.9, (0.01, 0.0, 0.0), "constant"))
    rig.save(tmp_path / "walk.json")  # with its clip beside it (walk.clip.npz)
    doc = json.loads((tmp_path / "walk.json").read_text())
    saved = {c["name"]: c for c in doc["chains"]}
    assert saved["left_arm"]["follow_clip"] is True
    assert [k["time"] for k in saved["left_arm"]["offset_keys"]["keys"]] == pytest.approx([k.time for k in arm.offset_keys])
    again = rigedit.Rig.load(tmp_path / "walk.json")
    for ch in rig.chains:
        other = again.chain(ch.name)
        assert other.follow_clip and other.offset_keys == ch.offset_keys
    assert again.chain("left_leg").offset_keys[1].interpolation == "constant"


def problem(doc: dict) -> str:
    with pytest.raises(PresetError) as e:
        loads_preset(json.dumps(doc), "bad.json")
    return str(e.value)


def key(t, v, **more):
    return {"time": t, "value": v, **more}


@pytest.mark.parametrize(
    "edit, where",
    [
        (lambda c: c.update(follow_clip="yes"), "chains[1].follow_clip"),
        (lambda c: c.update(offset_keys={"keys": [key(0.0, [0.0, 1.0])]}), "chains[1].offset_keys.keys[0].value"),
        (lambda c: c.update(offset_keys={"keys": [key(0.0, [0, 0, 0]), key(0.0, [0, 1, 0])]}), "chains[1].offset_keys.keys[1].time"),
        (lambda c: c.update(offset_keys={"keys": [key(0.0, [0, 0, 0], interpolation="cubic")]}),
         "chains[1].offset_keys.keys[0].interpolation"),
        (lambda c: c.update(offset_keys=[key(0.0, [0, 0, 0])]), "chains[1].offset_keys"),
    ],
)
def test_bad_values_name_file_path_and_problem(edit, where):
    doc = humanoid_doc()
    edit(doc["chains"][1])
    message = problem(doc)
    assert "bad.json" in message and where in message, message


def test_the_schema_describes_the_new_fields():
    chain = preset_schema()["$defs"]["ChainModel"]["properties"]
    assert chain["follow_clip"]["type"] == "boolean" and chain["follow_clip"]["default"] is False
    assert "offset_keys" in chain
