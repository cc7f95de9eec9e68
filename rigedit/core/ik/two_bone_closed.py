"""Two-bone IK's closed form for one limb (`solve_row`), compiled by numba on plain floats:
the rows of two_bone_kernel.py all call it.

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
"""
from __future__ import annotations

import math

import numba

from ..jitable import fresh_cache
from . import two_bone_codes
from .two_bone_codes import AT_ROOT, OK, ON_LINE, OVERFLOW, TOO_FAR

fresh_cache(__file__, two_bone_codes)

# The closed form's steps are inlined into their callers by numba itself: a limb solve is
# a few dozen float operations, and a call that passes them costs as much.
_inline = numba.njit(cache=True, nogil=True, inline="always")


@numba.njit(cache=True, nogil=True)
def _norm(x, y, z):
    """|(x, y, z)|: the square root of the sum of squares, or hypot where the squares
    would overflow or fall into subnormals and lose digits (a target 1e-160 m off the root
    would otherwise give a reach direction 3e-5 longer or shorter than unit)."""
    s = x * x + y * y + z * z
    if s < 1e300 and s > 1e-290:
        return math.sqrt(s)
    return math.hypot(math.hypot(x, y), z)


@_inline
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
    d, ux, uy, uz = _reach_dir(tx, ty, tz, d, hi, wx, wy, wz, bx, by, bz)
    vx, vy, vz = _bend_dir(px, py, pz, ux, uy, uz, wx, wy, wz, bx, by, bz, a, b)
    dc, mu, mv = _triangle(a, b, d, lo, hi)
    mid = (rx + mu * ux + mv * vx, ry + mu * uy + mv * vy, rz + mu * uz + mv * vz)
    return OK, reached, mid, (rx + dc * ux, ry + dc * uy, rz + dc * uz)


@_inline
def _reach_dir(tx, ty, tz, d, hi, wx, wy, wz, bx, by, bz):
    """(d, u): the unit reach direction u toward the target t (at distance d); a target on
    the root gives d 0 and u toward the end, else along the upper bone, else +X."""
    if d > AT_ROOT * hi:
        inv = 1.0 / d  # one division, three products: the divider is the slow unit
        return d, tx * inv, ty * inv, tz * inv
    fx, fy, fz = wx + bx, wy + by, wz + bz
    n = _norm(fx, fy, fz)
    if n > 0.0:
        return 0.0, fx / n, fy / n, fz / n
    n = _norm(wx, wy, wz)
    if n > 0.0:
        return 0.0, wx / n, wy / n, wz / n
    return 0.0, 1.0, 0.0, 0.0


@_inline
def _bend_dir(px, py, pz, ux, uy, uz, wx, wy, wz, bx, by, bz, a, b):
    """The unit bend direction v, perpendicular to u: toward the pole p, else keeping the
    bend plane of the upper bone w and lower bone b, else _fallback_bend's."""
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
    return vx, vy, vz


@_inline
def _triangle(a, b, d, lo, hi):
    """(dc, m_u, m_v): the distance clamped to what the limb spans and the mid joint's
    coordinates along u and v (min/max rather than branches: whether a row is in reach is
    data, and a mispredicted branch costs more than the arithmetic). At either clamp a Heron
    factor is exactly zero, so the limb is exactly straight or folded; m_u comes out a or -a
    to an ulp."""
    dc = min(max(d, lo), hi)
    if dc > 0.0:
        h = 0.5 / dc
        mu = ((a - b) * hi + dc * dc) * h
        # Two square roots of products of two lengths, not one of four: a fourth power of
        # lengths overflows past ~1e75 m and underflows under ~1e-75 m (no slower here
        # than one root behind a range check).
        mv = math.sqrt((hi - dc) * (dc - lo)) * math.sqrt((hi + dc) * (dc + lo)) * h
        return dc, mu, mv
    # a == b and the target on the root: the end folds onto the root, the mid stands off it
    # along the bend direction (the limit of the general case as d -> 0).
    return dc, 0.0, a


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
