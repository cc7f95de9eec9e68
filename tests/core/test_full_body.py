"""Full-body IK (issue 16): rig.full_body and ch.pull on the bundled humanoid. Reach past the
arm's length with the feet planted, several goals at once, and the solver's contract as
properties (lengths, limits, anchored feet, weight 0, errors never growing)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.core.ik.limits import limit_error_deg
from tests.core.full_body_cases import FEET, TIPS, arm_reach, body_goals, humanoid, reach_goals

# Feet anchored: within 1 mm of their targets (issue 16).
FOOT_EPS = 1e-3
# Bone lengths are local offsets turned by unit quaternions: kept to round-off.
LENGTH_RELATIVE = 1e-9
# A limit holds to the clamp's round-off (degrees).
LIMIT_EPS_DEG = 1e-6

_BASE = humanoid()
_settings = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def _fresh(full_body=True):
    rig = _BASE.copy()
    rig.full_body = full_body
    return rig


def _feet_error(rig) -> float:
    return max(float(np.linalg.norm(rig.world_position(f) - _BASE.world_position(f))) for f in FEET)


def test_hand_reaches_past_the_arm_with_the_feet_planted():
    goals = reach_goals(_BASE, np.random.default_rng(16), 60)
    reached = 0
    for goal in goals:
        rig = _fresh()
        rig.chain("left_arm").target = goal
        report = rig.solve()["left_arm"]
        assert _feet_error(rig) <= FOOT_EPS
        reached += report.reached and report.error <= rig.chain("left_arm").tolerance
    assert reached / len(goals) >= 0.95


def test_the_same_goals_are_out_of_reach_with_full_body_off():
    for goal in reach_goals(_BASE, np.random.default_rng(16), 10):
        rig = _fresh(full_body=False)
        rig.chain("left_arm").target = goal
        assert not rig.solve()["left_arm"].reached


def test_right_hand_reaches_too():
    goals = reach_goals(_BASE, np.random.default_rng(3), 20, chain="right_arm")
    # The right arm's "in front" is mirrored; the goals are in front either way (+z).
    hits = 0
    for goal in goals:
        rig = _fresh()
        rig.chain("right_arm").target = goal
        hits += rig.solve()["right_arm"].reached
        assert _feet_error(rig) <= FOOT_EPS
    assert hits / len(goals) >= 0.95


@pytest.mark.parametrize("seed", range(12))
def test_hands_head_and_feet_moved_at_once_are_all_met(seed):
    goals = body_goals(_BASE, np.random.default_rng(seed))
    rig = _fresh()
    for chain, goal in goals.items():
        rig.chain(chain).target = goal
    reports = rig.solve()
    for chain, goal in goals.items():
        tip = rig.world_position(TIPS[chain])
        assert np.linalg.norm(tip - goal) <= rig.chain(chain).tolerance, chain
        assert reports[chain].reached


def test_default_pulls_by_role():
    rig = _fresh()
    assert rig.chain("left_leg").pull == 0.0 and rig.chain("right_leg").pull == 0.0
    assert rig.chain("left_arm").pull == pytest.approx(0.4)
    assert 0.0 < rig.chain("spine").pull < rig.chain("left_arm").pull
    rig.chain("left_arm").pull = 0.25
    assert rig.chain("left_arm").pull == 0.25
    rig.chain("left_arm").pull = None
    assert rig.chain("left_arm").pull == pytest.approx(0.4)


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, "x", True])
def test_a_bad_pull_is_refused_by_name(bad):
    rig = _fresh()
    with pytest.raises(ValueError, match="pull"):
        rig.chain("left_arm").pull = bad
    assert rig.chain("left_arm").pull == pytest.approx(0.4)


def test_full_body_must_be_a_bool():
    rig = _fresh()
    with pytest.raises(ValueError, match="full_body"):
        rig.full_body = "yes"


def test_a_small_pull_moves_the_body_less():
    """Pull caps how far the goal may move the chain's root: 0.05 of the arm's reach."""
    shoulder, reach = arm_reach(_BASE)
    goal = shoulder + np.array([0.0, -0.5, 0.866]) * 1.3 * reach
    rig = _fresh()
    rig.chain("left_arm").pull = 0.05
    rig.chain("left_arm").target = goal
    assert not rig.solve()["left_arm"].reached
    moved = np.linalg.norm(rig.world_position("LeftArm") - shoulder)
    assert 0.0 < moved <= 0.05 * reach + 1e-3
    assert _feet_error(rig) <= FOOT_EPS


def test_pull_zero_makes_an_anchor():
    """An arm of pull 0 is an anchor like a leg: the hips move until it reaches."""
    rig = _fresh()
    rig.chain("left_arm").pull = 0.0
    rig.chain("left_arm").target = rig.world_position("LeftHand") + np.array([0.0, -0.04, 0.0])
    assert rig.solve()["left_arm"].reached
    assert rig.world_position("Hips")[1] < _BASE.world_position("Hips")[1] - 0.02


def test_off_again_is_the_per_chain_solve():
    goal = reach_goals(_BASE, np.random.default_rng(7), 1)[0]
    per_chain = _fresh(full_body=False)
    per_chain.chain("left_arm").target = goal
    per_chain.solve()
    rig = _fresh()
    rig.chain("left_arm").target = goal
    rig.solve()
    rig.full_body = False
    rig.solve()
    np.testing.assert_allclose(rig.world_positions(), per_chain.world_positions(), atol=1e-12)


# --- properties -------------------------------------------------------------------------------

offsets = st.tuples(st.floats(-0.5, 0.5), st.floats(-0.7, 0.3), st.floats(-0.2, 0.7))
small = st.tuples(st.floats(-0.1, 0.1), st.floats(-0.1, 0.1), st.floats(-0.1, 0.1))


def _solved(left, right, head):
    rig = _fresh()
    rig.chain("left_arm").target = _BASE.world_position("LeftHand") + np.array(left)
    rig.chain("right_arm").target = _BASE.world_position("RightHand") + np.array(right)
    rig.chain("spine").target = _BASE.world_position("Neck") + np.array(head)
    return rig, rig.solve()


@_settings
@given(offsets, offsets, small)
def test_lengths_are_kept(left, right, head):
    rig, _ = _solved(left, right, head)
    pos = rig.world_positions()
    parents = rig.skeleton.parents
    rest = rig.skeleton.offsets
    for j, p in enumerate(parents):
        if p >= 0:
            length = np.linalg.norm(rest[j])
            assert abs(np.linalg.norm(pos[j] - pos[p]) - length) <= LENGTH_RELATIVE * max(length, 1e-3)


@_settings
@given(offsets, offsets, small)
def test_limits_hold(left, right, head):
    rig, _ = _solved(left, right, head)
    names = list(rig.skeleton.names)
    pos, wrot = rig.skeleton.fk(rig.pose)
    parents = rig.skeleton.parents
    for name in rig.chain_names:
        ch = rig.chain(name)
        for k, joint in enumerate(ch.joints[:-1]):
            limit = ch.limits.get(joint)
            if limit is None:
                continue
            j = names.index(joint)
            p = parents[j]
            child = names.index(ch.joints[k + 1])
            err = limit_error_deg(limit, pos[j] - pos[p], wrot[p], pos[child] - pos[j])
            assert err <= LIMIT_EPS_DEG, (name, joint, err)


@_settings
@given(offsets, small)
def test_anchored_feet_stay(left, head):
    rig, _ = _solved(left, (0.0, 0.0, 0.0), head)
    assert _feet_error(rig) <= FOOT_EPS


@_settings
@given(offsets, offsets, small)
def test_errors_never_grow(left, right, head):
    _, reports = _solved(left, right, head)
    errors = reports["left_arm"].errors
    assert all(b <= a for a, b in zip(errors, errors[1:]))


@_settings
@given(offsets, offsets, small)
def test_weight_zero_everywhere_is_the_animated_pose_exactly(left, right, head):
    rig = _fresh()
    for name in rig.chain_names:
        rig.chain(name).weight = 0.0
    rig.chain("left_arm").target = _BASE.world_position("LeftHand") + np.array(left)
    rig.chain("right_arm").target = _BASE.world_position("RightHand") + np.array(right)
    rig.chain("spine").target = _BASE.world_position("Neck") + np.array(head)
    rig.solve()
    anim = rig.animated_pose()
    assert np.array_equal(rig.pose.rotations, anim.rotations)
    assert np.array_equal(rig.pose.translations, anim.translations)


def test_a_half_weight_lies_between():
    goal = reach_goals(_BASE, np.random.default_rng(9), 1)[0]
    full = _fresh()
    full.chain("left_arm").target = goal
    full.solve()
    half = _fresh()
    for name in half.chain_names:
        half.chain(name).weight = 0.5
    half.chain("left_arm").target = goal
    half.solve()
    hips0, hips1, hips = (r.world_position("Hips") for r in (_BASE, full, half))
    np.testing.assert_allclose(hips, 0.5 * (hips0 + hips1), atol=1e-12)


def test_a_warm_frame_with_nothing_moved_runs_no_pass():
    goal = reach_goals(_BASE, np.random.default_rng(11), 1)[0]
    rig = _fresh()
    rig.chain("left_arm").target = goal
    first = rig.solve()["left_arm"]
    assert first.reached and first.iterations > 0
    again = rig.solve()["left_arm"]
    assert again.reached and again.iterations == 0


def test_reset_forgets_the_full_body_warm_start():
    goal = reach_goals(_BASE, np.random.default_rng(13), 1)[0]
    rig = _fresh()
    rig.chain("left_arm").target = goal
    rig.solve()
    rig.reset()
    np.testing.assert_allclose(rig.world_position("Hips"), _BASE.world_position("Hips"), atol=1e-12)
    fresh = _fresh()
    fresh.chain("left_arm").target = goal
    fresh.solve()
    rig.solve()
    np.testing.assert_allclose(rig.world_positions(), fresh.world_positions(), atol=1e-12)
