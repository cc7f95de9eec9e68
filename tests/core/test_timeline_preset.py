"""The timeline in JSON presets: round trips, and bad values named by file, JSON path and problem."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit
from rigedit.core.curve import INTERPOLATIONS, Key, position_curve, weight_curve
from rigedit.core.timeline import Timeline, Track
from rigedit.io.preset import PresetError, dumps_preset, loads_preset
from rigedit.io.preset_model import PresetModel

from tests.io.test_preset import COMPUTED_M, assert_same_document


@pytest.fixture(scope="module")
def humanoid_text():
    return dumps_preset(rigedit.Rig.default())


def test_save_and_load_keep_the_timeline(tmp_path):
    rig = rigedit.Rig.default()
    tl = rig.timeline
    tl.frame_rate = 24.0
    tl.set_range(0.5, 3.25)
    tl.ease_in("left_leg", 1.0, 0.15)
    tl.ease_out("left_leg", 2.0, 0.3)
    tl.set_interpolation("left_leg", "weight", 0, "linear")
    tl.key_target("left_arm", 0.5, (0.3, 0.9, 0.1))
    tl.key_target("left_arm", 1.5, (0.35, 1.2, 0.2))
    tl.set_interpolation("left_arm", "target", 1, "constant")
    tl.key_pole("right_leg", 1.0, (-0.1, 0.5, 0.6))
    path = tmp_path / "walk.json"
    rig.save(path)
    back = rigedit.Rig.load(path)
    assert back.timeline == tl
    assert back.timeline is not tl
    # Saving what was loaded writes the same document: nothing drifts (the solved pose it
    # holds is computed, so to round-off).
    back.save(tmp_path / "again.json")
    assert_same_document(json.loads((tmp_path / "again.json").read_text()), json.loads(path.read_text()), COMPUTED_M)
    section = json.loads(path.read_text())["timeline"]
    assert section["frame_rate"] == 24.0 and section["range"] == [0.5, 3.25]
    assert [k["interpolation"] for k in section["tracks"]["left_leg"]["weight"]["keys"]] == ["linear", "ease", "ease", "ease"]
    assert set(section["tracks"]["right_leg"]) == {"pole"}  # curves without keys are left out


def test_a_preset_without_a_timeline_gets_an_empty_one_and_saves_without_one(humanoid_text):
    assert "timeline" not in json.loads(humanoid_text)
    rig = loads_preset(humanoid_text)
    assert rig.timeline == Timeline()
    assert_same_document(json.loads(dumps_preset(rig)), json.loads(humanoid_text), COMPUTED_M)


def test_keys_may_be_listed_in_any_order(humanoid_text):
    doc = json.loads(humanoid_text)
    doc["timeline"] = {
        "frame_rate": 30,
        "range": [0, 2],
        "tracks": {"left_leg": {"weight": {"keys": [{"time": 1, "value": 1}, {"time": 0.5, "value": 0, "interpolation": "linear"}]}}},
    }
    tl = loads_preset(json.dumps(doc)).timeline
    assert tl.curve("left_leg").keys == (Key(0.5, 0.0, "linear"), Key(1.0, 1.0, "ease"))


finite = st.floats(-1e3, 1e3, allow_nan=False)


@st.composite
def timelines(draw):
    chains = ["spine", "left_arm", "right_arm", "left_leg", "right_leg"]
    tracks = {}
    for name in draw(st.lists(st.sampled_from(chains), unique=True, max_size=3)):
        def keys(value):
            times = draw(st.lists(finite, unique=True, max_size=4))
            return [Key(t, draw(value), draw(st.sampled_from(INTERPOLATIONS))) for t in times]

        track = Track(
            weight=weight_curve(keys(st.floats(0, 1))),
            target=position_curve(keys(st.tuples(finite, finite, finite))),
            pole=position_curve(keys(st.tuples(finite, finite, finite))),
        )
        if not track.is_empty:
            tracks[name] = track
    start = draw(finite)
    end = start + draw(st.floats(1e-3, 1e3))
    return Timeline(draw(st.floats(1.0, 240.0)), start, end, tracks)


@settings(max_examples=40, deadline=None)
@given(timelines())
def test_any_timeline_round_trips_exactly(humanoid_text, tl):
    rig = loads_preset(humanoid_text)
    rig.timeline = tl
    assert loads_preset(dumps_preset(rig)).timeline == tl


def edit(doc, where, value):
    """Set doc[where[0]][where[1]]... = value."""
    node = doc
    for part in where[:-1]:
        node = node[part]
    node[where[-1]] = value


GOOD = {
    "frame_rate": 30.0,
    "range": [0.0, 2.0],
    "tracks": {
        "left_leg": {
            "weight": {"keys": [{"time": t, "value": v} for t, v in [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0), (1.5, 0.5)]]},
            "target": {"keys": [{"time": 0.0, "value": [0.1, 0.1, 0.0]}]},
        }
    },
}
W = ("timeline", "tracks", "left_leg", "weight", "keys")


@pytest.mark.parametrize(
    "where, value, message",
    [
        (W + (3, "value"), 1.2, "timeline.tracks.left_leg.weight.keys[3].value: must be between 0 and 1, got 1.2"),
        (W + (0, "value"), -0.5, "timeline.tracks.left_leg.weight.keys[0].value: must be between 0 and 1, got -0.5"),
        (W + (2, "time"), 0.5, "timeline.tracks.left_leg.weight.keys[2].time: 0.5 s is already the time of keys[1]"),
        (W + (1, "time"), "0.5", "timeline.tracks.left_leg.weight.keys[1].time: must be a number, got '0.5'"),
        (W + (1, "interpolation"), "bezier", "keys[1].interpolation: must be 'linear', 'ease' or 'constant', got 'bezier'"),
        (W + (1, "tangent"), 0.0, "timeline.tracks.left_leg.weight.keys[1].tangent: unknown field"),
        (("timeline", "tracks", "left_leg", "target", "keys", 0, "value"), [1.0, 2.0], "target.keys[0].value: must be 3 numbers [x, y, z], got 2"),
        (("timeline", "tracks", "tail"), {}, "timeline.tracks.tail: no chain named 'tail'"),
        (("timeline", "tracks", "left_leg", "scale"), {}, "timeline.tracks.left_leg.scale: unknown field"),
        (("timeline", "frame_rate"), 0, "timeline.frame_rate: must be greater than 0, got 0"),
        (("timeline", "frame_rate"), True, "timeline.frame_rate: must be a number, got true"),
        (("timeline", "range"), [2.0, 1.0], "timeline.range: start must be before end, got [2.0, 1.0]"),
        (("timeline", "range"), [2.0], "timeline.range: must be 2 numbers [start, end], got 1"),
        (("timeline", "tracks"), [], "timeline.tracks: must be an object, got a list"),
    ],
)
def test_bad_timeline_values_name_the_file_path_and_problem(humanoid_text, where, value, message):
    doc = json.loads(humanoid_text)
    doc["timeline"] = copy.deepcopy(GOOD)
    loads_preset(json.dumps(doc))  # the unedited section is fine
    edit(doc, where, value)
    with pytest.raises(PresetError) as err:
        loads_preset(json.dumps(doc), "walk.json")
    assert message in str(err.value)
    assert str(err.value).startswith("walk.json: timeline.")


def test_the_schema_describes_the_timeline():
    schema = json.dumps(PresetModel.model_json_schema())
    for word in ("frame_rate", "range", "tracks", "interpolation", "constant"):
        assert word in schema
