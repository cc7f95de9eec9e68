"""The full decision cascade of `two_bone.two_bone_ik`, vectorised over a few rows.

`two_bone_batch` solves the common case with a short chain of whole-array passes and hands
the rest here: straight or zero-length limbs, a target on the root, a pole on the reach line.
These rows are rare, so clarity wins over speed: each fallback of the single-chain solver is
written out as a masked assignment, from the last resort up, so the first usable one wins.
"""
from __future__ import annotations

import numpy as np

from .two_bone import AT_ROOT, ON_LINE

# Stands in for a zero divisor (a target on the root with equal bones, where the factor
# multiplies an exact zero).
_FLOOR = 1e-300


def solve_rows(rows, R, M, E, T, P, new_mid, new_end) -> None:
    """Solve `rows` of the (N, 3) inputs into new_mid[rows] and new_end[rows]; P may be None."""
    R, M, E, T = R[rows], M[rows], E[rows], T[rows]
    w, bv, t = M - R, E - M, T - R
    a, b, d = _norm(w), _norm(bv), _norm(t)
    hi = a + b
    d[d <= AT_ROOT * hi] = 0.0
    lo = np.abs(a - b)
    dc = np.clip(d, lo, hi)
    h = 0.5 / np.maximum(dc, _FLOOR)
    mu = ((a - b) * hi + dc * dc) * h
    mv = np.sqrt((hi - dc) * (dc - lo) * (hi + dc) * (dc + lo)) * h
    # A target on the root with equal bones: the mid stands off the root along v.
    on_root = dc == 0.0
    mu[on_root] = 0.0
    mv[on_root] = a[on_root]

    # Reach direction: toward the target, else the current end, else the upper bone, else +X.
    u = np.tile([1.0, 0.0, 0.0], (len(rows), 1))
    for vec, length in ((w, a), (w + bv, None), (t, d)):
        if length is None:
            length = _norm(vec)
        use = length > 0.0
        u[use] = vec[use] / length[use, None]

    # Bend direction: pole, else keep the plane, else the upper bone off the line, else a
    # fixed perpendicular.
    v = _fixed_perpendicular(u)
    q = w - np.sum(w * u, axis=1)[:, None] * u
    qn = _norm(q)
    use = qn > ON_LINE * a
    v[use] = q[use] / qn[use, None]
    q = np.cross(u, np.cross(w, bv))
    qn = _norm(q)
    use = qn > ON_LINE * a * b
    v[use] = q[use] / qn[use, None]
    if P is not None:
        p = P[rows] - R
        q = p - np.sum(p * u, axis=1)[:, None] * u
        qn = _norm(q)
        use = qn > ON_LINE * _norm(p)
        v[use] = q[use] / qn[use, None]
        # A non-finite pole fails every test above; poison the row so the caller's
        # finiteness check reports it instead of the pole being silently ignored.
        v[~np.isfinite(qn)] = np.nan

    new_mid[rows] = R + mu[:, None] * u + mv[:, None] * v
    new_end[rows] = R + dc[:, None] * u


def _fixed_perpendicular(u):
    """u x (the world axis u is least aligned with), normalised: as two_bone._fallback_bend."""
    au = np.abs(u)
    axis = np.where(
        (au[:, 0] <= au[:, 1]) & (au[:, 0] <= au[:, 2]),
        0,
        np.where(au[:, 1] <= au[:, 2], 1, 2),
    )
    e = np.zeros_like(u)
    e[np.arange(len(u)), axis] = 1.0
    v = np.cross(u, e)
    return v / _norm(v)[:, None]


def _norm(x):
    # Summed in two_bone's order, so lengths (and ties between them) agree to the bit.
    return np.sqrt(x[:, 0] * x[:, 0] + x[:, 1] * x[:, 1] + x[:, 2] * x[:, 2])
