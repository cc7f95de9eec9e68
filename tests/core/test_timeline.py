"""The timeline: frames, tracks, ease ramps and undoable key edits."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rigedit.core.curve import Key, weight_curve
from rigedit.core.timeline import EASE_MAX_S, EASE_MIN_S, Timeline, Track


@pytest.mark.parametrize("fps", [24.0, 30.0, 60.0])
@pytest.mark.parametrize("duration", [EASE_MIN_S, 0.15, EASE_MAX_S])
def test_ease_in_reaches_full_weight_at_the_time_with_a_smooth_ramp(fps, duration):
    tl = Timeline(frame_rate=fps, start=0.0, end=4.0)
    t = tl.time_of_frame(60)
    tl.ease_in("left_leg", t, duration)
    c = tl.curve("left_leg")
    (t0, v0), (t1, v1) = [(k.time, k.value) for k in c.keys]
    assert (t1, v0, v1) == (t, 0.0, 1.0)
    # The start lands on a frame, at least one frame before, within half a frame of asked.
    assert tl.time_of_frame(tl.frame_at(t0)) == t0
    assert t - t0 >= 1.0 / fps - 1e-12
    assert abs((t - t0) - duration) <= 0.5 / fps + 1e-12
    ramp = c.sample(np.linspace(t0, t, 101))
    assert np.all(np.diff(ramp) > 0)
    # Eased, not linear: a tenth of the way in, the weight is well under a tenth.
    assert c.at(t0 + 0.1 * (t - t0)) < 0.05
    assert c.at(t - 1.0) == 0.0 and c.at(t + 1.0) == 1.0


def test_ease_out_leaves_full_weight_at_the_time():
    tl = Timeline(frame_rate=30.0)
    tl.ease_out("right_arm", 1.0, 0.2)
    c = tl.curve("right_arm")
    assert [(k.time, k.value) for k in c.keys] == [(1.0, 1.0), (tl.time_of_frame(36), 0.0)]
    assert np.all(np.diff(c.sample(np.linspace(1.0, 1.2, 50))) < 0)


def test_a_plant_is_ease_in_then_ease_out_and_keys_inside_a_ramp_go():
    tl = Timeline(frame_rate=30.0, end=3.0)
    tl.set_curve("left_leg", "weight", weight_curve([(0.9, 0.4), (0.95, 0.7), (2.5, 0.3)]))
    tl.ease_in("left_leg", 1.0, 0.15)
    tl.ease_out("left_leg", 2.0, 0.15)
    times = [k.time for k in tl.curve("left_leg").keys]
    assert times == [pytest.approx(t) for t in (1.0 - 5 / 30, 1.0, 2.0, 2.0 + 5 / 30, 2.5)]
    c = tl.curve("left_leg")
    assert np.all(c.sample(np.linspace(1.0, 2.0, 31)) == 1.0)  # fully planted in between


@pytest.mark.parametrize("duration", [0.0, 0.049, 1.01, -0.15])
def test_ease_duration_out_of_range_is_refused(duration):
    tl = Timeline()
    with pytest.raises(ValueError, match="ease duration must be between 0.05 and 1 s"):
        tl.ease_in("left_leg", 1.0, duration)
    assert tl.tracks == {}


def test_frames_snap_and_loop_over_the_range():
    tl = Timeline(frame_rate=24.0, start=0.5, end=1.0)
    assert tl.frame_at(0.51) == 12 and tl.snap(0.51) == 0.5
    assert (tl.first_frame, tl.last_frame) == (12, 24)
    assert tl.frame_at(0.5 + 0.5 / 24) == 13  # half a frame rounds up
    assert tl.next_frame_time(0.5) == tl.time_of_frame(13)
    assert tl.next_frame_time(1.0) == 0.5  # past the end loops to the start
    assert tl.next_frame_time(0.5, -1) == 1.0
    assert tl.duration == 0.5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(frame_rate=0.0), "frame rate must be a positive"),
        (dict(frame_rate=float("nan")), "frame rate"),
        (dict(start=2.0, end=1.0), "start < end"),
        (dict(start=0.0, end=float("inf")), "finite"),
    ],
)
def test_bad_frame_rate_or_range_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Timeline(**kwargs)


def test_tracks_hold_weight_target_and_pole_curves():
    tl = Timeline()
    assert tl.track("spine") == Track() and tl.tracks == {}
    tl.key_target("left_arm", 0.5, (0.1, 1.2, 0.3))
    tl.key_pole("left_arm", 0.5, np.array([0.0, 1.0, -1.0]))
    assert tl.curve("left_arm", "target").keys == (Key(0.5, (0.1, 1.2, 0.3), "ease"),)
    assert tl.curve("left_arm", "pole").keys == (Key(0.5, (0.0, 1.0, -1.0), "ease"),)
    assert len(tl.curve("left_arm", "weight")) == 0
    with pytest.raises(ValueError, match="curve kind must be one of weight, target, pole"):
        tl.curve("left_arm", "scale")
    with pytest.raises(ValueError, match="positions"):
        tl.set_curve("left_arm", "target", weight_curve([(0.0, 1.0)]))
    with pytest.raises(ValueError, match="between 0 and 1"):
        tl.add_key("left_arm", "weight", 0.0, 2.0)
    # A chain whose curves all lose their keys has no track any more.
    tl.delete_key("left_arm", "target", 0)
    tl.delete_key("left_arm", "pole", 0)
    assert tl.tracks == {}


CHAINS = ["left_leg", "right_arm"]
edits = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(CHAINS), st.integers(0, 60), st.floats(0, 1)),
    st.tuples(st.just("move"), st.sampled_from(CHAINS), st.integers(0, 60), st.floats(0, 1)),
    st.tuples(st.just("delete"), st.sampled_from(CHAINS), st.integers(0, 60), st.floats(0, 1)),
    st.tuples(st.just("interp"), st.sampled_from(CHAINS), st.integers(0, 60), st.sampled_from(["linear", "constant"])),
    st.tuples(st.just("ease_in"), st.sampled_from(CHAINS), st.integers(0, 60), st.floats(0.05, 1.0)),
    st.tuples(st.just("ease_out"), st.sampled_from(CHAINS), st.integers(0, 60), st.floats(0.05, 1.0)),
    st.tuples(st.just("target"), st.sampled_from(CHAINS), st.integers(0, 60), st.floats(-1, 1)),
)


def run_edit(tl: Timeline, edit) -> Track | None:
    op, chain, frame, x = edit
    t = tl.time_of_frame(frame)
    n = len(tl.curve(chain))
    if op == "add":
        return tl.add_key(chain, "weight", t, x)
    if op in ("move", "delete", "interp") and n == 0:
        return None
    i = frame % max(n, 1)
    if op == "move":
        return tl.move_key(chain, "weight", i, t, x)
    if op == "delete":
        return tl.delete_key(chain, "weight", i)
    if op == "interp":
        return tl.set_interpolation(chain, "weight", i, x)
    if op == "ease_in":
        return tl.ease_in(chain, t, x)
    if op == "ease_out":
        return tl.ease_out(chain, t, x)
    return tl.key_target(chain, t, (x, 1.0, -x))


@given(st.lists(edits, max_size=12))
def test_every_edit_returns_what_undoes_it(sequence):
    # What the editor's undo stack does: keep (chain, before, after) per edit, then walk
    # back to the start and forward to the end again.
    tl = Timeline(frame_rate=30.0)
    tl.add_key("left_leg", "weight", 0.5, 0.5)
    original = tl.copy()
    history = []
    for edit in sequence:
        before = run_edit(tl, edit)
        if before is not None:
            history.append((edit[1], before, tl.track(edit[1]), tl.copy()))
    final = tl.copy()
    for chain, before, _, _ in reversed(history):
        tl.set_track(chain, before)
    assert tl == original
    for chain, _, after, state in history:
        tl.set_track(chain, after)
        assert tl == state
    assert tl == final


def test_copy_is_independent():
    tl = Timeline()
    tl.add_key("left_leg", "weight", 0.0, 0.0)
    cp = tl.copy()
    cp.add_key("left_leg", "weight", 1.0, 1.0)
    assert len(tl.curve("left_leg")) == 1 and len(cp.curve("left_leg")) == 2
    assert tl != cp
