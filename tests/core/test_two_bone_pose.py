"""solve_two_bone_pose: the solve written back to a skeleton, and limits that hold after it."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rigedit.core.ik import ConeLimit, HingeLimit, limit_error_deg, solve_two_bone_pose, two_bone_ik
from rigedit.core.skeleton import Pose
from rigedit.core.transforms import quat_normalize
from tests.core.helpers import assert_pose, chain_skeleton, humanoid60

LEG = ["LeftUpLeg", "LeftLeg", "LeftFoot"]


def _posed(seed, spread=0.4):
    rng = np.random.default_rng(seed)
    sk = humanoid60()
    pose = sk.rest_pose()
    # Moderate random rotations so legs stay leg-like but nothing is axis-aligned.
    axis = rng.normal(size=(len(sk), 3))
    angle = rng.uniform(-spread, spread, size=(len(sk), 1))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    pose.rotations[:] = quat_normalize(np.concatenate((axis * np.sin(angle / 2), np.cos(angle / 2)), axis=1))
    return sk, pose, rng


def _limit_error(sk, pose, chain, limit, at):
    """The limit's violation (degrees) in the written pose, measured from its FK."""
    pos, rot = sk.fk(pose)
    k = chain.index(at)
    if k == 1:
        parent_dir, frame = pos[chain[1]] - pos[chain[0]], rot[chain[0]]
    else:
        p = sk.parents[chain[0]]
        parent_dir, frame = pos[chain[0]] - pos[p], rot[p]
    return limit_error_deg(limit, parent_dir, frame, pos[chain[k + 1]] - pos[chain[k]])


@pytest.mark.parametrize("seed", range(6))
def test_pose_solve_matches_the_point_solve_and_fk_reproduces_it(seed):
    sk, pose, rng = _posed(seed)
    chain = sk.chain_indices(LEG)
    pos = sk.fk(pose)[0]
    target = pos[chain[0]] + rng.normal(size=3) * 0.4
    pole = pos[chain[0]] + np.array([0.0, 0.0, 1.0])
    out, r = solve_two_bone_pose(sk, pose, LEG, target, pole)
    want = two_bone_ik(*pos[chain], target, pole)
    assert_pose(r.mid, want.mid, 1e-12)
    assert_pose(r.end, want.end, 1e-12)
    assert_pose(sk.fk(out)[0][chain], [pos[chain[0]], want.mid, want.end], 1e-9)
    assert r.reached == want.reached
    # Joints outside the chain keep their rotations; indices work as well as names.
    others = np.setdiff1d(np.arange(len(sk)), chain[:2])
    assert np.array_equal(out.rotations[others], pose.rotations[others])
    out2, _ = solve_two_bone_pose(sk, pose, chain, target, pole)
    assert_pose(out2, out, 0.0)


KNEE = HingeLimit(axis=(1.0, 0.0, 0.0), min_deg=0.0, max_deg=150.0)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.floats(0.2, 1.1),
    st.sampled_from([None, (0.0, 0.0, 1.0), (0.0, 0.0, -1.0), (1.0, 0.0, 0.3)]),
    st.sampled_from(
        [
            KNEE,
            HingeLimit(axis=(0.0, 0.0, 1.0), min_deg=-120.0, max_deg=-10.0),
            HingeLimit(axis=(0.3, 0.2, 0.9), min_deg=20.0, max_deg=60.0),
            ConeLimit(max_deg=45.0),
            ConeLimit(max_deg=5.0),
        ]
    ),
)
def test_mid_joint_limits_hold_after_the_solve(seed, reach, pole_dir, limit):
    sk, pose, rng = _posed(seed)
    chain = sk.chain_indices(LEG)
    pos = sk.fk(pose)[0]
    hip = pos[chain[0]]
    direction = rng.normal(size=3)
    target = hip + reach * 0.84 * direction / np.linalg.norm(direction)
    pole = None if pole_dir is None else hip + np.array(pole_dir)
    out, r = solve_two_bone_pose(sk, pose, LEG, target, pole, limits={"LeftLeg": limit})
    assert np.all(np.isfinite(out.rotations))
    assert _limit_error(sk, out, chain, limit, chain[1]) < 1e-6
    new = sk.fk(out)[0][chain]
    assert_pose(new[0], hip, 1e-12)
    assert abs(np.linalg.norm(new[1] - new[0]) - np.linalg.norm(pos[chain[1]] - pos[chain[0]])) < 1e-9
    assert abs(np.linalg.norm(new[2] - new[1]) - np.linalg.norm(pos[chain[2]] - pos[chain[1]])) < 1e-9
    assert_pose(new[1:], [r.mid, r.end], 1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.3, 0.95))
