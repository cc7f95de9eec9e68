"""The rig's per-chain solve for the typical uses (issue 8): the reach clamp and soft IK in
front of the two-bone / FABRIK solvers, and the look_at chain kind.

Kept out of rig_solve.py (the hot per-joint path other work tunes): the rig calls in here
only for what these features add, and a chain with both features off never gets here.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .chain_uses import LookAtSettings
from .ik.look_at import solve_look_at
from .ik.look_at_floats import look_at_floats, ray_miss, unit
from .ik.soft import effective_target, effective_target_float
from .skeleton import Pose, Skeleton
from .transforms import quat_rotate


def reach_is_plain(ch) -> bool:
    """True when neither the reach clamp nor soft IK moves this chain's target."""
    return ch._reach_clamp >= 1.0 and ch._softness <= 0.0


def aimed_target(ch, points: list, offsets: list) -> tuple[float, float, float]:
    """The target the solver should see: moved toward the chain root along root -> target
    to the clamped / softened distance (rigedit.core.ik.soft). `points` are the warm-start
    joint positions (points[0] is the root, which no solver moves); bone lengths come from
    the joints' local offsets, which the solvers keep."""
    length = sum(math.sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]) for o in offsets[1:])
    return effective_target_float(points[0], ch._target, length, ch._reach_clamp, ch._softness)


def look_at_rotations(skeleton: Skeleton, ch, idx: list[int], rot: list, trans: list) -> tuple[list, float]:
    """The local rotations of every joint of a look_at chain (root to aiming joint) that aim
    it at the chain's target, over the pose built so far (`rot`, `trans` as float tuples),
    and the miss: the target's distance (metres) from the aiming joint's forward ray, 0 when
    it looks straight at it (beyond the cone or the twist limit, it misses).

    In floats (ik/look_at_floats.py): this runs on every frame of a live drag."""
    shares, fwd, up, max_angle, max_twist = _look_params(ch._look_at, len(idx))
    parents, rest = _skeleton_lists(skeleton)
    local, head, head_fwd = look_at_floats(
        parents, idx, [rest[j] for j in idx], rot, trans, ch._target, shares, fwd, up, max_angle, max_twist
    )
    return local, ray_miss(head, head_fwd, ch._target)


@lru_cache(maxsize=64)
def _look_params(look: LookAtSettings, n: int):
    """Shares (summing to 1), unit axes and radians of a chain's (frozen, checked) settings."""
    weights = look.weights if look.weights is not None else (1.0,) * n
    total = float(sum(weights))
    twist = None if look.max_twist_deg is None else math.radians(look.max_twist_deg)
    return [w / total for w in weights], unit(look.forward_axis), unit(look.up_axis), math.radians(look.max_angle_deg), twist


# A skeleton's parents and rest rotations as lists, for the float solve: id -> (the skeleton,
# kept so the id stays its own; its arrays, to see them replaced; the lists).
_lists: dict[int, tuple] = {}


def _skeleton_lists(skeleton: Skeleton):
    got = _lists.get(id(skeleton))
    if got is None or got[0] is not skeleton or got[1] is not skeleton.parents or got[2] is not skeleton.rest_rotations:
        if len(_lists) >= 64:
            _lists.clear()
        lists = ([int(p) for p in skeleton.parents], [tuple(q) for q in skeleton.rest_rotations.tolist()])
        got = _lists[id(skeleton)] = (skeleton, skeleton.parents, skeleton.rest_rotations, lists)
    return got[3]


def aim_miss(skeleton: Skeleton, pose: Pose, head: int, forward_axis, target) -> float:
    """Distance (metres) from `target` to the ray the joint's forward axis casts."""
    pos, quats = skeleton.fk(pose)
    fwd = quat_rotate(quats[head], np.asarray(forward_axis, dtype=np.float64))
    fwd = fwd / np.linalg.norm(fwd)
    to = np.asarray(target, dtype=np.float64) - pos[head]
    along = float(np.dot(to, fwd))
    if along <= 0.0:
        return float(np.linalg.norm(to))  # behind the head: the ray's nearest point is the head
    return float(np.linalg.norm(to - along * fwd))


# --- the same for a whole clip at once (core/bake.py) ---------------------------------------


def aimed_targets(ch, base_pos, base_rot, trans, idx: list[int], target) -> np.ndarray:
    """Per-frame (F, 3) targets moved by the chain's reach clamp / soft IK, as Rig.solve
    moves them frame by frame: root (F, 3) from the chain root's parent world transform,
    chain length from the joints' local offsets `trans` (F, n, 3)."""
    if reach_is_plain(ch):
        return target
    root = base_pos + quat_rotate(base_rot, trans[:, idx[0]])
    length = np.linalg.norm(trans[:, idx[1:]], axis=-1).sum(axis=-1)
    return effective_target(root, target, length, ch.reach_clamp, ch.softness)


def look_at_frames(skeleton: Skeleton, ch, idx: list[int], rot, trans, target) -> tuple[np.ndarray, np.ndarray]:
    """A look_at chain over a whole clip: local rotations (F, len(idx), 4) of its joints, and
    each frame's miss (F,) as look_at_rotations measures it."""
    look = ch.look_at
    weights = look.weights if look.weights is not None else (1.0,) * len(idx)
    out = solve_look_at(
        skeleton,
        Pose(rot, trans),
        list(ch.joints),
        weights,
        target,
        look.forward_axis,
        look.up_axis,
        look.max_angle_deg,
        max_twist_deg=look.max_twist_deg,
    )
    misses = np.array([aim_miss(skeleton, Pose(out.rotations[f], out.translations[f]), idx[-1], look.forward_axis, target[f]) for f in range(rot.shape[0])])
    return out.rotations[:, idx], misses
