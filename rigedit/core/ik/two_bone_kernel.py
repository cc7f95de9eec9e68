"""Two-bone IK, written once: the closed form with its pole, the middle joint's cone or hinge
limit (with the hinge twist), and the rig limb's aim (reach clamp, soft IK) and write-back,
compiled by numba on plain floats and arrays.

Every two-bone path calls these functions: `two_bone_ik` (`single`), `two_bone_ik_batch`
(`rows`, the same row over every row), `solve_two_bone_pose` (`single` and `mid_limit`),
the rig's limb in one pass (`limb`) and its general chain path (`chain`). There is no second
implementation to agree with: the contract is the tolerances of docs/ARCHITECTURE.md, which the tests check.
`NUMBA_DISABLE_JIT=1` (or a function's `py_func`) runs this same source as Python, for
debugging.

The closed form works in the plane of the reach direction u (root -> target) and a unit
bend direction v perpendicular to it: the mid joint at m_u u + m_v v from the root, the end
at dc u, with dc the root -> target distance clamped to what the limb spans. Where the
arithmetic can lose bone length, the formulas keep it:

- No acos/sin pair: m_u = (a^2 - b^2 + dc^2) / 2dc, and m_v by Heron's formula,
  sqrt((hi - dc)(dc - lo)(hi + dc)(dc + lo)) / 2dc with hi = a + b, lo = |a - b|. At the
  clamps a factor is exactly zero, so beyond reach the limb is exactly straight and inside
  |a - b| exactly folded. The factors are differences of given lengths, so a short bone
  next to a long one keeps its length to ~1e-16 * (long / short) relative.
- The distance is clamped to [|a - b|, a + b] without a margin: the solve is continuous at
  full reach. Soft IK and the reach clamp (soft.py) keep a dragged limb off the straight
  edge; the closed form itself stays exact.

numba caches the machine code beside this file; `jitable.fresh_cache` drops it when a
module it compiles code from changes, which numba alone would not notice. Every entry
point has explicit signatures, so it compiles (or loads from the cache) on import and a
call with other types raises TypeError instead of compiling another version: the callers
convert on that slow path.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from numba import boolean, float64, int64, types

from .. import bone_turns
from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import limits, soft, two_bone_codes
from .two_bone_codes import AT_ROOT, BAD_EPS, BAD_SHAPE, CONE, NO_LIMIT, OK, ON_LINE, OVERFLOW, REACHED, STRAIGHT_RAD, TOO_FAR

fresh_cache(__file__, two_bone_codes, sq, soft, limits, bone_turns)
jitable(
    sq.qmul, sq.qrot, sq.qnormalize, sq.qbetween, sq.near_opposite_turn, sq.turn_unit, sq.perpendicular, sq.cross,
    sq.dot, sq.norm, sq.sub, sq.add, sq.qconj, sq.unit_or, limits.hinge_axis_found, bone_turns.add_rotated, bone_turns.in_parent_frame,
    bone_turns.turn_local, soft.effective_target_float, soft.soft_distance_float,
)  # fmt: skip

# mid_limit's twist outcome: none needed, a twist about the upper bone, or (hinge) no axis
# off the upper bone to twist (solve_two_bone_pose refuses that hinge; the rig bends it about
# a fixed perpendicular).
NO_TWIST, TWIST, NO_AXIS = 0, 1, 2

_f8, _i8, _b1 = float64, int64, boolean
_Vec = types.UniTuple(_f8, 3)
_Quat = types.UniTuple(_f8, 4)
_Row = _f8[::1]
_Rows = _f8[:, ::1]


@numba.njit(cache=True, nogil=True)
def _norm(x, y, z):
    """|(x, y, z)|: the square root of the sum of squares, or hypot where the squares
    would overflow or fall into subnormals and lose digits (a target 1e-160 m off the root
    would otherwise give a reach direction 3e-5 longer or shorter than unit)."""
    s = x * x + y * y + z * z
    if s < 1e300 and s > 1e-290:
        return math.sqrt(s)
    return math.hypot(math.hypot(x, y), z)


@numba.njit(cache=True, nogil=True, inline="always")
def solve_row(rx, ry, rz, mx, my, mz, ex, ey, ez, tx, ty, tz, px, py, pz):
    """The closed form for one limb: (status, reached, new mid, new end), points as float
    3-tuples (zeros when status is OVERFLOW). A pole on the root (pass the root itself for
    no pole) lies on the reach line, so it keeps the current bend plane, as no pole does."""
    wx, wy, wz = mx - rx, my - ry, mz - rz  # upper bone
    bx, by, bz = ex - mx, ey - my, ez - mz  # lower bone
    tx, ty, tz = tx - rx, ty - ry, tz - rz  # root -> target
    aa, bb, dd = wx * wx + wy * wy + wz * wz, bx * bx + by * by + bz * bz, tx * tx + ty * ty + tz * tz
    if aa > 1e-290 and bb > 1e-290 and dd > 1e-290:
        a, b, d = math.sqrt(aa), math.sqrt(bb), math.sqrt(dd)  # past 1e300 TOO_FAR refuses them below
    else:  # a zero or tiny length: squares in subnormals would lose its digits
        a, b, d = _norm(wx, wy, wz), _norm(bx, by, bz), _norm(tx, ty, tz)
    hi = a + b
    px, py, pz = px - rx, py - ry, pz - rz
    # One test for every bad number: a NaN or infinity anywhere makes the sum NaN or infinite.
    if not (hi + d <= TOO_FAR and math.isfinite(px + py + pz)):
        return OVERFLOW, False, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    lo = abs(a - b)
    reached = lo <= d and d <= hi

    if d > AT_ROOT * hi:
        inv = 1.0 / d  # one division, three products: the divider is the slow unit
        ux, uy, uz = tx * inv, ty * inv, tz * inv
    else:  # the target on the root: toward the end, else along the upper bone, else +X
        d = 0.0
        fx, fy, fz = wx + bx, wy + by, wz + bz
        n = _norm(fx, fy, fz)
        if n > 0.0:
            ux, uy, uz = fx / n, fy / n, fz / n
        else:
            n = _norm(wx, wy, wz)
            if n > 0.0:
                ux, uy, uz = wx / n, wy / n, wz / n
            else:
                ux, uy, uz = 1.0, 0.0, 0.0

    # Bend direction v: toward the pole, else keep the bend plane, else fall back.
    pu = px * ux + py * uy + pz * uz
    qx, qy, qz = px - pu * ux, py - pu * uy, pz - pu * uz
    qs = qx * qx + qy * qy + qz * qz
    if qs > 1e-290 and qs < 1e300 and qs > (ON_LINE * ON_LINE) * (px * px + py * py + pz * pz):
        # The usual case, decided on squares (no square root for |p|).
        inv = 1.0 / math.sqrt(qs)
        vx, vy, vz = qx * inv, qy * inv, qz * inv
    else:
        qn = _norm(qx, qy, qz)  # squares out of range: the same test on lengths
        if qn > ON_LINE * _norm(px, py, pz):
            inv = 1.0 / qn
            vx, vy, vz = qx * inv, qy * inv, qz * inv
        else:
            # u x (w x b): the bend plane kept, the bend side kept (knees do not flip).
            nx, ny, nz = wy * bz - wz * by, wz * bx - wx * bz, wx * by - wy * bx
            sx, sy, sz = uy * nz - uz * ny, uz * nx - ux * nz, ux * ny - uy * nx
            sn = _norm(sx, sy, sz)
            if sn > ON_LINE * a * b:
                inv = 1.0 / sn
                vx, vy, vz = sx * inv, sy * inv, sz * inv
            else:
                vx, vy, vz = _fallback_bend(ux, uy, uz, wx, wy, wz, a)

    # v from a pole or bend plane nearly on the reach line is the difference of nearly
    # equal vectors: off perpendicular to u by round-off over a small sine (1e-10 for a
    # target 1e-6 rad off a straight limb), which would show in the upper bone's length.
    # One more projection takes it back to round-off.
    k = vx * ux + vy * uy + vz * uz
    if abs(k) > 1e-15:
        vx, vy, vz = vx - k * ux, vy - k * uy, vz - k * uz
        n = _norm(vx, vy, vz)
        if n > 0.0:
            vx, vy, vz = vx / n, vy / n, vz / n

    # The triangle, with the distance clamped to what the limb spans (min/max rather than
    # branches: whether a row is in reach is data, and a mispredicted branch costs more
    # than the arithmetic). At either clamp a Heron factor is exactly zero, so the limb is
    # exactly straight or folded; m_u comes out a or -a to an ulp.
    dc = min(max(d, lo), hi)
    if dc > 0.0:
        h = 0.5 / dc
        mu = ((a - b) * hi + dc * dc) * h
        # Two square roots of products of two lengths, not one of four: a fourth power of
        # lengths overflows past ~1e75 m and underflows under ~1e-75 m (no slower here
        # than one root behind a range check).
        mv = math.sqrt((hi - dc) * (dc - lo)) * math.sqrt((hi + dc) * (dc + lo)) * h
    else:
        # a == b and the target on the root: the end folds onto the root, the mid stands
        # off it along the bend direction (the limit of the general case as d -> 0).
        mu, mv = 0.0, a

    mid = (rx + mu * ux + mv * vx, ry + mu * uy + mv * vy, rz + mu * uz + mv * vz)
    return OK, reached, mid, (rx + dc * ux, ry + dc * uy, rz + dc * uz)


@numba.njit(cache=True, nogil=True)
def _fallback_bend(ux, uy, uz, wx, wy, wz, a):
    """A bend direction when there is no bend plane (straight or zero-length limb): the
    upper bone's part off the reach line if it has one (the limb bends in the plane of its
    old pose and the target), else u x the world axis u is least aligned with, so the
    choice is deterministic and never degenerate."""
    wu = wx * ux + wy * uy + wz * uz
    qx, qy, qz = wx - wu * ux, wy - wu * uy, wz - wu * uz
    qn = _norm(qx, qy, qz)
    if qn > ON_LINE * a:
        return qx / qn, qy / qn, qz / qn
    ax, ay, az = abs(ux), abs(uy), abs(uz)
    if ax <= ay and ax <= az:
        qx, qy, qz = 0.0, uz, -uy  # u x X
    elif ay <= az:
        qx, qy, qz = -uz, 0.0, ux  # u x Y
    else:
        qx, qy, qz = uy, -ux, 0.0  # u x Z
    qn = _norm(qx, qy, qz)
    return qx / qn, qy / qn, qz / qn


# --- the middle joint's limit ---------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _rotated_end(start, u, axis, angle, length):
    """start + length * (unit u turned by angle about the unit axis perpendicular to it)."""
    c, s = math.cos(angle), math.sin(angle)
    w = sq.cross(axis, u)
    return (
        start[0] + length * (c * u[0] + s * w[0]),
        start[1] + length * (c * u[1] + s * w[1]),
        start[2] + length * (c * u[2] + s * w[2]),
    )


@numba.njit(cache=True, nogil=True)
def _bend_normal(normal, planar, u, fallback):
    """The unit bend-plane normal made exactly perpendicular to the upper bone u (a turn
    about it then keeps the lower bone's length), or `fallback` for a limb with no bend
    plane (`planar` False: straight, or folded back onto itself, where the bones' cross
    product is round-off pointing anywhere)."""
    if not planar:
        return fallback
    k = sq.dot(normal, u)
    return sq.unit_or((normal[0] - k * u[0], normal[1] - k * u[1], normal[2] - k * u[2]), fallback)


@numba.njit(cache=True, nogil=True)
def _hinge_bend(bend, lo, hi, found, hinge, normal, planar, u):
    """(axis, angle, clamped): how the limb bends at a hinge of range [lo, hi] (radians),
    given its solved bend angle, its bend plane's normal (`planar`: see _bend_normal) and
    the hinge axis the upper bone carries (`found` False when that lies along u)."""
    if bend > STRAIGHT_RAD and found:
        # A limb folded back onto itself has no bend plane: it bends about the hinge.
        n = _bend_normal(normal, planar, u, hinge)
        # Align the hinge with +n (the bend reads +bend) or -n (it reads -bend): whichever
        # needs the smaller clamp, and on a tie the smaller twist.
        plus = min(max(bend, lo), hi)
        minus = min(max(-bend, lo), hi)
        gap_plus, gap_minus = abs(plus - bend), abs(minus + bend)
        if gap_plus < gap_minus or (gap_plus == gap_minus and sq.dot(hinge, n) >= 0.0):
            return n, plus, gap_plus > 0.0
        return (-n[0], -n[1], -n[2]), minus, gap_minus > 0.0
    # Straight, or no axis: no bend plane to align with; bend (if the range says so) about
    # the carried axis, else a fixed perpendicular.
    angle = min(max(0.0, lo), hi)
    return (hinge if found else sq.perpendicular(u)), angle, angle != 0.0


@numba.njit((types.Tuple((_Vec, _i8, _f8, _f8))(_i8, _Vec, _f8, _f8, _Vec, _Vec, _Vec, _Vec, _Quat)), cache=True, nogil=True)
def mid_limit(kind, axis_local, lo, hi, root, mid, new_mid, new_end, f0):
    """The middle joint's limit on a solved limb: (new end, twist outcome, sin and cos of
    half the twist about the upper bone).

    kind CONE (lo: the half angle) or HINGE (axis_local: the unit axis in the upper bone's
    frame f0 at the warm start root/mid; range [lo, hi]), radians. A cone clamps the lower
    bone. A hinge is a knee: the limb bends in the plane the closed form chose (the pole's),
    so the upper bone is twisted about itself until its hinge axis is that plane's normal
    (or its opposite, whichever needs the smaller clamp), and only the bend angle is clamped
    to the range. Without the twist a hinge whose axis misses the pole's plane would throw
    the end off a target the knee could reach."""
    w = sq.sub(new_mid, root)
    v = sq.sub(new_end, new_mid)
    lu, ll = sq.norm(w), sq.norm(v)
    if kind == NO_LIMIT or lu <= sq.TINY or ll <= sq.TINY:
        return new_end, NO_TWIST, 0.0, 1.0  # a zero-length bone cannot bend wrong
    u = (w[0] / lu, w[1] / lu, w[2] / lu)
    normal = sq.cross(w, v)
    nn = sq.norm(normal)
    bend = math.atan2(nn, sq.dot(w, v))
    planar = nn > ON_LINE * lu * ll
    if kind == CONE:
        if bend <= lo:
            return new_end, NO_TWIST, 0.0, 1.0
        return _rotated_end(new_mid, u, _bend_normal(normal, planar, u, sq.perpendicular(u)), lo, ll), NO_TWIST, 0.0, 1.0
    # The axis the upper bone's frame would carry after a plain shortest-arc turn.
    found, hinge = limits.hinge_axis_found(sq.qrot(sq.qmul(sq.qbetween(sq.sub(mid, root), u), f0), axis_local), u)
    axis, angle, clamped = _hinge_bend(bend, lo, hi, found, hinge, normal, planar, u)
    if clamped:
        new_end = _rotated_end(new_mid, u, axis, angle, ll)
    if not found:
        return new_end, NO_AXIS, 0.0, 1.0
    half = 0.5 * math.atan2(sq.dot(u, sq.cross(hinge, axis)), sq.dot(hinge, axis))
    return new_end, TWIST, math.sin(half), math.cos(half)


# --- entry points -----------------------------------------------------------------------------


@numba.njit(_i8(_Row, _Row, _Row, _Row, _Row, _Row, _Row), cache=True, nogil=True)
def single(root, mid, end, target, pole, out_mid, out_end):
    """two_bone_ik on (3,) arrays (pole: the root for none), into out_mid and out_end:
    returns REACHED, OK (solved, not reached), OVERFLOW or BAD_SHAPE."""
    if root.size != 3 or mid.size != 3 or end.size != 3 or target.size != 3 or pole.size != 3:
        return BAD_SHAPE
    status, reached, m, e = solve_row(
        root[0], root[1], root[2], mid[0], mid[1], mid[2], end[0], end[1], end[2],
        target[0], target[1], target[2], pole[0], pole[1], pole[2],
    )  # fmt: skip
    out_mid[0], out_mid[1], out_mid[2] = m
    out_end[0], out_end[1], out_end[2] = e
    if status != OK:
        return status
    return REACHED if reached else OK


_ROWS = _i8(_Rows, _Rows, _Rows, _Rows, _Rows, _Rows, _Rows, _b1[::1])


@numba.njit(_ROWS, cache=True, nogil=True)
def rows(R, M, E, T, P, out_mid, out_end, reached):
    """single over every row of (N, 3) arrays (P: R for no poles): returns the number of
    rows that could not be solved.

    On one thread: shared out over both cores here with numba.prange (OpenMP), 100k rows
    took 14-18 ns a limb at best but 80-240 ns in the median against ~28 ns on one core,
    on a machine whose two cores other work also uses (one busy core stalls the other's
    half of the rows)."""
    bad = 0
    for i in range(R.shape[0]):
        status, hit, m, e = solve_row(
            R[i, 0], R[i, 1], R[i, 2], M[i, 0], M[i, 1], M[i, 2], E[i, 0], E[i, 1], E[i, 2],
            T[i, 0], T[i, 1], T[i, 2], P[i, 0], P[i, 1], P[i, 2],
        )  # fmt: skip
        bad += status != OK
        reached[i] = hit
        out_mid[i, 0], out_mid[i, 1], out_mid[i, 2] = m
        out_end[i, 0], out_end[i, 1], out_end[i, 2] = e
    return bad


@numba.njit(cache=True, nogil=True, inline="always")
def _solve_limited(target, pole, kind, axis, lo, hi, root, mid, end, f0):
    """The closed form, then the middle joint's limit: (status, reached, new mid, new end,
    twist outcome, sin and cos of half the twist)."""
    status, reached, new_mid, new_end = solve_row(
        root[0], root[1], root[2], mid[0], mid[1], mid[2], end[0], end[1], end[2],
        target[0], target[1], target[2], pole[0], pole[1], pole[2],
    )  # fmt: skip
    if status != OK or kind == NO_LIMIT:
        return status, reached, new_mid, new_end, NO_TWIST, 0.0, 1.0
    new_end, twist, sh, ch = mid_limit(kind, axis, lo, hi, root, mid, new_mid, new_end, f0)
    return status, reached, new_mid, new_end, twist, sh, ch


@numba.njit(
    types.Tuple((_i8, _Vec, _Vec, _i8, _f8, _f8))(_Vec, _Vec, _i8, _Vec, _f8, _f8, _Vec, _Vec, _Vec, _Quat),
    cache=True, nogil=True,
)  # fmt: skip
def chain(target, pole, kind, axis, lo, hi, root, mid, end, f0):
    """A rig chain's closed form and limit from its warm-start points and upper-bone frame
    f0 (rig_solve.two_bone_chain): (status, new mid, new end, twist outcome, sin and cos of
    half the twist about the solved upper bone). pole: the root for none."""
    status, _, new_mid, new_end, twist, sh, ch = _solve_limited(target, pole, kind, axis, lo, hi, root, mid, end, f0)
    return status, new_mid, new_end, twist, sh, ch


_LIMB = types.Tuple((_i8, _Quat, _Quat, _f8, _Vec))(
    _Vec, _Vec, _b1, _f8, _f8, _f8, _f8, _i8, _Vec, _f8, _f8, _Vec, _Quat, _Vec, _Vec, _Vec, _Quat, _Quat
)


@numba.njit(cache=True, nogil=True, inline="always")
def _limb(target, pole, has_pole, eps, clamp, softness, total, kind, axis, lo, hi, base_pos, base_rot, o0, o1, o2, w0, w1):
    """A rig's two-bone chain in one pass (rig_limb.solve_limb): the warm start from the
    root parent's world transform, the joints' offsets and the warm local rotations w0, w1;
    the aim (reach clamp / soft IK over the chain length `total`); the closed form and the
    middle joint's limit (kind, axis, lo, hi as for mid_limit); the write-back, each bone
    turned by the shortest arc to its solved direction (bone_turns.local_turns).
    Returns (status, local rotation 0, local rotation 1, tip error, solved tip)."""
    root = bone_turns.add_rotated(base_pos, base_rot, o0)
    f0 = sq.qmul(base_rot, w0)
    mid = bone_turns.add_rotated(root, f0, o1)
    end = bone_turns.add_rotated(mid, sq.qmul(f0, w1), o2)
    aim = target
    if clamp < 1.0 or softness > 0.0:  # rig_uses.reach_is_plain, inline
        aim = soft.effective_target_float(root, target, total, clamp, softness)
    status, _, new_mid, new_end, twist, sh, ch = _solve_limited(aim, pole if has_pole else root, kind, axis, lo, hi, root, mid, end, f0)
    if not eps > 0.0:
        status = BAD_EPS
    if status != OK:
        return status, w0, w1, math.nan, new_end

    # Upper bone: the solved bone in the parent's frame, and the old one under w0.
    sx, sy, sz = bone_turns.in_parent_frame(base_rot, root, new_mid)
    local0 = bone_turns.turn_local(w0, o1, sx, sy, sz)
    if twist == TWIST:
        # The world twist about the solved bone, seen in the parent's frame, is the same
        # angle about conj(parent) u: the solved bone's direction just worked out.
        k = sh / sq.norm((sx, sy, sz))
        local0 = sq.qnormalize(sq.qmul((sx * k, sy * k, sz * k, ch), local0))
    # Lower bone, its parent now the upper bone's new world rotation.
    sx, sy, sz = bone_turns.in_parent_frame(sq.qmul(base_rot, local0), new_mid, new_end)
    local1 = bone_turns.turn_local(w1, o2, sx, sy, sz)
    return OK, local0, local1, sq.norm(sq.sub(new_end, target)), new_end


@numba.njit(_LIMB, cache=True, nogil=True)
def limb(target, pole, has_pole, eps, clamp, softness, total, kind, axis, lo, hi, base_pos, base_rot, o0, o1, o2, w0, w1):
    """_limb on its arguments one by one."""
    return _limb(target, pole, has_pole, eps, clamp, softness, total, kind, axis, lo, hi, base_pos, base_rot, o0, o1, o2, w0, w1)


# limb_packed's `fixed` row: what stays put for a chain from frame to frame, in this order.
FIXED_EPS, FIXED_CLAMP, FIXED_SOFTNESS, FIXED_TOTAL, FIXED_KIND, FIXED_AXIS, FIXED_LO, FIXED_HI, FIXED_OFFSETS = 0, 1, 2, 3, 4, 5, 8, 9, 10
FIXED_SIZE = 19


@numba.njit(types.Tuple((_i8, _Quat, _Quat, _f8, _Vec))(_Row, _Vec, _Vec, _b1, _Vec, _Quat, _Quat, _Quat), cache=True, nogil=True)
def limb_packed(fixed, target, pole, has_pole, base_pos, base_rot, w0, w1):
    """limb with what a chain keeps from frame to frame (eps, reach clamp, softness, length,
    the middle joint's limit, the three offsets) in one row, `fixed` (FIXED_* say where):
    the rig's every limb every frame, and numba takes one array for less than the ten
    arguments it holds (a third of the call)."""
    f = fixed
    return _limb(
        target, pole, has_pole, f[0], f[1], f[2], f[3], int(f[4]), (f[5], f[6], f[7]), f[8], f[9], base_pos, base_rot,
        (f[10], f[11], f[12]), (f[13], f[14], f[15]), (f[16], f[17], f[18]), w0, w1,
    )  # fmt: skip


def solve_batch(R: np.ndarray, M: np.ndarray, E: np.ndarray, T: np.ndarray, P: np.ndarray | None):
    """(mid (N, 3), end (N, 3), reached (N,), rows not solved) for C-ordered float64 (N, 3)."""
    n = R.shape[0]
    # One block for both outputs: numpy asks the kernel for huge pages on blocks of 4 MB and
    # up, and fresh memory is otherwise paid for a page fault per 4 kB as it is first
    # written (two separate 2.4 MB outputs for 100,000 limbs cost ~30 ns a limb in faults
    # here, the whole solve ~40).
    block = np.empty((2, n, 3))
    mid, end = block[0], block[1]
    reached = np.empty(n, dtype=np.bool_)
    bad = rows(R, M, E, T, R if P is None else P, mid, end, reached)
    return mid, end, reached, bad
