"""Two-bone IK on a skeleton: solve the limb's FK positions, write the answer back.

    pose, r = solve_two_bone_pose(skeleton, pose, (root, mid, end), target, pole=None,
                                  limits=None, eps=1e-6)

joints: three joint names or skeleton indices, root to tip (a connected chain).
limits: {joint name or index: HingeLimit | ConeLimit}, on the root or the mid joint, in the
    convention of limits.py and solve_fabrik_pose: a limit constrains the bone leaving its
    joint against the bone entering it, and a hinge axis is given in that entering bone's
    frame (the world rotation of the previous joint: the root's for a limit on the mid, the
    skeleton parent's for a limit on the root).

The order of a solve: the closed form (two_bone_ik); a root limit clamps the upper bone and
the lower bone then aims at the target; a mid limit then acts on the lower bone. A cone
clamps it (`limits.clamp_bone`). A hinge is a knee: the limb bends in the plane two_bone_ik
chose (the pole's), so the upper bone is twisted about itself until its hinge axis is that
plane's normal (or its opposite, whichever needs the smaller clamp), and only the bend
angle is clamped to the hinge's range. Without the twist a hinge whose axis misses the
pole's plane would throw the foot off the target even when the knee could reach it.

r is a TwoBoneResult with the final mid and end positions; r.reached says the end is within
eps of the target (the limb could reach it and no limit pulled it away).
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..skeleton import Pose, Skeleton, write_chain_positions
from ..transforms import quat_between, quat_conj, quat_mul, quat_normalize, quat_rotate
from .fabrik_pose import chain_of
from .limits import ConeLimit, HingeLimit, clamp_bone, hinge_axis
from .two_bone import TwoBoneResult, two_bone_ik

# A limb bent less than this (radians) is straight: it has no bend plane to turn a hinge
# onto, so the hinge keeps the axis the upper bone carries. 1e-9 rad is a nanometre of knee
# offset on a metre of leg, far under anything visible, far over round-off of a straight limb.
STRAIGHT_RAD = 1e-9


def solve_two_bone_pose(
    skeleton: Skeleton,
    pose: Pose,
    joints,
    target,
    pole=None,
    limits: Mapping | None = None,
    *,
    eps: float = 1e-6,
) -> tuple[Pose, TwoBoneResult]:
    chain = chain_of(skeleton, joints)
    if len(chain) != 3:
        raise ValueError(f"two-bone IK needs exactly 3 joints (root, mid, end), got {len(chain)}")
    if np.asarray(pose.rotations).ndim != 2:
        raise ValueError(f"solve_two_bone_pose solves one pose; got rotations of shape {np.shape(pose.rotations)}")
    root_limit, mid_limit = _limits_by_joint(skeleton, chain, limits)
    pos, rot = skeleton.fk(pose)
    R, M, E = pos[chain]
    r = two_bone_ik(R, M, E, target, pole, eps=eps)
    target = np.asarray(target, dtype=np.float64)
    new_mid, new_end = r.mid, r.end
    a = float(np.linalg.norm(M - R))
    b = float(np.linalg.norm(E - M))
    parent = int(skeleton.parents[chain[0]])
    parent_frame = rot[parent] if parent >= 0 else np.array([0.0, 0.0, 0.0, 1.0])

    if root_limit is not None and a > 0.0:
        incoming = _incoming_direction(skeleton, chain[0], pos)
        if incoming is None:
            raise ValueError(f"limit on {skeleton.names[chain[0]]!r}: the chain root has no parent bone to measure it against")
        upper = clamp_bone(root_limit, incoming, parent_frame, new_mid - R)
        if not np.allclose(upper * a, new_mid - R, rtol=0.0, atol=1e-12 * (a + b)):
            new_mid = R + a * upper
            aim = target - new_mid
            n = np.linalg.norm(aim)
            new_end = new_mid + b * (aim / n if n > 0.0 else _unit_or(new_end - new_mid, upper))

    twist = None
    if mid_limit is not None and a > 0.0 and b > 0.0:
        u = (new_mid - R) / a
        lower = new_end - new_mid
        if isinstance(mid_limit, ConeLimit):
            new_end = new_mid + b * clamp_bone(mid_limit, u, None, lower)
        elif isinstance(mid_limit, HingeLimit):
            # The root frame after write-back's shortest-arc turn, and the hinge axis it carries.
            carried = quat_normalize(quat_mul(quat_between(M - R, new_mid - R), rot[chain[0]]))
            h = hinge_axis(tuple(quat_rotate(carried, _unit_or(np.array(mid_limit.axis, float), None))), tuple(u))
            if h is None:
                raise ValueError(f"hinge on {skeleton.names[chain[1]]!r}: its axis lies along the upper bone")
            axis, angle, twist = _hinge_bend(np.array(h), u, lower, mid_limit)
            new_end = new_mid + b * _turn(u, axis, angle)
        else:
            raise ValueError(f"a limit must be a HingeLimit or a ConeLimit, got {type(mid_limit).__name__}")

    out = write_chain_positions(skeleton, pose, chain, np.array([R, new_mid, new_end]))
    if twist is not None:
        _twist_upper_bone(skeleton, out, chain, parent_frame, twist)
    reached = bool(np.linalg.norm(new_end - target) <= eps)
    return out, TwoBoneResult(np.array(new_mid), np.array(new_end), reached)


def _limits_by_joint(skeleton, chain, limits):
    if not limits:
        return None, None
    if not isinstance(limits, Mapping):
        raise ValueError(f"limits must map joint name or index -> limit, got {type(limits).__name__}")
    found = [None, None]
    for key, lim in limits.items():
        j = _index(skeleton, key)
        if j not in chain:
            raise ValueError(f"limit on {skeleton.names[j]!r}, which is not in the chain")
        k = chain.index(j)
        if k == 2:
            raise ValueError(f"limit on {skeleton.names[j]!r}: the chain's end joint has no bone of this chain to limit")
        if not isinstance(lim, (HingeLimit, ConeLimit)):
            raise ValueError(f"limit on {skeleton.names[j]!r} must be a HingeLimit or a ConeLimit, got {type(lim).__name__}")
        found[k] = lim
    return found[0], found[1]


def _index(skeleton, key) -> int:
    if isinstance(key, str):
        try:
            return skeleton.index(key)
        except KeyError:
            raise ValueError(f"limit on {key!r}: no such joint") from None
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= key < len(skeleton):
        return int(key)
    raise ValueError(f"limit on {key!r}: neither a joint name nor a joint index")


def _hinge_bend(h, u, lower, limit):
    """(axis, clamped angle, twist about u taking h onto axis or None) for a hinge."""
    lo, hi = math.radians(limit.min_deg), math.radians(limit.max_deg)
    normal = np.cross(u, lower)
    nn = float(np.linalg.norm(normal))
    bend = math.atan2(nn, float(u.dot(lower)))
    if bend <= STRAIGHT_RAD:
        return h, min(max(0.0, lo), hi), None
    n = normal / nn
    # The bend reads +bend about +n and -bend about -n: take the side needing the smaller
    # clamp, and on a tie the one nearer the carried axis (the smaller twist).
    plus, minus = min(max(bend, lo), hi), min(max(-bend, lo), hi)
    gap_plus, gap_minus = abs(plus - bend), abs(minus + bend)
    if gap_plus < gap_minus or (gap_plus == gap_minus and h.dot(n) >= 0.0):
        axis, angle = n, plus
    else:
        axis, angle = -n, minus
    return axis, angle, _twist_about(u, h, axis)


def _twist_about(u, h, axis):
    """The rotation about unit u taking h onto axis (both perpendicular to u)."""
    half = 0.5 * math.atan2(float(u.dot(np.cross(h, axis))), float(h.dot(axis)))
    return np.concatenate((u * math.sin(half), [math.cos(half)]))


def _turn(u, axis, angle):
    """Unit u turned by angle about the unit axis perpendicular to it."""
    return math.cos(angle) * u + math.sin(angle) * np.cross(axis, u)


def _twist_upper_bone(skeleton, pose, chain, parent_frame, twist):
    """Twist the root joint about its own bone and undo it at the mid joint, in place: the
    hinge axis the upper bone carries turns onto the bend normal, no joint moves."""
    _, rot = skeleton.fk(pose)
    root_world = rot[chain[0]]
    twisted = quat_normalize(quat_mul(twist, root_world))
    pose.rotations[chain[0]] = quat_normalize(quat_mul(quat_conj(parent_frame), twisted))
    mid_world = quat_mul(root_world, pose.rotations[chain[1]])
    pose.rotations[chain[1]] = quat_normalize(quat_mul(quat_conj(twisted), mid_world))


def _incoming_direction(skeleton, joint, pos):
    """Direction of the bone entering `joint`: from the nearest ancestor not on top of it."""
    p = int(skeleton.parents[joint])
    while p >= 0:
        v = pos[joint] - pos[p]
        if np.linalg.norm(v) > 0.0:
            return v
        p = int(skeleton.parents[p])
    return None


def _unit_or(v, fallback):
    n = float(np.linalg.norm(v))
    return v / n if n > 0.0 else fallback
