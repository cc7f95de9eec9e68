"""Issue 8 keys in presets: reach_clamp, softness and look_at load, save and round-trip; old
files load with the defaults; bad values are PresetErrors naming file, path and problem."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rigedit
from rigedit.core.chain_uses import LookAtSettings
from rigedit.core.rig import BUNDLED_PRESETS
from rigedit.io.preset import PresetError, dumps_preset, loads_preset


def humanoid_doc() -> dict:
    return json.loads((BUNDLED_PRESETS / "humanoid.json").read_text())


def with_look(doc: dict, **look) -> dict:
    doc["chains"].append(
        {"name": "look", "solver": "look_at", "joints": ["Neck", "Head"], "target": [0.0, 1.6, 2.0], **look}
    )
    return doc


def test_a_file_without_the_new_keys_gets_the_defaults():
    rig = loads_preset(json.dumps(humanoid_doc()), "humanoid.json")
    for ch in rig.chains:
        assert ch.reach_clamp == 0.999 and ch.softness == 0.0


def test_default_values_are_not_written_so_old_files_stay_as_they_were():
    rig = rigedit.Rig.default()
    doc = json.loads(dumps_preset(rig))
    assert all("reach_clamp" not in c and "softness" not in c and "look_at" not in c for c in doc["chains"])


def test_clamp_softness_and_look_at_round_trip():
    doc = with_look(
        humanoid_doc(),
        look_at={"weights": [0.3, 0.7], "forward_axis": [0, 0, 1], "up_axis": [0, 1, 0], "max_angle_deg": 60.0, "max_twist_deg": 10.0},
    )
    doc["chains"][1]["reach_clamp"] = 0.99
    doc["chains"][1]["softness"] = 0.05
    rig = loads_preset(json.dumps(doc), "x.json")
    arm = rig.chain(doc["chains"][1]["name"])
    assert (arm.reach_clamp, arm.softness) == (0.99, 0.05)
    assert rig.chain("look").look_at == LookAtSettings((0.3, 0.7), (0.0, 0.0, 1.0), (0.0, 1.0, 0.0), 60.0, 10.0)
    again = loads_preset(dumps_preset(rig), "y.json")
    assert [again.chain(n).settings() for n in again.chain_names] == [rig.chain(n).settings() for n in rig.chain_names]


def test_a_look_at_chain_without_settings_gets_the_defaults():
    rig = loads_preset(json.dumps(with_look(humanoid_doc())), "x.json")
    assert rig.chain("look").look_at == LookAtSettings()


def problem(doc: dict) -> str:
    with pytest.raises(PresetError) as e:
        loads_preset(json.dumps(doc), "bad.json")
    return str(e.value)


@pytest.mark.parametrize(
    "edit, where, words",
    [
        (lambda d: d["chains"][1].update(reach_clamp=1.2), "chains[1].reach_clamp", "between 0.5 and 1"),
        (lambda d: d["chains"][1].update(softness=-1.0), "chains[1].softness", "between 0 and"),
        (lambda d: d["chains"][1].update(look_at={}), "chains[1].look_at", "for solver 'look_at' only"),
        (lambda d: with_look(d, look_at={"weights": [1.0]}), "chains[5].look_at.weights", "one share per joint (2), got 1"),
        (lambda d: with_look(d, look_at={"weights": [0.0, 0.0]}), "chains[5].look_at.weights", "must not all be 0"),
        (lambda d: with_look(d, look_at={"up_axis": [0, 0, 3]}), "chains[5].look_at.up_axis", "parallel to forward_axis"),
        (lambda d: with_look(d, look_at={"max_angle_deg": 200.0}), "chains[5].look_at.max_angle_deg", "180"),
        (lambda d: with_look(d, look_at={"forward": [0, 0, 1]}), "chains[5].look_at.forward", ""),
        (lambda d: with_look(d, limits={"Neck": {"type": "cone", "max_deg": 30.0}}), "chains[5].limits.Neck", "takes no joint limits"),
    ],
)
def test_bad_values_name_file_path_and_problem(edit, where, words):
    doc = humanoid_doc()
    edit(doc)
    message = problem(doc)
    assert "bad.json" in message and where in message and words in message, message


# --- ground, clip, gait -----------------------------------------------------------------------


def scene_doc(stem: str) -> dict:
    return json.loads((BUNDLED_PRESETS / f"{stem}.json").read_text())


@pytest.mark.parametrize("stem", ["look_at", "uneven_ground_walk", "creature_gait"])
def test_scenes_round_trip_with_ground_clip_and_gait(stem):
    rig = loads_preset(json.dumps(scene_doc(stem)), f"{stem}.json")
    again = loads_preset(dumps_preset(rig), "again.json")
    assert (again.ground is None) == (rig.ground is None)
    if rig.ground is not None:
        assert again.ground.kind == rig.ground.kind
    assert again.gait == rig.gait
    assert (again.clip is None) == (rig.clip is None)
    if rig.clip is not None:
        np.testing.assert_array_equal(again.clip.rotations, rig.clip.rotations)
        np.testing.assert_array_equal(again.clip.translations, rig.clip.translations)
    assert [again.chain(n).settings() for n in again.chain_names] == [rig.chain(n).settings() for n in rig.chain_names]


def test_a_height_field_ground_round_trips():
    doc = humanoid_doc()
    doc["ground"] = {"heights": [[0.0, 0.1], [0.2, 0.3]], "spacing": 0.5, "origin": [-1.0, -1.0]}
    rig = loads_preset(json.dumps(doc), "x.json")
    assert rig.ground.kind == "field"
    assert float(rig.ground.field.height(-0.75, -1.0)) == pytest.approx(0.05)
    again = loads_preset(dumps_preset(rig), "y.json")
    np.testing.assert_array_equal(again.ground.field.heights, rig.ground.field.heights)


@pytest.mark.parametrize(
    "edit, where, words",
    [
        (lambda d: d.update(ground="hills"), "ground", ""),
        (lambda d: d.update(ground={"heights": [[0.0, 1.0], [0.0]], "spacing": 0.5}), "ground.heights[1]", "same length"),
        (lambda d: d.update(ground={"heights": [[0.0, 1.0], [0.0, 1.0]], "spacing": 0.0}), "ground.spacing", "greater than 0"),
        (lambda d: d["clip"]["rotations"].update(Nobody=[[0, 0, 0, 1]]), "clip.rotations.Nobody", "has 1 frames, the clip has 121"),
        (lambda d: d["clip"]["rotations"].update(Nobody=[[0, 0, 0, 1]] * 121), "clip.rotations.Nobody", "no joint named"),
        (lambda d: d["clip"]["root_translations"].pop(), "clip", "frames"),
        (lambda d: d["clip"].update(frame_time=0), "clip.frame_time", "greater than 0"),
        (lambda d: d["chains"][0].update(ground_feet="yes"), "chains[0].ground_feet", "bool"),
    ],
)
def test_bad_ground_and_clip_name_their_field(edit, where, words):
    doc = scene_doc("uneven_ground_walk")
    edit(doc)
    message = problem(doc)
    assert "bad.json" in message and where in message and words in message, message


@pytest.mark.parametrize(
    "edit, where, words",
    [
        (lambda d: d["gait"].update(legs=["leg_L1", "tail"]), "gait.legs[1]", "no chain named 'tail'"),
        (lambda d: d["gait"].update(legs=["leg_L1"]), "gait", "at least 2 leg chains"),
        (lambda d: d["gait"].update(step_time=-1.0), "gait.step_time", "greater than 0"),
    ],
)
def test_bad_gait_names_its_field(edit, where, words):
    doc = scene_doc("creature_gait")
    edit(doc)
    message = problem(doc)
    assert "bad.json" in message and where in message and words in message, message
