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
the lower bone then aims at the target; a mid limit then acts on the lower bone, as in the
rig (two_bone_kernel.mid_limit, the one implementation): a cone clamps it; a hinge is a
knee, the limb bends in the plane two_bone_ik chose (the pole's), the upper bone is twisted
about itself until its hinge axis is that plane's normal, and only the bend angle is
clamped to the hinge's range.

r is a TwoBoneResult with the final mid and end positions; r.reached says the end is within
eps of the target (the limb could reach it and no limit pulled it away).
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..skeleton import Pose, Skeleton, write_chain_positions
from ..transforms import quat_conj, quat_mul, quat_normalize
from .fabrik_pose import chain_of
from .limits import ConeLimit, HingeLimit, clamp_bone
from .two_bone import CONE, HINGE, TwoBoneResult, kernel, two_bone_ik


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
        if not isinstance(mid_limit, (ConeLimit, HingeLimit)):
            raise ValueError(f"a limit must be a HingeLimit or a ConeLimit, got {type(mid_limit).__name__}")
        k = kernel()
        kind, axis, lo, hi = _limit_numbers(mid_limit)
        points = (tuple(p.tolist()) for p in (R, M, new_mid, new_end))
        end, outcome, sh, ch = k.mid_limit(kind, axis, lo, hi, *points, tuple(rot[chain[0]].tolist()))
        if outcome == k.NO_AXIS:
            raise ValueError(f"hinge on {skeleton.names[chain[1]]!r}: its axis lies along the upper bone")
        new_end = np.array(end)
        if outcome == k.TWIST:
            u = (new_mid - R) / a
            twist = np.array([u[0] * sh, u[1] * sh, u[2] * sh, ch])

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


def _limit_numbers(limit):
    """(kind, unit axis, lo, hi) in radians, as two_bone_kernel.mid_limit takes a limit."""
    if isinstance(limit, ConeLimit):
        return CONE, (0.0, 0.0, 0.0), math.radians(limit.max_deg), 0.0
    axis = np.array(limit.axis, dtype=np.float64)
    return HINGE, tuple((axis / np.linalg.norm(axis)).tolist()), math.radians(limit.min_deg), math.radians(limit.max_deg)


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
