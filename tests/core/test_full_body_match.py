"""IK/FK matching (issue 16, core/rig_match.py): after a match, switching the blend weight
moves no joint (less than 1e-9 m), per chain and for the whole body, with full body on and
off, with and without a clip; follow-clip goals stay where they were; the edit is data."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.core import rig_match
from rigedit.core.clip import Clip
from tests.core.full_body_cases import humanoid

# The IK/FK switch never pops (issue 16): joints move by less than this when the weight flips.
POP_M = 1e-9

_BASE = humanoid()
_settings = settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
offsets = st.tuples(st.floats(-0.4, 0.4), st.floats(-0.5, 0.2), st.floats(-0.1, 0.6))


def _posed(left, right, full_body: bool, clip: bool = False):
    rig = _BASE.copy()
    if clip:
        rest = rig.skeleton.rest_pose()
        rig.clip = Clip(np.tile(rest.rotations, (4, 1, 1)), np.tile(rest.translations, (4, 1, 1)), 0.1)
        rig.time = 0.2
    rig.full_body = full_body
    rig.chain("left_arm").target = _BASE.world_position("LeftHand") + np.array(left)
    rig.chain("right_arm").target = _BASE.world_position("RightHand") + np.array(right)
    rig.solve()
    return rig


def _weights(rig, w: float, chain: str | None = None) -> None:
    for name in [chain] if chain else rig.chain_names:
        rig.chain(name).weight = w


def _pop(rig, before) -> float:
    rig.solve()
    return float(np.abs(rig.world_positions() - before).max())


@_settings
@given(offsets, offsets, st.booleans(), st.booleans())
def test_whole_body_round_trip_never_pops(left, right, full_body, clip):
    rig = _posed(left, right, full_body, clip)
    ik = rig.world_positions()
    rig.match_fk_to_ik()
    _weights(rig, 0.0)
    assert _pop(rig, ik) < POP_M  # IK -> FK
    rig.match_ik_to_fk()
    _weights(rig, 1.0)
    assert _pop(rig, ik) < POP_M  # FK -> IK: the goals on the animated limbs solve to them


@_settings
@given(offsets)
def test_one_chain_round_trip_never_pops(left):
    rig = _posed(left, (0.0, 0.0, 0.0), False)
    ik = rig.world_positions()
    rig.match_fk_to_ik("left_arm")
    _weights(rig, 0.0, "left_arm")
    assert _pop(rig, ik) < POP_M
    rig.match_ik_to_fk("left_arm")
    _weights(rig, 1.0, "left_arm")
    assert _pop(rig, ik) < POP_M


@_settings
@given(offsets)
def test_one_chain_under_full_body_keeps_its_own_rotations(left):
    # Its weight 0 takes its goal out of the body's solve too (the body re-solves without
    # its pull), so only its own joints' rotations are the switch's to keep.
    rig = _posed(left, (0.0, 0.0, 0.0), True)
    idx = [rig.skeleton.index(j) for j in rig.chain("left_arm").joints[:-1]]
    shown = rig.pose.rotations[idx]
    rig.match_fk_to_ik("left_arm")
    _weights(rig, 0.0, "left_arm")
    rig.solve()
    np.testing.assert_allclose(rig.pose.rotations[idx], shown, atol=1e-12)


def test_ik_to_fk_puts_goal_and_pole_on_the_animated_limb():
    rig = _posed((0.2, -0.3, 0.4), (0.0, 0.0, 0.0), False)
    rig.match_fk_to_ik()  # a bent arm in the animated pose
    _weights(rig, 0.0)
    rig.solve()
    changed = rig.match_ik_to_fk("left_arm")
    assert changed == ["left_arm"]
    arm = rig.chain("left_arm")
    np.testing.assert_allclose(arm.target, rig.world_position("LeftHand"), atol=1e-12)
    sh, el, ha = (rig.world_position(j) for j in ("LeftArm", "LeftForeArm", "LeftHand"))
    # The pole lies in the arm's plane, on the elbow's side of the shoulder-hand line.
    normal = np.cross(el - sh, ha - sh)
    assert abs(np.dot(arm.pole - sh, normal / np.linalg.norm(normal))) < 1e-9
    axis = (ha - sh) / np.linalg.norm(ha - sh)
    side = lambda p: (p - sh) - np.dot(p - sh, axis) * axis  # noqa: E731
    assert np.dot(side(arm.pole), side(el)) > 0.0


def test_fk_to_ik_keys_the_clip_frame_only():
    rig = _posed((0.3, -0.2, 0.5), (0.0, 0.0, 0.0), True, clip=True)
    before = rig.clip.rotations.copy()
    rig.match_fk_to_ik()
    frame = round(rig.time / rig.clip.frame_time)
    others = [f for f in range(rig.clip.n_frames) if f != frame]
    assert np.array_equal(rig.clip.rotations[others], before[others])
    assert not np.array_equal(rig.clip.rotations[frame], before[frame])
    np.testing.assert_allclose(rig.clip.rotations[frame], rig.pose.rotations, atol=1e-15)


def test_fk_to_ik_keeps_follow_clip_goals_where_they_were():
    rig = _BASE.copy()
    rest = rig.skeleton.rest_pose()
    rig.clip = Clip(np.tile(rest.rotations, (3, 1, 1)), np.tile(rest.translations, (3, 1, 1)), 0.1)
    rig.time = 0.1
    arm = rig.chain("left_arm")
    arm.follow_clip = True
    arm.target = rig.world_position("LeftHand") + np.array([0.1, -0.25, 0.3])
    goal = arm.target.copy()
    rig.solve()
    rig.match_fk_to_ik()
    np.testing.assert_allclose(arm.target, goal, atol=1e-12)


def test_switch_flips_the_weight_and_keeps_the_pose():
    rig = _posed((0.25, -0.2, 0.45), (0.0, 0.0, 0.0), True)
    shown = rig.world_positions()
    assert rig_match.switch_ik_fk(rig) == 0.0
    assert all(rig.chain(n).weight == 0.0 for n in rig.chain_names)
    assert _pop(rig, shown) < POP_M
    assert rig_match.switch_ik_fk(rig) == 1.0
    assert _pop(rig, shown) < POP_M


def test_the_frame_edit_goes_back_exactly():
    rig = _posed((0.25, -0.2, 0.45), (0.0, 0.0, 0.0), True)
    old = rig_match.read_animated_frame(rig)
    rig.match_fk_to_ik()
    assert not np.array_equal(rig.skeleton.rest_rotations, old.rotations)
    rig_match.write_animated_frame(rig, old)
    assert np.array_equal(rig.skeleton.rest_rotations, old.rotations)
    assert np.array_equal(rig.skeleton.offsets, old.translations)
    _weights(rig, 0.0)
    rig.solve()
    np.testing.assert_array_equal(rig.pose.rotations, old.rotations)


def test_an_unknown_chain_changes_nothing():
    rig = _posed((0.25, -0.2, 0.45), (0.0, 0.0, 0.0), True)
    rest = rig.skeleton.rest_rotations.copy()
    with pytest.raises(KeyError):
        rig.match_fk_to_ik("tail")
    with pytest.raises(KeyError):
        rig.match_ik_to_fk("tail")
    assert np.array_equal(rig.skeleton.rest_rotations, rest)
