"""One chain of a rig solved in plain floats: warm-start positions, the solver, the write-back.

Each chain keeps its last IK local rotations. A solve puts them on the chain root's current
parent to get the warm-start positions (and the bones' frames, in which hinge axes are
given), runs the solver from there, and turns each bone by the shortest arc from its
warm-start direction to the solved one, which is how `skeleton.write_chain_positions`
turns bones and how FABRIK carries the frames it checks limits in. So the written pose has
exactly the frames the limits were enforced in.

Everything here is per joint on tuples of floats: a numpy call (~1 us) costs more than the
arithmetic of a joint, and a full-skeleton FK per chain would cost more than the solvers.
"""
from __future__ import annotations

import math
from functools import lru_cache
from math import sqrt

import numpy as np

from . import scalar_quat as sq
from .ik.chain_frames import PreparedLimits, bone_directions, packed_limits, plan_limits, planned_limits
from .ik.fabrik import fabrik_kernel, limited_kernel
from .ik.limits import ConeLimit, HingeLimit
from .ik.two_bone import CONE, HINGE, NO_LIMIT, two_bone_ik
from .ik.two_bone import kernel as two_bone_kernel
from .rig_limb import limb_fixed


def world_of(j: int, parents: list[int], rot: list, trans: list, world: list):
    """World (position, rotation) of joint j, filling the cache from the nearest known ancestor."""
    path = []
    while j >= 0 and world[j] is None:
        path.append(j)
        j = parents[j]
    pos, q = world[j] if j >= 0 else (sq.ZERO, sq.IDENTITY)
    if not path:
        return pos, q
    px, py, pz = pos
    ax, ay, az, aw = q
    for k in reversed(path):
        # add_rotated(pos, q, trans[k]) and sq.qmul(q, rot[k]) written out, the same
        # operations in the same order (so the same bits): every chain below a moved one
        # walks up to its base through these each frame, and the calls cost more than
        # the arithmetic.
        vx, vy, vz = trans[k]
        tx = 2.0 * (ay * vz - az * vy)
        ty = 2.0 * (az * vx - ax * vz)
        tz = 2.0 * (ax * vy - ay * vx)
        px = px + (vx + aw * tx + (ay * tz - az * ty))
        py = py + (vy + aw * ty + (az * tx - ax * tz))
        pz = pz + (vz + aw * tz + (ax * ty - ay * tx))
        bx, by, bz, bw = rot[k]
        ax, ay, az, aw = (
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        )
        world[k] = got = ((px, py, pz), (ax, ay, az, aw))
    return got


class ChainSetup:
    """What solving a chain needs that stays put from frame to frame, worked out once (and
    again when the chain's solver, limits or joint offsets change) rather than on every
    frame: the chain's length (for the reach clamp), its FABRIK limit plan, whether that
    has a hinge (only hinges read the bones' frames) and whether the root joint carries a
    limit, and a two-bone chain's middle-joint limit in radians."""

    __slots__ = ("solver", "limits", "offsets", "total", "plan", "hinged", "root_limited", "mid_limit", "fixed_key", "fixed")

    def __init__(self, ch, offsets: list) -> None:
        self.solver, self.limits, self.offsets = ch.solver, ch.limit_key, offsets
        # Summed as rig_uses.aimed_target sums it, so the clamped target is the same to the bit.
        self.total = sum(sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]) for o in offsets[1:])
        self.plan, self.hinged, self.mid_limit = None, False, None
        self.root_limited = ch.joints[0] in ch.limits
        self.fixed_key = self.fixed = None
        if ch.kind.middle_limit_only:
            limit = ch.limits.get(ch.joints[1])
            self.mid_limit = None if limit is None else _limit_params(limit)
        elif ch.limits:
            self.plan, self.hinged = _limit_plan(ch.limit_key, ch.joints)

    def limb_row(self, ch) -> np.ndarray:
        """A two-bone chain's arguments to rig_limb.solve_limb that stay put (its `fixed`),
        made again when its tolerance, reach clamp or softness changes."""
        key = (ch.tolerance, ch.reach_clamp, ch.softness)
        if self.fixed_key != key:
            self.fixed = limb_fixed(ch.tolerance, ch.reach_clamp, ch.softness, self.total, self.mid_limit, self.offsets)
            self.fixed_key = key
        return self.fixed

    def fits(self, ch, offsets: list) -> bool:
        limits = self.limits
        return (limits is ch.limit_key or limits == ch.limit_key) and self.solver == ch.solver and self.offsets == offsets


