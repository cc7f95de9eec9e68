"""The pose layer in presets (issue 25): saved and reopened equal (keys, unkeyed edits, the
root offset), playing back the same; older presets without it still open; a bad section is
a PresetError naming the field; the published schema describes it."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rigedit.core.pose_layer import PoseLayer
from rigedit.core.rig import BUNDLED_PRESETS, Rig
from rigedit.io import preset as preset_io
from rigedit.io.preset import PresetError, dumps_preset, load_preset, loads_preset, preset_schema, save_preset


def posed_rig() -> Rig:
    rig = Rig.default()
    rig.chain("left_arm").weight = 0.0
    rig.set_rotation("LeftForeArm", (0.3, 0.0, 0.0, 0.95))
    rig.set_rotation("Head", (0.0, 0.2, 0.0, 0.98))
    rig.set_root_offset((0.0, -0.05, 0.0))
    rig.key_pose()
    rig.time = 1.0
    rig.set_rotation("LeftForeArm", (-0.2, 0.1, 0.0, 0.97))
    rig.set_root_offset((0.1, 0.0, 0.0))
    rig.key_pose(["LeftForeArm", "Hips"])
    rig.set_pose_key_interpolation(0.0, "linear")
    rig.set_rotation("Neck", (0.0, 0.0, 0.1, 0.99))  # unkeyed on an unkeyed joint: static
    rig.set_rotation("Head", (0.1, 0.0, 0.0, 0.99))  # unkeyed on a keyed joint: here only
    rig.solve()
    return rig


def test_a_keyed_layer_is_saved_and_reopened_equal(tmp_path):
    rig = posed_rig()
    path = tmp_path / "posed.json"
    save_preset(rig, path)
    back = load_preset(path)
    assert back.pose_layer == rig.pose_layer
    assert back.pose_keys == rig.pose_keys == (0.0, 1.0)
    assert back.time == rig.time
    np.testing.assert_allclose(back.world_positions(), rig.world_positions(), rtol=0, atol=1e-9)
    for t in (0.25, 0.5, 1.0, 2.0):
        rig.time = back.time = t
        rig.solve()
        back.solve()
        np.testing.assert_allclose(back.world_positions(), rig.world_positions(), rtol=0, atol=1e-9)
        for name in ("LeftForeArm", "Head", "Neck"):
            np.testing.assert_allclose(back.rotation(name), rig.rotation(name), rtol=0, atol=1e-12)


def test_a_layer_without_a_pose_section_is_shown_on_opening():
    rig = posed_rig()
    doc = json.loads(dumps_preset(rig))
    del doc["pose"]
    back = loads_preset(json.dumps(doc), "hand.json")
    fresh = Rig.default()  # solved from the animated pose, as a preset without a pose is
    fresh.chain("left_arm").weight = 0.0
    fresh.pose_layer = rig.pose_layer
    fresh.reset()
    fresh.solve()
    np.testing.assert_allclose(back.world_positions(), fresh.world_positions(), rtol=0, atol=1e-9)
    rig.time = 0.0
    rig.solve()
    np.testing.assert_allclose(back.rotation("LeftForeArm"), rig.rotation("LeftForeArm"), rtol=0, atol=1e-12)
    assert not np.allclose(back.rotation("LeftForeArm"), Rig.default().rotation("LeftForeArm"), atol=1e-3)


@pytest.mark.parametrize("path", sorted(BUNDLED_PRESETS.glob("*.json")), ids=lambda p: p.stem)
def test_older_presets_open_with_an_empty_layer_and_save_without_one(path):
    doc = json.loads(path.read_text())
    assert "pose_layer" not in doc
    doc["version"] = 3  # the version before the pose layer
    rig = loads_preset(json.dumps(doc), path.name)
    assert rig.pose_layer == PoseLayer() and rig.pose_keys == ()
    assert "pose_layer" not in json.loads(dumps_preset(rig))


@pytest.mark.parametrize(
    "layer, where, problem",
    [
        ({"joints": {"Tail": {"keys": []}}}, "pose_layer.joints.Tail", "no joint named 'Tail'"),
        ({"joints": {"Head": {"keys": [{"time": 0.0, "value": [0, 0, 0, 0]}]}}}, "pose_layer.joints.Head.keys[0].value", "zero"),
        ({"joints": {"Head": {"keys": [{"time": 0.0, "value": [0, 0, 1]}]}}}, "pose_layer.joints.Head.keys[0].value", "4 numbers"),
        ({"joints": {"Head": {"keys": [{"time": 0.0, "value": [0, 0, 0, 1], "interpolation": "cubic"}]}}}, "interpolation", ""),
        (
            {"joints": {"Head": {"keys": [{"time": 0.5, "value": [0, 0, 0, 1]}, {"time": 0.5, "value": [0, 1, 0, 0]}]}}},
            "pose_layer.joints.Head.keys",
            "two keys at the same time",
        ),
        ({"joints": {"Head": {"keys": [], "held": [0, 0, 0, 1], "held_time": 1.0}}}, "pose_layer.joints.Head.held_time", "only"),
        ({"root": {"keys": [{"time": 0.0, "value": [0, 0, 0, 1]}]}}, "pose_layer.root.keys[0].value", "3 numbers"),
        ({"joints": {}, "layers": []}, "pose_layer.layers", ""),
    ],
)
def test_a_bad_pose_layer_names_its_field(layer, where, problem):
    doc = json.loads(dumps_preset(Rig.default()))
    doc["pose_layer"] = layer
    with pytest.raises(PresetError) as err:
        loads_preset(json.dumps(doc), "bad.json")
    message = str(err.value)
    assert message.startswith("bad.json") and where in message and problem in message, message


def test_the_schema_describes_the_pose_layer():
    schema = preset_schema()
    assert schema["properties"]["version"]["const"] == preset_io.VERSION == 4
    assert "pose_layer" in schema["properties"]
    key = schema["$defs"]["RotationKeyModel"]
    assert set(key["required"]) == {"time", "value"}
    assert key["properties"]["interpolation"]["default"] == "ease"


def test_a_copy_carries_the_layer():
    rig = posed_rig()
    other = rig.copy()
    assert json.loads(dumps_preset(other))["pose_layer"] == json.loads(dumps_preset(rig))["pose_layer"]
