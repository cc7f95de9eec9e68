"""Analytic two-bone IK (an arm or a leg): root, mid joint (elbow/knee), end (hand/foot).

The solve happens in the plane spanned by the reach direction u (root -> target) and a unit
bend direction v perpendicular to it. The mid joint is at m_u * u + m_v * v from the root, the
end at dc * u, where dc is the root -> target distance clamped to what the limb can span.

This is the single-chain path: it runs once per limb per dragged frame, so it stays on plain
Python floats (`math`), where a numpy call on a 3-vector costs more (~1 us here) than all the
arithmetic of the solve. `two_bone_batch.py` is the vectorised twin; both follow the same
decisions with the same thresholds so they agree row by row.

Where the arithmetic can lose bone length, the formulas are chosen to keep it:

- No acos/sin pair: m_u = (a^2 - b^2 + dc^2) / 2dc, and m_v from Heron's formula,
  sqrt((hi - dc)(dc - lo)(hi + dc)(dc + lo)) / 2dc with hi = a + b, lo = |a - b|. At the
  clamps a factor is exactly zero, so beyond reach the limb is exactly straight and inside
  |a - b| exactly folded (sqrt(1 - cos^2) would leave the mid ~1e-8 off the line). The
  factors are differences of given lengths, so a short bone next to a long one keeps its
  length to ~1e-16 * (long / short) relative, not ~1e-16 * (long / short)^2.
- The distance is clamped to [|a - b|, a + b] without an eps margin: the solve stays
  continuous at full reach. Soft IK and the reach clamp (ik/soft.py) keep a dragged limb
  off the straight edge when a bend must stay defined; the solver itself stays exact.
"""
from __future__ import annotations

from math import hypot, isfinite, sqrt
from typing import NamedTuple

import numpy as np

# A direction whose sine against a line is below this counts as on the line: the pole on
# the root-target axis, a straight limb. Float64 round-off of a direction is ~1e-16; 1e-9
# leaves a wide margin while still taking any bend a user could see (1e-9 rad is a
# nanometre of elbow offset per metre of arm).
ON_LINE = 1e-9
# Squares of lengths past this overflow float64; no rig is 1e150 m across.
TOO_FAR = 1e150
# A target nearer the root than this fraction of the limb counts as on it: the triangle's
# products of lengths would underflow into subnormals and lose the bone lengths.
AT_ROOT = 1e-100


_ndarray = np.ndarray
_array = np.array
_tuple_new = tuple.__new__


class TwoBoneResult(NamedTuple):
    mid: np.ndarray  # (3,) new world position of the mid joint
    end: np.ndarray  # (3,) new world position of the end joint
    reached: bool  # |a - b| <= |target - root| <= a + b


def two_bone_ik(root, mid, end, target, pole=None, *, eps: float = 1e-6, as_floats: bool = False) -> TwoBoneResult:
    """Solve a two-bone limb for `target`; see DESIGN.md for the contract.

    root, mid, end: current world positions (the bone lengths are taken from them);
    target: where the end should go; pole: a point the mid joint should bend toward, or
    None to keep the current bend plane. `eps` is the accuracy promised for reachable
    targets; the solve hits them to round-off, well inside it. `as_floats` gives mid and
    end as float 3-tuples instead of arrays (Rig.solve, per limb per frame, where building
    the two arrays cost more than the solve).
    """
    # Validation must cost little next to the solve: unpack, add everything up once and
    # check the sum. A wrong shape fails the unpack or the sum (list + float); a non-finite
    # number makes the sum non-finite. Only then does the slow path work out what is wrong.
    try:
        rx, ry, rz = root.tolist() if type(root) is _ndarray else _three(root)
        mx, my, mz = mid.tolist() if type(mid) is _ndarray else _three(mid)
        ex, ey, ez = end.tolist() if type(end) is _ndarray else _three(end)
        tx, ty, tz = target.tolist() if type(target) is _ndarray else _three(target)
        total = rx + ry + rz + mx + my + mz + ex + ey + ez + tx + ty + tz
        if pole is not None:
            px, py, pz = pole.tolist() if type(pole) is _ndarray else _three(pole)
            total += px + py + pz
        ok = isfinite(total) and eps > 0.0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        _explain_bad_input(root, mid, end, target, pole, eps)

    wx, wy, wz = mx - rx, my - ry, mz - rz  # upper bone
    bx, by, bz = ex - mx, ey - my, ez - mz  # lower bone
    tx, ty, tz = tx - rx, ty - ry, tz - rz  # root -> target
    # Lengths as sqrt of the sum of squares in this order, not hypot: the batch solver
    # computes them so, and ties (equal bones, a target at full reach) must fall the same
    # way in both. Overflow is caught just below.
    a = sqrt(wx * wx + wy * wy + wz * wz)
    b = sqrt(bx * bx + by * by + bz * bz)
    d = sqrt(tx * tx + ty * ty + tz * tz)
    hi = a + b
    if not hi + d <= TOO_FAR:
        raise ValueError(f"limb or target too large to solve: lengths past {TOO_FAR:g} m overflow their squares")
    lo = a - b if a >= b else b - a
    reached = lo <= d <= hi

    if d <= AT_ROOT * hi:
        d = 0.0

    # Reach direction u.
    if d > 0.0:
        # One division and three products, as two_bone_kernel (where the divider is the
        # slow unit), so the two round alike.
        inv = 1.0 / d
        ux, uy, uz = tx * inv, ty * inv, tz * inv
    else:
        ux, uy, uz = _fallback_reach(wx + bx, wy + by, wz + bz, wx, wy, wz)

    # Bend direction v: toward the pole, else keep the bend plane, else fall back.
    v = None
    if pole is not None:
        px, py, pz = px - rx, py - ry, pz - rz
        pu = px * ux + py * uy + pz * uz
        qx, qy, qz = px - pu * ux, py - pu * uy, pz - pu * uz
        qn = hypot(qx, qy, qz)
        if qn > ON_LINE * hypot(px, py, pz):
            inv = 1.0 / qn
            v = (qx * inv, qy * inv, qz * inv)
    if v is None:
        # u x (w x b): the plane normal w x b kept, the bend side kept (knees do not flip).
        nx, ny, nz = wy * bz - wz * by, wz * bx - wx * bz, wx * by - wy * bx
        sx, sy, sz = uy * nz - uz * ny, uz * nx - ux * nz, ux * ny - uy * nx
        sn = hypot(sx, sy, sz)
        if sn > ON_LINE * a * b:
            inv = 1.0 / sn
            v = (sx * inv, sy * inv, sz * inv)
        else:
            v = _fallback_bend(ux, uy, uz, wx, wy, wz, a)
    vx, vy, vz = v

    # Triangle in the (u, v) plane.
    if d >= hi:
        dc, mu, mv = hi, a, 0.0
    elif d <= lo:
        dc, mv = lo, 0.0
        mu = a if a >= b else -a
    else:
        dc = d
        h = 0.5 / dc
        mu = ((a - b) * hi + dc * dc) * h
        # Heron's form of the triangle's height: each factor is a difference of the given
        # lengths, so no bone's round-off lands in another bone's length.
        mv = sqrt((hi - dc) * (dc - lo) * (hi + dc) * (dc + lo)) * h
    if dc == 0.0:
        # a == b and the target on the root: the end folds onto the root, the mid stands
        # off it along the bend direction (the limit of the general case as d -> 0).
        mu, mv = 0.0, a

    new_mid = (rx + mu * ux + mv * vx, ry + mu * uy + mv * vy, rz + mu * uz + mv * vz)
    new_end = (rx + dc * ux, ry + dc * uy, rz + dc * uz)
    if as_floats:
        return _tuple_new(TwoBoneResult, (new_mid, new_end, reached))
    new_mid, new_end = _array(new_mid), _array(new_end)
    # tuple.__new__ skips NamedTuple's Python-level __new__ (a third of a microsecond here).
    return _tuple_new(TwoBoneResult, (new_mid, new_end, reached))


