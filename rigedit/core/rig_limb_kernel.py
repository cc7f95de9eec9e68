"""rig_limb.solve_limb's arithmetic compiled: warm start, aim, closed form, limit, write-back
in one call.

Why compiled: every limb of every rig runs this on every frame, and in Python floats its
few hundred flops cost ~20-35 us a limb in interpreter overhead (the humanoid has four).
Here they cost ~0.5-1 us; the rest is the call (numba unboxing some 45 floats in a dozen
tuples and boxing the answer: ~1.5-2.5 us, what a no-op with these arguments costs).

One definition: the steps are the very functions the Python rig calls (rig_solve's
chain-pose, limit and write-back helpers, scalar_quat's quaternions, limits' hinge axis,
soft's reach clamp), compiled from the same source (`jitable`), and the closed form is
two_bone_kernel.solve_row, the batch solver's row, with its lengths taken as math.hypot
takes them (`exact`). Same operations in the same order, IEEE float64, no fast-math: a
limb solved here is the bits the Python steps give.

numba caches the machine code beside this file; `jitable.fresh_cache` drops it when a module
it compiles code from changes, which numba alone would not notice.
"""
from __future__ import annotations

import math

import numba

from . import rig_solve
from . import scalar_quat as sq
from .ik import limits, py_hypot, soft, two_bone, two_bone_kernel
from .ik.two_bone_kernel import OK, solve_row
from .jitable import fresh_cache, jitable

NO_LIMIT, CONE, HINGE = 0, 1, 2
BAD_EPS = 2  # a status next to two_bone_kernel's OK / OVERFLOW

fresh_cache(__file__, rig_solve, sq, soft, limits, two_bone_kernel, two_bone, py_hypot)
jitable(
    sq.qmul, sq.qrot, sq.qnormalize, sq.qbetween, sq.near_opposite_turn, sq.turn_unit, sq.perpendicular, sq.cross,
    sq.dot, sq.norm, limits.hinge_axis_found, rig_solve._add_rotated, rig_solve.in_parent_frame, rig_solve.turn_local,
    rig_solve.hinge_bend, rig_solve._bend_normal, rig_solve._bone_end, rig_solve._rotate_about,
    soft.effective_target_float, soft.soft_distance_float,
)  # fmt: skip

qmul, qrot, qnormalize, qbetween = sq.qmul, sq.qrot, sq.qnormalize, sq.qbetween
hinge_axis_found = limits.hinge_axis_found
add_rotated, in_parent_frame, turn_local = rig_solve._add_rotated, rig_solve.in_parent_frame, rig_solve.turn_local
hinge_bend, bend_normal, bone_end = rig_solve.hinge_bend, rig_solve._bend_normal, rig_solve._bone_end
effective_target_float = soft.effective_target_float

_Vec = numba.types.UniTuple(numba.float64, 3)
_Quat = numba.types.UniTuple(numba.float64, 4)
_f8, _i8, _b1 = numba.float64, numba.int64, numba.boolean
# limb has one signature, compiled (or loaded from the cache) on import, so its callees come
# first: a call with other types (ints, lists) fails to match instead of compiling another
# version (solve_limb converts those).
_SIGNATURE = numba.types.Tuple((_i8, _Quat, _Quat, _f8, _Vec))(
    _Vec, _Vec, _b1, _f8, _f8, _f8, _f8, _i8, _Vec, _f8, _f8, _Vec, _Quat, _Vec, _Vec, _Vec, _Quat, _Quat
)


