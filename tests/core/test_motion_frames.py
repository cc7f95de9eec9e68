"""The rig's shown pose at chosen frames (core/motion_frames.py, bake's `frames`): each frame
is what a copy of the rig solved at that time shows, and a subset of frames is the full
bake's frames."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rigedit import Rig
from rigedit.core.bake import bake
from rigedit.core.motion_frames import frame_at, frame_positions, frame_span
from tests.motion_clip import humanoid_with_clip


def solved_at(rig: Rig, time: float) -> np.ndarray:
    """A copy of the rig solved afresh at `time`, its timeline's keys applied."""
    c = rig.copy()
    c.timeline.apply(c, time)
    c.reset()
    c.solve()
    return c.world_positions()


@pytest.fixture(scope="module")
def walker() -> Rig:
    rig = humanoid_with_clip()
    rig.chain("spine").weight = 0.6  # a FABRIK chain too, solved frame by frame
    return rig


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(0, 90), min_size=1, max_size=5))
def test_each_frame_is_the_rig_solved_at_its_time(walker, frames):
    first, last, dt = frame_span(walker)
    assert (first, last) == (0, walker.clip.n_frames - 1)
    got = frame_positions(walker, frames)
    for f, pos in zip(frames, got):
        np.testing.assert_allclose(pos, solved_at(walker, f * dt), atol=1e-9, rtol=0)


def test_chosen_frames_are_the_full_bakes_frames(walker):
    full = bake(walker).clip
    frames = [40, 3, 77, 3]
    part = bake(walker, frames=frames).clip
    np.testing.assert_allclose(part.rotations, full.rotations[frames], atol=1e-12, rtol=0)
    np.testing.assert_allclose(part.translations, full.translations[frames], atol=1e-12, rtol=0)


def test_without_a_clip_frames_are_the_timelines():
    rig = Rig.default()
    rig.timeline.set_range(0.5, 1.5)
    rig.timeline.key_target("left_arm", 0.5, rig.chain("left_arm").target)
    rig.timeline.key_target("left_arm", 1.5, np.asarray(rig.chain("left_arm").target) + (0.1, 0.2, 0.15))
    first, last, dt = frame_span(rig)
    assert (first, last) == (15, 45)
    assert frame_at(rig, 1.0) == 30 and frame_at(rig, 99.0) == last
    got = frame_positions(rig, [first, 30, last])
    for f, pos in zip((first, 30, last), got):
        np.testing.assert_allclose(pos, solved_at(rig, f * dt), atol=1e-9, rtol=0)


def test_a_frame_outside_the_span_is_refused(walker):
    with pytest.raises(ValueError, match="bake frames"):
        bake(walker, frames=[0, walker.clip.n_frames])


def test_the_pose_layer_is_in_each_frame(walker):
    """Keyed layer rotations (a head turn between 0.5 s and 2 s) are in the frames, eased
    between their keys as the rig shows them."""
    from rigedit.core.transforms import quat_from_axis_angle

    rig = walker.copy()
    for time, angle in ((0.5, -0.6), (2.0, 0.7)):
        rig.time = time
        rig.set_rotation("Neck", quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), np.array(angle)))
        rig.key_pose(joints=["Neck"])
    dt = frame_span(rig)[2]
    frames = [10, 30, 52, 80]
    got = frame_positions(rig, frames)
    plain = frame_positions(walker, frames)
    head = rig.skeleton.index("HeadTop_End")
    for f, pos, old in zip(frames, got, plain):
        np.testing.assert_allclose(pos, solved_at(rig, f * dt), atol=1e-9, rtol=0)
        assert np.linalg.norm(pos[head] - old[head]) > 1e-3  # the turn is there
