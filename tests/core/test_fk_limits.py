"""core/fk_limits.py: a hand-set rotation clamped by its chain's limit through clamp_bone."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

import rigedit
from rigedit.core.fk_limits import clamp_rotation, joint_limit
from rigedit.core.ik.limits import limit_error_deg
from rigedit.core.transforms import quat_angle, quat_conj, quat_from_axis_angle, quat_mul

RIG = rigedit.Rig.default()


def _error(rig, pose, jl) -> float:
    pos, world = rig.skeleton.fk(pose)
    return limit_error_deg(jl.limit, pos[jl.joint] - pos[jl.prev], world[jl.frame], pos[jl.nxt] - pos[jl.joint])


def test_a_chain_at_weight_0_puts_no_limit_on_its_joints():
    rig = RIG.copy()
    assert joint_limit(rig, "LeftForeArm").chain == "left_arm"
    rig.chain("left_arm").weight = 0.0
    assert joint_limit(rig, "LeftForeArm") is None
    assert joint_limit(rig, "LeftForeArm", active_only=False) is not None
    assert joint_limit(rig, "Head") is None  # in no chain


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["LeftForeArm", "RightLeg", "Spine1", "Chest"]),
       st.lists(st.floats(-1, 1), min_size=3, max_size=3).filter(lambda v: np.linalg.norm(v) > 0.1),
       st.floats(-3.0, 3.0))
def test_a_clamped_rotation_is_within_the_limit_and_an_allowed_one_is_kept(name, axis, angle):
    rig = RIG
    jl = joint_limit(rig, name)
    pose = rig.animated_pose().copy()
    j = jl.joint
    pose.rotations[j] = quat_mul(pose.rotations[j], quat_from_axis_angle(np.array(axis), np.float64(angle)))
    q = clamp_rotation(rig.skeleton, pose, jl)
    was = _error(rig, pose, jl)
    clamped = pose.copy()
    clamped.rotations[j] = q
    assert _error(rig, clamped, jl) < 1e-6
    if was < 1e-9:  # already allowed: unchanged
        assert quat_angle(quat_mul(quat_conj(q), pose.rotations[j])) < 1e-9
    # The least turn: the bone out moves by no more than it was past the limit.
    pos0, _ = rig.skeleton.fk(pose)
    pos1, _ = rig.skeleton.fk(clamped)
    d0, d1 = pos0[jl.nxt] - pos0[j], pos1[jl.nxt] - pos1[j]
    turn = np.degrees(np.arccos(np.clip(d0 @ d1 / np.linalg.norm(d0) / np.linalg.norm(d1), -1, 1)))
    assert turn <= was + 1e-6
