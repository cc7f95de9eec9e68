"""The compiled row loop behind `two_bone_ik_batch`: `two_bone.two_bone_ik`, line for line,
for every row of (N, 3) arrays.

Why compiled: a numpy batch pays a pass over every row for each arithmetic step (about a
hundred a limb, 0.4-0.6 ns each here) plus ~50 calls per chunk, which left it at 60-100 ns a
limb; the issue asks for 50. One loop that keeps a limb's numbers in registers does the same
arithmetic in ~10-20 ns. numba compiles it on first use and caches the machine code beside
this file, so only the first call on a machine pays the ~1 s compile (`jitable.fresh_cache`
drops that cache when two_bone.py's constants or py_hypot change, which numba alone would
not notice).

The row (`solve_row`) is the scalar solve's steps in the same order with the same
thresholds, so it rounds as two_bone_ik does (ties at full reach fall the same way): IEEE
float64, no fast-math, so nothing is reassociated or fused. The batch takes direction
lengths as plain square roots (an ulp off math.hypot one time in ten, and cheaper); the
rig's compiled limb (rig_limb_kernel) calls the same row with `exact`, to the bit.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from ..jitable import fresh_cache
from . import py_hypot, two_bone
from .two_bone import AT_ROOT, ON_LINE, TOO_FAR

fresh_cache(__file__, two_bone, py_hypot)

OK = 0
OVERFLOW = 1  # a limb or target past TOO_FAR, or a non-finite coordinate


@numba.njit(cache=True, nogil=True)
def _norm(x: float, y: float, z: float) -> float:
    """|(x, y, z)|: the plain sum of squares, or hypot where that overflows or underflows
    (two_bone uses math.hypot; the results agree to an ulp)."""
    s = x * x + y * y + z * z
    if s < 1e300 and s > 1e-290:
        return math.sqrt(s)
    return math.hypot(math.hypot(x, y), z)


@numba.njit(cache=True, nogil=True)
def solve_rows(R, M, E, T, P, has_pole, out_mid, out_end, reached) -> int:
    status = OK
    for i in range(R.shape[0]):
        ok, hit, mid, end = solve_row(
            R[i, 0], R[i, 1], R[i, 2], M[i, 0], M[i, 1], M[i, 2], E[i, 0], E[i, 1], E[i, 2],
            T[i, 0], T[i, 1], T[i, 2], P[i, 0], P[i, 1], P[i, 2], has_pole, False,
        )  # fmt: skip
        if ok != OK:
            status = OVERFLOW
            continue
        reached[i] = hit
        out_mid[i, 0], out_mid[i, 1], out_mid[i, 2] = mid
        out_end[i, 0], out_end[i, 1], out_end[i, 2] = end
    return status


@numba.njit(cache=True, nogil=True, inline="always")
def solve_row(rx, ry, rz, mx, my, mz, ex, ey, ez, tx, ty, tz, px, py, pz, has_pole, exact):
    """One limb: (status, reached, new mid, new end), the points as float 3-tuples (mid
    and end are zeros when status is OVERFLOW). `exact` takes lengths of directions with
    math.hypot's own rounding (py_hypot), so the row is two_bone_ik's to the bit; without
    it they are plain square roots (an ulp apart one time in ten, and cheaper). Callers
    pass it as a constant: inlined (numba's inline="always"), the other branch folds away."""
    wx, wy, wz = mx - rx, my - ry, mz - rz  # upper bone
    bx, by, bz = ex - mx, ey - my, ez - mz  # lower bone
    tx, ty, tz = tx - rx, ty - ry, tz - rz  # root -> target
    # sqrt of the sum of squares in this order, as two_bone_ik: ties must fall alike.
    a = math.sqrt(wx * wx + wy * wy + wz * wz)
    b = math.sqrt(bx * bx + by * by + bz * bz)
    d = math.sqrt(tx * tx + ty * ty + tz * tz)
    hi = a + b
    if not hi + d <= TOO_FAR:  # also true for NaN
        return OVERFLOW, False, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    lo = a - b if a >= b else b - a
    reached = lo <= d and d <= hi
    if d <= AT_ROOT * hi:
        d = 0.0

    if d > 0.0:
        inv = 1.0 / d  # one division, three products: the divider is the slow unit
        ux, uy, uz = tx * inv, ty * inv, tz * inv
    else:  # the target on the root: toward the end, else along the upper bone, else +X
        fx, fy, fz = wx + bx, wy + by, wz + bz
        n = _length(fx, fy, fz, exact)
        if n > 0.0:
            ux, uy, uz = fx / n, fy / n, fz / n
        else:
            n = _length(wx, wy, wz, exact)
            if n > 0.0:
                ux, uy, uz = wx / n, wy / n, wz / n
            else:
                ux, uy, uz = 1.0, 0.0, 0.0

    have_v = False
    vx = vy = vz = 0.0
    if has_pole:
        px, py, pz = px - rx, py - ry, pz - rz
        if not math.isfinite(px + py + pz):  # a bad pole would only lose the bend plane
            return OVERFLOW, False, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
        pu = px * ux + py * uy + pz * uz
        qx, qy, qz = px - pu * ux, py - pu * uy, pz - pu * uz
        qn = _length(qx, qy, qz, exact)
        if exact:
            off_line = qn > ON_LINE * py_hypot.hypot3(px, py, pz)
        else:
            # |p| <= |px| + |py| + |pz|: clearing that bound decides as |p| would, without
            # its square root (a pole on the reach line is the rare case).
            off_line = qn > ON_LINE * (abs(px) + abs(py) + abs(pz)) or qn > ON_LINE * _norm(px, py, pz)
        if off_line:
            inv = 1.0 / qn
            vx, vy, vz = qx * inv, qy * inv, qz * inv
            have_v = True
    if not have_v:
        # u x (w x b): the bend plane kept, the bend side kept (knees do not flip).
        nx, ny, nz = wy * bz - wz * by, wz * bx - wx * bz, wx * by - wy * bx
        sx, sy, sz = uy * nz - uz * ny, uz * nx - ux * nz, ux * ny - uy * nx
        sn = _length(sx, sy, sz, exact)
        if sn > ON_LINE * a * b:
            inv = 1.0 / sn
            vx, vy, vz = sx * inv, sy * inv, sz * inv
        else:
            vx, vy, vz = _fallback_bend(ux, uy, uz, wx, wy, wz, a, exact)

    if d >= hi:
        dc, mu, mv = hi, a, 0.0
    elif d <= lo:
        dc, mv = lo, 0.0
        mu = a if a >= b else -a
    else:
        dc = d
        h = 0.5 / dc
        mu = ((a - b) * hi + dc * dc) * h
        mv = math.sqrt((hi - dc) * (dc - lo) * (hi + dc) * (dc + lo)) * h
    if dc == 0.0:
        mu, mv = 0.0, a

    mid = (rx + mu * ux + mv * vx, ry + mu * uy + mv * vy, rz + mu * uz + mv * vz)
    return OK, reached, mid, (rx + dc * ux, ry + dc * uy, rz + dc * uz)


@numba.njit(cache=True, nogil=True)
def _length(x, y, z, exact):
    return py_hypot.hypot3(x, y, z) if exact else _norm(x, y, z)


@numba.njit(cache=True, nogil=True)
def _fallback_bend(ux, uy, uz, wx, wy, wz, a, exact):
    """two_bone._fallback_bend: the upper bone's part off the reach line, else u x the
    world axis u is least aligned with."""
    wu = wx * ux + wy * uy + wz * uz
    qx, qy, qz = wx - wu * ux, wy - wu * uy, wz - wu * uz
    qn = _length(qx, qy, qz, exact)
    if qn > ON_LINE * a:
        return qx / qn, qy / qn, qz / qn
    ax, ay, az = abs(ux), abs(uy), abs(uz)
    if ax <= ay and ax <= az:
        qx, qy, qz = 0.0, uz, -uy
    elif ay <= az:
        qx, qy, qz = -uz, 0.0, ux
    else:
        qx, qy, qz = uy, -ux, 0.0
    qn = _length(qx, qy, qz, exact)
    return qx / qn, qy / qn, qz / qn


def solve(R: np.ndarray, M: np.ndarray, E: np.ndarray, T: np.ndarray, P: np.ndarray | None):
    """(mid (N, 3), end (N, 3), reached (N,), status) for C-ordered float64 (N, 3) inputs."""
    n = R.shape[0]
    # One block for both outputs: numpy asks the kernel for huge pages on blocks of 4 MB and
    # up, and fresh memory is otherwise paid for a page fault per 4 kB as it is first
    # written (two separate 2.4 MB outputs for 100,000 limbs cost ~30 ns a limb in faults
    # here, the whole solve ~40).
    block = np.empty((2, n, 3))
    mid, end = block[0], block[1]
    reached = np.zeros(n, dtype=np.bool_)
    status = solve_rows(R, M, E, T, R if P is None else P, P is not None, mid, end, reached)
    return mid, end, reached, status