def fabrik_chain(
    target, tolerance, max_iterations, pole, plan, hinged, base_rot, points, frames, root_dir, errors_out=None, start=None,
    kernels=(fabrik_kernel, limited_kernel),
):
    """FABRIK from the warm-start points, with the chain's limits (its limit plan,
    ChainSetup) in the warm-start frames: the limits are
    prepared straight from the warm start (planned_limits), which the rig built from
    checked values, with no ChainLimits to validate on every frame. `start` instead gives
    them ready made for a warm start that is the chain's own last limited result (see
    turned_locals), which meets them already. Returns (solved points, iterations, prepared
    limits or None, the limited result as (points, hinge axes, directions, turns) arrays,
    turns None when no pass moved the start, or None without limits)."""
    kernel = kernels[0]()  # the loop with the solver's step (solve_methods.ReachLoop), unlimited
    pts = as_rows(points)
    n = len(pts)
    tgt = np.array(target, dtype=np.float64)
    hint = _NO_VEC if pole is None else np.array(pole, dtype=np.float64) - pts[0]
    errors = np.empty(max(max_iterations, 1))
    if start is None and plan is None:
        out = np.empty((n, 3))
        _, count = kernel.rig_free(pts, tgt, tolerance, max_iterations, hint, pole is not None, errors, out)
        if errors_out is not None:
            errors_out.extend(errors[:count].tolist())
        return out.tolist(), count, None, None
    if start is not None:
        prep = start
    else:
        ls = []
        x0, y0, z0 = points[0]
        for x1, y1, z1 in points[1:]:
            dx, dy, dz = x1 - x0, y1 - y0, z1 - z0
            ls.append(sqrt(dx * dx + dy * dy + dz * dz))
            x0, y0, z0 = x1, y1, z1
        if root_dir is not None:
            root_dir = sq.unit_or(root_dir, None)
        if root_dir is None and plan.on_root:
            raise ValueError("a limit on the chain's root joint needs the bone entering it, which has zero length")
        toward = (target[0] - points[0][0], target[1] - points[0][1], target[2] - points[0][2])
        ref_dirs = bone_directions(points, before=root_dir, toward=toward)
        # Cones read no frames: leave them out, and FABRIK builds none we must check.
        prep = planned_limits(plan, ref_dirs, ls, root_dir, base_rot, frames if hinged else None)
    kinds, params, ref_dirs, ref_axes, root_arr, lengths = packed_limits(prep)
    out = empty_pose(n)
    _, count, moved = kernels[1]().fabrik_limited(
        pts, tgt, lengths, kinds, params, ref_dirs, ref_axes, root_arr, _NO_FRAMES, False, tolerance, max_iterations,
        hint, pole is not None, True, start is None, errors, *out, _NO_FRAMES,
    )  # fmt: skip
    if errors_out is not None:
        errors_out.extend(errors[:count].tolist())
    return out[0], count, prep, (out if moved else out[:3] + (None,))


_NO_VEC = np.zeros(3)
_NO_POLE = (0.0, 0.0, 0.0)
_NO_FRAMES = np.zeros((0, 4))


def empty_pose(n: int) -> tuple:
    """Arrays for a limited pose of n points: points, hinge axes, directions, turns."""
    return np.empty((n, 3)), np.zeros((n - 1, 3)), np.empty((n - 1, 3)), np.empty((n - 1, 4))


def as_rows(pts) -> np.ndarray:
    return pts if type(pts) is np.ndarray else np.array(pts, dtype=np.float64)


def turned_locals(base_rot, frames, turns) -> tuple[list, np.ndarray]:
    """The local rotations (all joints but the tip) of a limited FABRIK result, and its
    bones' world frames: each bone's warm-start frame turned by the turn its forward pass
    carried it by (the same shortest arcs local_turns would find, already worked out).
    Returns (local rotations as float tuples, world frames as an (m, 4) array: the next
    warm start's `frames`), worked out compiled (fabrik_limited.turned_locals)."""
    m = len(turns)
    ik, world = np.empty((m, 4)), np.empty((m, 4))
    limited_kernel().turned_locals(*base_rot, as_rows(frames), as_rows(turns), ik, world)
    return list(map(tuple, ik.tolist())), world


