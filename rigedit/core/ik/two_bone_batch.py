"""Two-bone IK for many limbs at once (crowds, creature legs, whole clips).

Row by row the same solve as `two_bone.two_bone_ik`: the same formulas, the same decisions,
the same thresholds, the same lengths (summed in the same order) so ties fall the same way.
The common case (a target off the root, a pole off the reach line or a bent limb) runs
vectorised over all rows; the rare degenerate rows (straight or zero-length limbs, a target
on the root, a pole on the reach line) are collected and solved by the full decision
cascade on just that subset, so they cost nothing when there are none.

Speed (the target is ~50 ns a chain at 100,000 chains; one pass of a ufunc costs ~0.3-0.6
ns a chain here, a sqrt ~1.5 ns, and reading the inputs from memory ~8 ns):
- Rows are solved in chunks through a per-thread workspace reused from call to call: fresh
  memory costs a page fault per 4 kB, and small chunks keep the workspace in cache.
- Inside a chunk vectors are component-major, (3, chunk): every pass is a plain 1-D loop.
  (N, 3) arrays would need strided column passes, and broadcasting an (N,) factor over
  (N, 3) runs a 3-long inner loop N times, ten times slower.
- Directions are never normalised: the mid is R + (mu/d) t + k s with t = target - root
  and s the unnormalised bend direction, the scale factors folded into (chunk,) arrays.
- np.where and masked copies are slow here; degenerate rows are fixed by index instead.
"""
from __future__ import annotations

from typing import NamedTuple

import threading

import numpy as np

from .two_bone import AT_ROOT, ON_LINE

# Stands in for a zero divisor in the cascade (a target on the root with equal bones,
# where the factor multiplies an exact zero).
_FLOOR = 1e-300


class TwoBoneBatchResult(NamedTuple):
    mid: np.ndarray  # (N, 3)
    end: np.ndarray  # (N, 3)
    reached: np.ndarray  # (N,) bool


def two_bone_ik_batch(root, mid, end, target, pole=None, *, eps: float = 1e-6) -> TwoBoneBatchResult:
    """Vectorised `two_bone_ik`: each argument (N, 3), pole (N, 3) or None.

    The result's (N, 3) arrays are Fortran-ordered (each coordinate contiguous): that is
    how the solve computes them; a C-ordered copy would add a strided pass over them.
    """
    R = _rows(root, "root", None)
    n = R.shape[0]
    M = _rows(mid, "mid", n)
    E = _rows(end, "end", n)
    T = _rows(target, "target", n)
    P = None if pole is None else _rows(pole, "pole", n)
    if not _positive_number(eps):
        raise ValueError(f"eps must be a positive number, got {eps!r}")
    # One allocation for both outputs (numpy asks for huge pages on blocks of 4 MB and up).
    block = np.empty((2, 3, n))
    new_mid, new_end = block[0].T, block[1].T
    reached = np.empty(n, dtype=bool)
    ws = _workspace()
    with np.errstate(all="ignore"):
        for i in range(0, n, CHUNK):
            j = min(i + CHUNK, n)
            _solve_chunk(
                ws, R[i:j], M[i:j], E[i:j], T[i:j], None if P is None else P[i:j],
                new_mid[i:j], new_end[i:j], reached[i:j],
            )
        # Non-finite input spreads to the output; checking two sums here is cheaper than
        # checking four or five inputs up front, and it also catches overflow.
        ok = np.isfinite(np.add.reduce(new_mid, axis=None) + np.add.reduce(new_end, axis=None))
    if not ok:
        _explain_bad_rows(R, M, E, T, P)
    return TwoBoneBatchResult(new_mid, new_end, reached)


# Rows per chunk: smaller chunks pay numpy's per-call cost (~80 calls a chunk) more often,
# larger ones fall out of cache between passes; 8192 measured best here.
CHUNK = 8192
_local = threading.local()