@numba.njit(cache=True, nogil=True)
def _limited(kind, axis_local, lo, hi, root, mid, new_mid, new_end, f0):
    """rig_solve.two_bone_chain's limit step: (new end, twisted, (sin, cos) of the half
    twist about the upper bone)."""
    rx, ry, rz = root
    ux, uy, uz = new_mid[0] - rx, new_mid[1] - ry, new_mid[2] - rz
    vx, vy, vz = new_end[0] - new_mid[0], new_end[1] - new_mid[1], new_end[2] - new_mid[2]
    lu = math.sqrt(ux * ux + uy * uy + uz * uz)
    ll = math.sqrt(vx * vx + vy * vy + vz * vz)
    if lu <= sq.TINY or ll <= sq.TINY:
        return new_end, False, 0.0, 1.0  # a zero-length bone cannot bend wrong
    u = (ux / lu, uy / lu, uz / lu)
    nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    bend = math.atan2(nn, ux * vx + uy * vy + uz * vz)
    if kind == CONE:
        if bend <= lo:
            return new_end, False, 0.0, 1.0
        return bone_end(new_mid, u, bend_normal((nx, ny, nz), nn, None, u), lo, ll), False, 0.0, 1.0
    # Hinge: the axis the upper bone's frame would carry after a plain shortest-arc turn.
    found, hinge = hinge_axis_found(qrot(qmul(qbetween((mid[0] - rx, mid[1] - ry, mid[2] - rz), u), f0), axis_local), u)
    if found:  # (two calls, not one on `hinge if found else None`: compiled code takes no maybe-None)
        axis, angle, clamped = hinge_bend(bend, lo, hi, hinge, (nx, ny, nz), nn, u)
    else:  # no hinge axis off the reach line: bend about a fixed perpendicular, no twist
        axis, angle, clamped = hinge_bend(bend, lo, hi, None, (nx, ny, nz), nn, u)
    if clamped:
        new_end = bone_end(new_mid, u, axis, angle, ll)
    if not found:
        return new_end, False, 0.0, 1.0
    # rig_solve._twist_onto: the turn about u taking the hinge onto the axis.
    hx, hy, hz = hinge
    ax, ay, az = axis
    c = hx * ax + hy * ay + hz * az
    s = u[0] * (hy * az - hz * ay) + u[1] * (hz * ax - hx * az) + u[2] * (hx * ay - hy * ax)
    half = 0.5 * math.atan2(s, c)
    return new_end, True, math.sin(half), math.cos(half)


@numba.njit(_SIGNATURE, cache=True, nogil=True)
def limb(target, pole, has_pole, eps, clamp, softness, total, kind, axis, lo, hi, base_pos, base_rot, o0, o1, o2, w0, w1):
    """solve_limb with its limit as numbers: kind NO_LIMIT, CONE (lo = the cone's half
    angle) or HINGE (unit axis, range [lo, hi]), radians; a pole only if has_pole.
    Returns (status, local rotation 0, local rotation 1, tip error, solved tip); status is
    OK, or two_bone_kernel.OVERFLOW / BAD_EPS for input two_bone_ik would refuse."""
    # The warm start (chain_pose): root, mid, end and the upper bone's world frame f0.
    root = add_rotated(base_pos, base_rot, o0)
    f0 = qmul(base_rot, w0)
    mid = add_rotated(root, f0, o1)
    end = add_rotated(mid, qmul(f0, w1), o2)
    aim = target
    if clamp < 1.0 or softness > 0.0:  # rig_uses.reach_is_plain, inline
        aim = effective_target_float(root, target, total, clamp, softness)
    status, _, new_mid, new_end = solve_row(
        root[0], root[1], root[2], mid[0], mid[1], mid[2], end[0], end[1], end[2],
        aim[0], aim[1], aim[2], pole[0], pole[1], pole[2], has_pole, True,
    )  # fmt: skip
    if not eps > 0.0:
        status = BAD_EPS
    if status != OK:
        return status, w0, w1, math.nan, new_end
    twisted, sh, ch = False, 0.0, 1.0
    if kind != NO_LIMIT:
        new_end, twisted, sh, ch = _limited(kind, axis, lo, hi, root, mid, new_mid, new_end, f0)

    # Upper bone (local_turns, k = 0): the solved bone in the parent's frame ...
    sx, sy, sz = in_parent_frame(base_rot, root, new_mid)
    # ... and the old one: the old local rotation turns the child's offset.
    local0 = turn_local(w0, o1, sx, sy, sz)
    if twisted:
        # The world twist about the solved bone u, seen in the parent's frame, is the same
        # angle about conj(parent) u: the solved bone's direction just worked out.
        ns = math.sqrt(sx * sx + sy * sy + sz * sz)
        k = sh / ns
        local0 = qnormalize(qmul((sx * k, sy * k, sz * k, ch), local0))
    # Lower bone (k = 1), its parent now the upper bone's new world rotation.
    sx, sy, sz = in_parent_frame(qmul(base_rot, local0), new_mid, new_end)
    local1 = turn_local(w1, o2, sx, sy, sz)
    dx, dy, dz = new_end[0] - target[0], new_end[1] - target[1], new_end[2] - target[2]
    return OK, local0, local1, math.sqrt(dx * dx + dy * dy + dz * dz), new_end