def test_a_knee_reaches_any_target_its_range_allows(seed, reach):
    # The pole picks the plane, the hinge only how far: with a one-way knee whose axis
    # does not match the pole's plane, the upper bone twists instead of missing the target.
    sk, pose, rng = _posed(seed)
    chain = sk.chain_indices(LEG)
    pos = sk.fk(pose)[0]
    hip = pos[chain[0]]
    a = np.linalg.norm(pos[chain[1]] - hip)
    b = np.linalg.norm(pos[chain[2]] - pos[chain[1]])
    d = reach * (a + b)
    # The knee angle a target at distance d asks for, kept inside the hinge range.
    bend = np.pi - np.arccos(np.clip((a * a + b * b - d * d) / (2 * a * b), -1, 1))
    assume(np.radians(1.0) < bend < np.radians(149.0))
    direction = rng.normal(size=3)
    target = hip + d * direction / np.linalg.norm(direction)
    pole = hip + rng.normal(size=3)
    out, r = solve_two_bone_pose(sk, pose, LEG, target, pole, limits={"LeftLeg": KNEE})
    assert r.reached
    assert_pose(sk.fk(out)[0][chain[2]], target, 1e-6)
    assert _limit_error(sk, out, chain, KNEE, chain[1]) < 1e-6


def test_a_knee_asked_to_bend_backwards_is_clamped_straight_not_reversed():
    # A leg along -Y whose knee may not straighten past 10 degrees.
    sk = chain_skeleton([(0, 1, 0), (0, -0.5, 0), (0, -0.5, 0)], ["hip", "knee", "foot"])
    pose = sk.rest_pose()
    knee = HingeLimit(axis=(1.0, 0.0, 0.0), min_deg=10.0, max_deg=150.0)
    # Out of reach straight down: two_bone_ik alone would make the leg straight.
    out, r = solve_two_bone_pose(sk, pose, ["hip", "knee", "foot"], (0, -5, 0), limits={"knee": knee})
    assert _limit_error(sk, out, [0, 1, 2], knee, 1) < 1e-9
    pos = sk.fk(out)[0]
    bent = np.degrees(np.arccos(np.dot(pos[1] - pos[0], pos[2] - pos[1]) / 0.25))
    assert abs(bent - 10.0) < 1e-6
    assert not r.reached


def test_root_limit_is_measured_against_the_parent_bone():
    sk = chain_skeleton([(0, 0, 0), (0, 1, 0), (0, 1, 0), (0, 1, 0)], ["base", "root", "mid", "end"])
    pose = sk.rest_pose()
    cone = ConeLimit(max_deg=30.0)
    # A target straight out sideways would need the upper bone at 90 degrees off the parent.
    out, r = solve_two_bone_pose(sk, pose, ["root", "mid", "end"], (2.0, 1.0, 0.0), limits={"root": cone})
    pos, rot = sk.fk(out)
    assert limit_error_deg(cone, pos[1] - pos[0], rot[0], pos[2] - pos[1]) < 1e-9
    assert not r.reached
    # The lower bone then aims at the target as well as it can.
    aim = np.array([2.0, 1.0, 0.0]) - pos[2]
    assert np.dot(pos[3] - pos[2], aim) / np.linalg.norm(aim) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(joints=["LeftUpLeg", "LeftLeg"]), "3 joints"),
        (dict(joints=["LeftUpLeg", "LeftFoot", "LeftToeBase"]), "not a child"),
        (dict(limits={"LeftFoot": KNEE}), "end joint"),
        (dict(limits={"Head": KNEE}), "not in the chain"),
        (dict(limits={"Nope": KNEE}), "no such joint"),
        (dict(limits={"LeftLeg": "knee"}), "HingeLimit"),
        (dict(target=(0, np.nan, 0)), "target"),
    ],
)
def test_bad_input_raises_value_error(kwargs, words):
    sk, pose, _ = _posed(0)
    args = dict(joints=LEG, target=(0.1, 0.2, 0.3), limits=None)
    args.update(kwargs)
    with pytest.raises(ValueError, match=words):
        solve_two_bone_pose(sk, pose, args["joints"], args["target"], limits=args["limits"])


def test_a_clip_pose_is_refused():
    sk, pose, _ = _posed(0)
    frames = Pose(np.tile(pose.rotations, (2, 1, 1)), np.tile(pose.translations, (2, 1, 1)))
    with pytest.raises(ValueError, match="one pose"):
        solve_two_bone_pose(sk, frames, LEG, (0, 0, 0))