def fabrik_warm(
    target, tolerance, max_iterations, base_rot, points, frames, prepared, errors_out: list, pole=None, reach=(0.0, 1.0, 0.0),
    limited=limited_kernel,
):
    """fabrik_chain and turned_locals for a limited chain warm-started from its own last
    result on the same base (`points` and world `frames` as that solve left them,
    `prepared` its limits read there), in one compiled call, aiming where the reach clamp
    and soft IK put `target` (`reach`: the chain's length, reach clamp and softness; the
    default aims at the target itself): every frame of a drag is this case. Returns (solved points, iterations, local rotations or None when no pass moved
    the chain, the next warm start's (points, frames, limits) or None to keep this one, the
    tip's error to the goal, to the aim, and the aim's distance from the root)."""
    kernel = limited()
    kinds, params, root_dir, lengths = prepared.packed
    m = len(lengths)
    pts, axes, dirs, turns = out = empty_pose(m + 1)
    ik, world = np.empty((m, 4)), np.empty((m, 4))
    errors = np.empty(max(max_iterations, 1))
    to_aim, count, moved, error, span = kernel.rig_limited(
        points, *target, *reach, lengths, kinds, params, prepared.ref_dirs, prepared.ref_axes, root_dir, as_rows(frames),
        *base_rot, tolerance, max_iterations, *(_NO_POLE if pole is None else pole), pole is not None, errors, *out, ik, world,
    )  # fmt: skip
    errors_out.extend(errors[:count].tolist())
    if not moved:
        return points, count, None, None, error, to_aim, span
    ready = PreparedLimits(prepared.kinds, prepared.params, dirs, axes, prepared.root_dir, None, prepared.lengths, prepared.packed)
    return pts, count, list(map(tuple, ik.tolist())), (pts, world, ready), error, to_aim, span


@lru_cache(maxsize=512)
def _limit_plan(limits: tuple, joints: tuple) -> tuple:
    """A chain's limits (Chain.limit_key: sorted (joint, Limit) pairs) planned for FABRIK
    once per value: (plan, whether any limit is a hinge)."""
    index = {name: k for k, name in enumerate(joints)}
    by_index = {index[name]: lim for name, lim in limits}
    hinged = any(isinstance(lim, HingeLimit) for lim in by_index.values())
    return plan_limits(by_index, len(joints)), hinged


def two_bone_chain(target, pole, tolerance, lim, points: list, frames: list):
    """The closed form, then the middle joint's limit (its parameters, _limit_params, kept
    in ChainSetup, or None for no limit): two_bone_kernel.chain. The bend angle is clamped
    to the limit's range and, for a hinge, the upper bone is twisted about itself so its
    hinge axis is the bend plane's normal. Returns (solved points, {bone: twist} or None)."""
    root, mid, end = (p if type(p) is tuple else tuple(map(float, p)) for p in points)
    kind, axis, lo, hi = _NO_LIMIT if lim is None else lim
    k = two_bone_kernel()
    try:
        status, new_mid, new_end, twist, sh, ch = k.chain(
            _floats(target), root if pole is None else _floats(pole), kind, axis, lo, hi, root, mid, end, _floats(frames[0], 4)
        )
    except (TypeError, ValueError):
        status = k.OVERFLOW  # not numbers: two_bone_ik names what is wrong
    if status != k.OK or not tolerance > 0.0:
        two_bone_ik(root, mid, end, target, pole, eps=min(1e-6, tolerance))  # raises its own error
        raise ValueError(f"two-bone chain cannot be solved: target {target!r}, pole {pole!r}")
    if twist != k.TWIST:
        return [root, new_mid, new_end], None
    u = sq.unit_or(sq.sub(new_mid, root), None)
    return [root, new_mid, new_end], {0: (u[0] * sh, u[1] * sh, u[2] * sh, ch)}


def _floats(v, n=3):
    if type(v) is tuple and len(v) == n and all(type(c) is float for c in v):
        return v
    return tuple(float(c) for c in v)


_NO_LIMIT = (NO_LIMIT, (0.0, 0.0, 0.0), 0.0, 0.0)


@lru_cache(maxsize=256)
def _limit_params(limit):
    """The middle joint's limit as two_bone_kernel takes it, (kind, unit axis, lo, hi):
    (CONE, -, max rad, -) or (HINGE, axis, min rad, max rad); limits are frozen values."""
    if isinstance(limit, ConeLimit):
        return (CONE, (0.0, 0.0, 0.0), math.radians(limit.max_deg), 0.0)
    return (HINGE, sq.unit_or(tuple(map(float, limit.axis)), None), math.radians(limit.min_deg), math.radians(limit.max_deg))