class _Workspace:
    def __init__(self) -> None:
        # Component-major: (..., 3, CHUNK), one contiguous row per coordinate, so every
        # pass is a plain 1-D loop and stacked rows share one call.
        self.pts = np.empty((4, 3, CHUNK))  # root, mid, end, target (then scratch)
        self.vec = np.empty((3, 3, CHUNK))  # upper bone w, lower bone b, root -> target t
        self.sq = np.empty((3, CHUNK))  # |w|^2, |b|^2, |t|^2
        self.len = np.empty((3, CHUNK))  # a, b, d
        self.s = np.empty((3, CHUNK))
        self.num = [np.empty(CHUNK) for _ in range(9)]
        self.flag = np.empty(CHUNK, dtype=bool)
        self.flag2 = np.empty(CHUNK, dtype=bool)


def _workspace() -> _Workspace:
    ws = getattr(_local, "ws", None)
    if ws is None:
        ws = _local.ws = _Workspace()
    return ws


def _solve_chunk(ws, R, M, E, T, P, new_mid, new_end, reached):
    c = R.shape[0]
    pts = ws.pts[:, :, :c]
    vec = ws.vec[:, :, :c]
    sq = ws.sq[:, :c]
    ln = ws.len[:, :c]
    s = ws.s[:, :c]
    hi, lo, dc, dc2, dd, k, tmp, tmp2, lim = (x[:c] for x in ws.num)
    flag = ws.flag[:c]
    flag2 = ws.flag2[:c]

    # Each input is read once, by a transposing copy: the inputs come from main memory,
    # so a second pass over them (subtracting strided columns) costs more than the copy.
    for i, X in enumerate((R, M, E, T)):
        np.copyto(pts[i], X.T)
    r = pts[0]
    np.subtract(pts[1], r, out=vec[0])  # upper bone
    np.subtract(pts[2], pts[1], out=vec[1])  # lower bone
    np.subtract(pts[3], r, out=vec[2])  # root -> target
    w, bv, t = vec
    np.multiply(vec, vec, out=pts[1:])
    np.add(pts[1:, 0], pts[1:, 1], out=sq)
    sq += pts[1:, 2]
    np.sqrt(sq, out=ln)
    a, b, d = ln
    d2 = sq[2]

    # The triangle: dc (root -> end clamped to the limb's span), the mid at mu along the
    # reach direction and mv off it (Heron), as in two_bone. No floors on the divisors:
    # d == 0 or dc == 0 only on rows the cascade redoes, and errstate hides the 0/0 there.
    np.add(a, b, out=hi)
    np.subtract(a, b, out=tmp2)  # a - b
    np.abs(tmp2, out=lo)
    np.maximum(d, lo, out=dc)
    np.minimum(dc, hi, out=dc)
    np.equal(dc, d, out=reached)  # the clamp leaves d alone exactly when it is in range
    np.subtract(hi, dc, out=k)
    np.subtract(dc, lo, out=tmp)
    k *= tmp
    np.add(hi, dc, out=tmp)
    k *= tmp
    np.add(dc, lo, out=tmp)
    k *= tmp  # (2 dc mv)^2
    np.multiply(dc, dc, out=dc2)
    # The factors on t (root -> target, not normalised): mu / d for the mid, dc / d for the end.
    tmp2 *= hi
    tmp2 += dc2  # 2 dc mu
    np.multiply(dc, d, out=tmp)
    tmp2 /= tmp
    tmp2 *= 0.5  # mu / d
    np.divide(dc, d, out=dd)  # dc / d

    # Bend direction s, unnormalised: t x (w x b) keeps the bend plane; with a pole,
    # |t|^2 p - (p.t) t is the pole's part off the reach line (times |t|^2). The tests
    # are two_bone's sine tests, squared and scaled so no sqrt or division is needed.
    scratch = pts[1]
    if P is None:
        n = pts[2]
        _cross(w, bv, n, lim)
        _cross(t, n, s, lim)
        np.multiply(sq[0], sq[1], out=lim)  # (ON_LINE a b d)^2
        lim *= d2
        lim *= ON_LINE * ON_LINE
    else:
        p = pts[2]
        np.copyto(p, P.T)
        p -= r
        pt = _dot(p, t, lim, scratch)
        np.multiply(p, d2, out=s)
        np.multiply(t, pt, out=scratch)
        s -= scratch
        _dot(p, p, lim, scratch)
        lim *= d2
        lim *= d2
        lim *= ON_LINE * ON_LINE
    # Rows with the target (almost) on the root go to the cascade, as in two_bone.
    np.multiply(hi, AT_ROOT, out=tmp)
    np.greater(d, tmp, out=flag)
    sn2 = _dot(s, s, hi, scratch)  # hi is no longer needed
    np.greater(sn2, lim, out=flag2)
    flag &= flag2

    # The factor on s: mv / |s| = sqrt((2 dc mv)^2 / (4 dc^2 |s|^2)), one sqrt for two.
    np.multiply(dc2, sn2, out=tmp)
    tmp *= 4.0
    np.divide(k, tmp, out=k)
    np.sqrt(k, out=k)
    mid_t = new_mid.T
    np.multiply(t, tmp2, out=mid_t)
    mid_t += r
    np.multiply(s, k, out=s)
    mid_t += s
    end_t = new_end.T
    np.multiply(t, dd, out=end_t)
    end_t += r

    if not flag.all():
        bad = np.flatnonzero(~flag)
        _solve_degenerate(bad, R, M, E, T, P, new_mid, new_end)


