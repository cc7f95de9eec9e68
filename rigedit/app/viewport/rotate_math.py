"""The arithmetic of rotating selected joints, apart from the mouse and keys (rotate_mode.py).

A rotation is a world turn about an axis through each joint: the joint's world rotation
becomes turn * what it was, its position stays (a joint turns, it does not move). A child
selected with its parent is turned once, not carried by its parent's turn and turned again,
as in Blender's pose mode. A joint a chain limits (at weight > 0) is clamped after its turn
(core/fk_limits.py), ancestors first, so each clamp sees its parent's final rotation.
"""
from __future__ import annotations

import math

import numpy as np

from rigedit.core.fk_limits import JointLimit, clamp_rotation
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.transforms import quat_conj, quat_from_axis_angle, quat_mul, quat_normalize, quat_rotate

AXES = np.eye(3)
AXIS_NAMES = "XYZ"


def axis_turn(axis: np.ndarray, angle: float) -> np.ndarray:
    return quat_from_axis_angle(np.asarray(axis, dtype=np.float64), np.float64(angle))


def world_axis(skeleton: Skeleton, pose: Pose, joint: int, axis: int, local: bool) -> np.ndarray:
    """Unit world direction of global axis `axis` (0, 1, 2), or of the joint's own local one."""
    if not local:
        return AXES[axis].copy()
    _, world = skeleton.fk(pose)
    return quat_rotate(world[joint], AXES[axis])


def turned_locals(skeleton: Skeleton, start: Pose, joints: list[int], turns: list[np.ndarray],
                  limits: dict[int, JointLimit]) -> dict[int, np.ndarray]:
    """Joint index -> its new local rotation: joint k of `joints` turned in the world by
    turns[k] from where `start` has it, then clamped by limits[k] when it has one."""
    _, world0 = skeleton.fk(start)
    pose = start.copy()
    out: dict[int, np.ndarray] = {}
    for j, turn in sorted(zip(joints, turns), key=lambda jt: jt[0]):  # parents before children
        target = quat_mul(turn, world0[j])
        p = int(skeleton.parents[j])
        if p < 0:
            local = target
        else:
            _, world = skeleton.fk(pose)  # the parent as the turns so far left it
            local = quat_mul(quat_conj(world[p]), target)
        pose.rotations[j] = quat_normalize(local)
        if j in limits:
            pose.rotations[j] = clamp_rotation(skeleton, pose, limits[j])
        out[j] = pose.rotations[j].copy()
    return out


def swept_angle(centre: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    """The signed angle (radians, counter-clockwise on screen positive) from a to b about
    centre, in widget pixels (y down); 0 when either point sits on the centre."""
    ax, ay = a[0] - centre[0], centre[1] - a[1]
    bx, by = b[0] - centre[0], centre[1] - b[1]
    if math.hypot(ax, ay) < 1e-9 or math.hypot(bx, by) < 1e-9:
        return 0.0
    return math.atan2(ax * by - ay * bx, ax * bx + ay * by)
