"""Timeline.apply on a real Rig: weights, targets and poles follow the curves, the clip follows
the time, and a solve afterwards blends IK in and out."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit
from rigedit.core.clip import Clip
from rigedit.core.curve import weight_curve
from rigedit.core.timeline import Timeline
from rigedit.core.transforms import quat_from_axis_angle, quat_mul


@pytest.fixture
def rig():
    return rigedit.Rig.default()


def swaying_clip(rig, frames: int = 31, fps: float = 30.0) -> Clip:
    """The rest pose, with the hips walking forward and the spine swaying."""
    rest = rig.skeleton.rest_pose()
    rot = np.tile(rest.rotations, (frames, 1, 1))
    trans = np.tile(rest.translations, (frames, 1, 1))
    s = np.linspace(0.0, 1.0, frames)
    trans[:, 0, 2] += 0.5 * s
    spine = rig.skeleton.index("Spine")
    sway = quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), 0.3 * np.sin(2 * np.pi * s))
    rot[:, spine] = quat_mul(sway, rot[:, spine])
    return Clip(rot, trans, 1.0 / fps)


def test_apply_sets_keyed_weight_target_pole_and_time(rig):
    tl = rig.timeline
    tl.ease_in("left_leg", 1.0, 0.2)
    tl.key_target("left_arm", 0.0, (0.3, 0.9, 0.1))
    tl.key_target("left_arm", 1.0, (0.4, 1.1, 0.2))
    tl.key_pole("left_arm", 0.5, (0.2, 1.2, -0.5))
    untouched = {name: rig.chain(name).settings() for name in ("spine", "right_arm", "right_leg")}
    arm_weight = rig.chain("left_arm").weight
    leg_target = rig.chain("left_leg").target.copy()

    for t in (-1.0, 0.0, 0.25, 0.85, 0.9, 1.0, 3.0):
        tl.apply(rig, t)
        assert rig.time == t
        assert rig.chain("left_leg").weight == tl.curve("left_leg").at(t)
        assert np.array_equal(rig.chain("left_arm").target, tl.curve("left_arm", "target").at(t))
        assert np.array_equal(rig.chain("left_arm").pole, (0.2, 1.2, -0.5))
        # Curves without keys leave the chain's own setting alone.
        assert rig.chain("left_arm").weight == arm_weight
        assert np.array_equal(rig.chain("left_leg").target, leg_target)
        assert {n: rig.chain(n).settings() for n in untouched} == untouched

    tl.apply(rig, 0.5)
    # Independent reading of "linear... ease in-out": half way between two eased keys is the mean.
    assert np.allclose(rig.chain("left_arm").target, (0.35, 1.0, 0.15), atol=1e-12)


def test_weight_ramp_blends_from_the_animated_pose_to_the_ik_pose(rig):
    rig.clip = swaying_clip(rig)
    tl = rig.timeline
    for name in rig.chain_names:
        tl.set_curve(name, "weight", weight_curve([(0.0, 0.0)]))
    tl.ease_in("left_leg", 0.6, 0.2)
    leg = rig.skeleton.chain_indices(rig.chain("left_leg").joints)

    # Before the ramp every weight is 0: exactly the clip's pose at that time.
    tl.apply(rig, 0.3)
    rig.solve()
    expected = rig.clip.pose_at(0.3)
    assert np.array_equal(rig.pose.rotations, expected.rotations)
    assert np.array_equal(rig.pose.translations, expected.translations)

    # After it the left foot is on its target, wherever the clip has carried the hips. The
    # target is keyed 10 cm above where the clip puts the foot then (so, in reach).
    foot = rig.chain("left_leg").joints[-1]
    tl.apply(rig, 0.9)
    rig.solve()
    tl.key_target("left_leg", 0.0, rig.world_position(foot) + (0.0, 0.1, 0.0))
    tl.apply(rig, 0.9)
    for _ in range(3):
        rig.solve()
    assert np.linalg.norm(rig.world_position(foot) - rig.chain("left_leg").target) < 1e-6

    # Along the ramp the foot moves from where the clip puts it toward the target, steadily.
    dists = []
    for t in np.linspace(0.4, 0.6, 7):
        tl.apply(rig, t)
        rig.solve()
        dists.append(np.linalg.norm(rig.world_position(foot) - rig.chain("left_leg").target))
    assert dists[-1] < 1e-6 < dists[0]
    assert np.all(np.diff(dists) <= 1e-9)
    # Only the left leg (and what hangs below it) differs from the clip.
    others = [j for j in range(len(rig.skeleton)) if j not in leg]
    tl.apply(rig, 0.5)
    rig.solve()
    assert np.array_equal(rig.pose.rotations[others], rig.clip.pose_at(0.5).rotations[others])


@settings(max_examples=25, deadline=None)
@given(st.floats(-0.5, 1.5))
def test_the_clip_follows_the_time(t):
    rig = rigedit.Rig.default()
    rig.clip = swaying_clip(rig)
    for name in rig.chain_names:
        rig.timeline.set_curve(name, "weight", weight_curve([(0.0, 0.0)]))
    rig.timeline.apply(rig, t)
    rig.solve()
    hips = rig.world_position("Hips")
    rest_hips = rig.skeleton.offsets[0]
    # The clip walks the hips 0.5 m forward over its one second, held at both ends.
    assert hips[2] == pytest.approx(rest_hips[2] + 0.5 * np.clip(t, 0.0, 1.0), abs=1e-9)


def test_a_track_for_a_chain_the_rig_lacks_is_an_error_naming_it(rig):
    tl = Timeline()
    tl.add_key("tail", "weight", 0.0, 0.5)
    with pytest.raises(KeyError, match="tail"):
        tl.apply(rig, 0.0)


def test_the_rig_carries_its_timeline_and_copies_it(rig):
    assert isinstance(rig.timeline, Timeline) and rig.timeline.tracks == {}
    rig.timeline.ease_out("right_arm", 0.5)
    other = rig.copy()
    assert other.timeline == rig.timeline
    other.timeline.delete_key("right_arm", "weight", 0)
    assert len(rig.timeline.curve("right_arm")) == 2