def _solve_degenerate(rows, R, M, E, T, P, new_mid, new_end):
    """The full decision cascade of two_bone_ik, vectorised over the given rows only."""
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

    # Reach direction: toward the target, else the current end, else the upper bone, else
    # +X; assigned from the last resort up, so the first usable one wins.
    u = np.tile([1.0, 0.0, 0.0], (len(rows), 1))
    for vec, length in ((w, a), (w + bv, None), (t, d)):
        if length is None:
            length = _norm(vec)
        use = length > 0.0
        u[use] = vec[use] / length[use, None]

    # Bend direction: pole, else keep the plane, else the upper bone off the line, else a
    # fixed perpendicular; again from the last resort up.
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


def _cross(x, y, out, tmp):
    """out = x x y on (3, c) component rows (out must not alias x or y)."""
    for k, i, j in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        np.multiply(x[i], y[j], out=out[k])
        np.multiply(x[j], y[i], out=tmp)
        out[k] -= tmp


def _dot(x, y, out, scratch):
    """Row-wise dot of (3, c) component arrays, using `scratch` (3, c) as room."""
    np.multiply(x, y, out=scratch)
    np.add(scratch[0], scratch[1], out=out)
    out += scratch[2]
    return out


def _norm(x):
    # Summed in two_bone's order, so lengths (and ties between them) agree to the bit.
    return np.sqrt(x[:, 0] * x[:, 0] + x[:, 1] * x[:, 1] + x[:, 2] * x[:, 2])


def _positive_number(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and np.isfinite(x) and x > 0


def _rows(v, name: str, n):
    try:
        arr = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an (N, 3) array of numbers") from None
    if arr.ndim != 2 or arr.shape[1] != 3 or (n is not None and arr.shape[0] != n):
        want = "(N, 3)" if n is None else f"({n}, 3) like root"
        raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
    return arr


def _explain_bad_rows(R, M, E, T, P) -> None:
    for name, arr in (("root", R), ("mid", M), ("end", E), ("target", T), ("pole", P)):
        if arr is None:
            continue
        bad = np.flatnonzero(~np.all(np.isfinite(arr), axis=1))
        if bad.size:
            raise ValueError(f"{name} has non-finite coordinates in row {bad[0]} ({bad.size} rows in all)")
    raise ValueError("coordinates too large to solve (squared lengths overflow float64)")
