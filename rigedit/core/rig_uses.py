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
from .ik.look_at import aim_frames, path_to
from .ik.soft import effective_target, effective_target_float
from .skeleton import Skeleton
from .transforms import quat_rotate


def reach_is_plain(ch) -> bool:
    """True when neither the reach clamp nor soft IK moves this chain's target."""
    return ch.reach_clamp >= 1.0 and ch.softness <= 0.0


def aimed_target(ch, points: list, offsets: list) -> tuple[float, float, float]:
    """The target the solver should see: moved toward the chain root along root -> target
    to the clamped / softened distance (rigedit.core.ik.soft). `points` are the warm-start
    joint positions (points[0] is the root, which no solver moves); bone lengths come from
    the joints' local offsets, which the solvers keep."""
    length = sum(math.sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]) for o in offsets[1:])
    return effective_target_float(points[0], ch.own_target, length, ch.reach_clamp, ch.softness)


def look_at_rotations(skeleton: Skeleton, ch, idx: list[int], rot: list, trans: list) -> tuple[list, float]:
    """The local rotations of every joint of a look_at chain (root to aiming joint) that aim
    it at the chain's target, over the pose built so far (`rot`, `trans` as float tuples),
    and the miss: the target's distance (metres) from the aiming joint's forward ray, 0 when
    it looks straight at it (beyond the cone or the twist limit, it misses).

    One call of the compiled kernel (ik/look_at_kernel.aim_chain) over the joints from the
    skeleton's root to the aiming joint: this runs on every frame of a live drag."""
    from .ik.look_at_kernel import aim_chain  # numba's import waits for the first look-at solve

    shares, fwd, up, max_angle, max_twist = look_params(ch.look_at, len(idx))
    path, at, rest = _path_arrays(skeleton, tuple(idx))
    out = np.empty((len(idx), 4))
    miss = aim_chain(
        np.array([rot[j] for j in path]), np.array([trans[j] for j in path]), at, shares, rest, ch.own_target, fwd, up,
        max_angle, max_twist, True, out,
    )  # fmt: skip
    return [tuple(q) for q in out.tolist()], miss


@lru_cache(maxsize=64)
def look_params(look: LookAtSettings, n: int):
    """Shares (summing to 1), unit axes and radians of a chain's (frozen, checked) settings,
    as the kernel takes them."""
    from .ik.look_at_kernel import NO_TWIST_LIMIT  # numba's import waits for the first look-at solve

    weights = np.asarray(look.weights if look.weights is not None else (1.0,) * n, dtype=np.float64)
    twist = NO_TWIST_LIMIT if look.max_twist_deg is None else math.radians(look.max_twist_deg)
    return weights / weights.sum(), _unit(look.forward_axis), _unit(look.up_axis), math.radians(look.max_angle_deg), twist


def _unit(v) -> tuple[float, float, float]:
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return (v[0] / n, v[1] / n, v[2] / n)


# A look_at chain's path from the skeleton root to its aiming joint, the chain joints' places
# on it and their rest rotations: id -> (the skeleton, kept so the id stays its own; its
# arrays, to see them replaced; per chain joints, the arrays).
_paths: dict[int, tuple] = {}


def _path_arrays(skeleton: Skeleton, idx: tuple[int, ...]):
    got = _paths.get(id(skeleton))
    if got is None or got[0] is not skeleton or got[1] is not skeleton.parents or got[2] is not skeleton.rest_rotations:
        if len(_paths) >= 64:
            _paths.clear()
        got = _paths[id(skeleton)] = (skeleton, skeleton.parents, skeleton.rest_rotations, {})
    arrays = got[3].get(idx)
    if arrays is None:
        path = path_to(skeleton, idx[-1])
        at = np.array([path.index(j) for j in idx], dtype=np.int64)
        arrays = got[3][idx] = (path, at, np.ascontiguousarray(skeleton.rest_rotations[list(idx)], dtype=np.float64))
    return arrays


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
    from .ik.look_at_kernel import ray_misses  # numba's import waits for the first look-at bake

    shares, fwd, up, max_angle, max_twist = look_params(ch.look_at, len(idx))
    local, heads, fwds = aim_frames(skeleton, rot, trans, idx, shares, target, fwd, up, max_angle,
                                    None if max_twist < 0.0 else max_twist)  # fmt: skip
    misses = np.empty(heads.shape[0])
    ray_misses(heads, fwds, np.array(target, dtype=np.float64).reshape(-1, 3), misses)
    return local, misses