def _fallback_reach(ex, ey, ez, wx, wy, wz):
    """A reach direction when the target sits on the root: toward the current end, else
    along the upper bone, else +X (every joint on one point: any direction will do)."""
    n = hypot(ex, ey, ez)
    if n > 0.0:
        return ex / n, ey / n, ez / n
    n = hypot(wx, wy, wz)
    if n > 0.0:
        return wx / n, wy / n, wz / n
    return 1.0, 0.0, 0.0


def _fallback_bend(ux, uy, uz, wx, wy, wz, a):
    """A bend direction when there is no bend plane (straight or zero-length limb).

    The upper bone's part off the reach line if it has one (the limb bends in the plane of
    its old pose and the target), else a fixed perpendicular to u: u x the world axis u is
    least aligned with, so the choice is deterministic and never degenerate.
    """
    wu = wx * ux + wy * uy + wz * uz
    qx, qy, qz = wx - wu * ux, wy - wu * uy, wz - wu * uz
    qn = hypot(qx, qy, qz)
    if qn > ON_LINE * a:
        return qx / qn, qy / qn, qz / qn
    ax, ay, az = abs(ux), abs(uy), abs(uz)
    if ax <= ay and ax <= az:
        qx, qy, qz = 0.0, uz, -uy  # u x X
    elif ay <= az:
        qx, qy, qz = -uz, 0.0, ux  # u x Y
    else:
        qx, qy, qz = uy, -ux, 0.0  # u x Z
    qn = hypot(qx, qy, qz)
    return qx / qn, qy / qn, qz / qn


def _three(v):
    # Sequences are read through float(): numpy float32 scalars would otherwise carry the
    # whole solve in single precision.
    x, y, z = v
    return float(x), float(y), float(z)


def _explain_bad_input(root, mid, end, target, pole, eps) -> None:
    """Raise a ValueError naming the argument at fault (the slow path of validation)."""
    for name, v in (("root", root), ("mid", mid), ("end", end), ("target", target), ("pole", pole)):
        if v is None and name == "pole":
            continue
        try:
            arr = np.asarray(v)
            if arr.dtype.kind not in "biuf":
                raise TypeError
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be 3 real numbers, got {v!r}") from None
        if arr.shape != (3,):
            raise ValueError(f"{name} must be a point of shape (3,), got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} has non-finite coordinates: {v!r}")
    if not (isinstance(eps, (int, float, np.integer, np.floating)) and not isinstance(eps, bool) and isfinite(eps) and eps > 0.0):
        raise ValueError(f"eps must be a positive number, got {eps!r}")
    # Every number finite, yet their sum overflowed: squared lengths would too.
    raise ValueError(f"coordinates too large to solve (past {TOO_FAR:g} m squares overflow)")
