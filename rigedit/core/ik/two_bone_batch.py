"""Two-bone IK for many limbs at once (crowds, creature legs, whole clips).

Row by row the same solve as `two_bone.two_bone_ik`: the same formulas, the same decisions,
the same thresholds, the same lengths (summed in the same order) so ties fall the same way.
The common case (a target off the root, a pole off the reach line or a bent limb) runs as a
fixed chain of whole-array passes; the rare degenerate rows (straight or zero-length limbs,
a target on the root, a pole on the reach line) are collected and solved by the full
decision cascade (`two_bone_cascade`) on just that subset, so they cost nothing when there
are none.

Speed (the target is ~50 ns a chain at 100,000 chains). Here a ufunc pass costs ~0.4-0.6 ns
a float (a sqrt ~1.5 ns), a ufunc call ~0.5 us and making a view ~0.3 us, so the cost is a
count of passes over (chunk,) rows plus a count of calls; about 100 passes a chain remain:
- Rows are solved in chunks through a per-thread workspace reused from call to call: fresh
  memory costs a page fault per 4 kB, and chunks keep the workspace in cache.
- Inside a chunk vectors are component-major, (3, chunk): every pass is a plain 1-D loop.
  (N, 3) arrays would need strided column passes, and broadcasting an (N,) factor over
  (N, 3) runs a 3-long inner loop N times, ten times slower.
- Every view the chunk solve uses is made once per workspace (`_Plan`), not per chunk, and
  quantities used together sit in adjacent rows so one call serves several of them (hi - dc
  and dc - lo are one subtraction of [hi, dc] and [dc, lo]; mid and end one product).
- Directions are never normalised: the mid is R + (mu/d) t + k s with t = target - root
  and s the unnormalised bend direction, the scale factors folded into (chunk,) rows.
"""
from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from .two_bone import AT_ROOT, ON_LINE
from .two_bone_cascade import solve_rows


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
    # One allocation for both outputs (numpy asks for huge pages on blocks of 4 MB and up);
    # block[:, :, rows] is (2, 3, rows), so one pass writes a row range of both.
    block = np.empty((2, 3, n))
    reached = np.empty(n, dtype=bool)
    ws = _workspace()
    with np.errstate(all="ignore"):
        for i in range(0, n, CHUNK):
            j = min(i + CHUNK, n)
            _solve_chunk(
                ws.plan(j - i), R[i:j], M[i:j], E[i:j], T[i:j], None if P is None else P[i:j],
                block[:, :, i:j], reached[i:j],
            )
        # Non-finite input spreads to the output; checking one sum here is cheaper than
        # checking four or five inputs up front, and it also catches overflow.
        ok = np.isfinite(np.add.reduce(block, axis=None))
    if not ok:
        _explain_bad_rows(R, M, E, T, P)
    return TwoBoneBatchResult(block[0].T, block[1].T, reached)


# Rows per chunk: smaller chunks pay numpy's per-call cost (~50 calls a chunk) more often,
# larger ones fall out of cache between passes; 8192 measured best here.
CHUNK = 8192
_local = threading.local()


class _Workspace:
    def __init__(self) -> None:
        # Component-major: each vector is (3, CHUNK), one contiguous row per coordinate.
        self.vec = np.empty((8, 3, CHUNK))
        self.num = np.empty((19, CHUNK))
        self.flags = np.empty((2, CHUNK), dtype=bool)
        self.full = _Plan(self, CHUNK)
        self.tail = self.full

    def plan(self, c: int) -> _Plan:
        if c == CHUNK:
            return self.full
        if self.tail.c != c:  # the last chunk of a call; calls often repeat their size
            self.tail = _Plan(self, c)
        return self.tail


def _workspace() -> _Workspace:
    ws = getattr(_local, "ws", None)
    if ws is None:
        ws = _local.ws = _Workspace()
    return ws


class _Plan:
    """The views of a workspace that the chunk solve uses, for chunks of c rows."""

    def __init__(self, ws: _Workspace, c: int) -> None:
        self.c = c
        v = ws.vec[:, :, :c]
        f = ws.num[:, :c]
        # Vectors: the root r, the bend plane's normal n, the bend direction s, a temporary,
        # the upper bone w, the lower bone b, root -> target t, root -> pole p.
        self.r, n, s, self.tmp3 = v[0], v[1], v[2], v[3]
        w, b, t, self.p = v[4], v[5], v[6], v[7]
        self.w, self.bv, self.t, self.s = w, b, t, s
        self.wbt = v[4:7]  # for one call making |w|^2, |b|^2, |t|^2
        self.tp = v[6:8]  # for one call making p.t and p.p
        # Scalars, one row each.
        self.sq = f[0:3]  # |w|^2, |b|^2, |t|^2
        self.a2, self.b2, self.d2 = f[0], f[1], f[2]
        self.len = f[3:6]
        self.a, self.b, self.d = f[3], f[4], f[5]
        # Rows 6-9: k, hi, dc, lo. [hi, dc] and [dc, lo] make Heron's factors in two calls;
        # later the hi row holds mu, [k, mu] are divided by dc together and [mu, dc] by d.
        self.k = f[6]
        self.hi, self.dc, self.lo = f[7], f[8], f[9]
        self.hi_dc, self.dc_lo = f[7:9], f[8:10]
        self.k_mu = f[6:8]
        self.mu_dc = f[7:9]
        self.diffs, self.sums = f[10:12], f[12:14]
        self.heron, self.factor1 = f[10], f[11]
        self.amb = f[14]
        self.sn2 = f[15]
        self.tmp = f[16]
        self.pt_pp = f[17:19]
        self.pt, self.pp = f[17], f[18]
        # [alpha, delta] as (2, 1, c): times t (3, c) gives both outputs' t terms at once.
        self.alpha_delta = f[7:9][:, None, :]
        self.ok, self.ok2 = ws.flags[0, :c], ws.flags[1, :c]
        # Cross products component by component: out[k] = x[i] y[j] - x[j] y[i].
        order = ((0, 1, 2), (1, 2, 0), (2, 0, 1))
        self.cross_n = [(w[i], b[j], n[k], w[j], b[i]) for k, i, j in order]
        self.cross_s = [(t[i], n[j], s[k], t[j], n[i]) for k, i, j in order]


def _solve_chunk(pl: _Plan, R, M, E, T, P, out, reached) -> None:
    """Solve one chunk into out (2, 3, c) = [mid, end] and reached (c,)."""
    multiply, add, subtract, divide = np.multiply, np.add, np.subtract, np.divide
    # The bones and the reach straight from the (c, 3) inputs' strided columns: one pass
    # each, where copying the inputs to component rows first would add four.
    Rt, Mt = R.T, M.T
    np.copyto(pl.r, Rt)
    subtract(Mt, pl.r, out=pl.w)  # upper bone
    subtract(E.T, Mt, out=pl.bv)  # lower bone
    subtract(T.T, pl.r, out=pl.t)  # root -> target
    # Squared lengths summed as (x^2 + y^2) + z^2, like two_bone: lengths agree to the bit.
    np.einsum("mkc,mkc->mc", pl.wbt, pl.wbt, out=pl.sq)
    np.sqrt(pl.sq, out=pl.len)
    a, b, d = pl.a, pl.b, pl.d
    hi, dc, lo, amb, tmp = pl.hi, pl.dc, pl.lo, pl.amb, pl.tmp

    # The triangle: dc (root -> end) clamped to the limb's span, Heron's product
    # (hi - dc)(dc - lo)(hi + dc)(dc + lo) = (2 dc mv)^2 as in two_bone. No floors on the
    # divisors: d == 0 or dc == 0 only on rows the cascade redoes, and errstate hides 0/0.
    add(a, b, out=hi)
    subtract(a, b, out=amb)
    np.absolute(amb, out=lo)
    np.maximum(d, lo, out=dc)
    np.minimum(dc, hi, out=dc)
    np.equal(dc, d, out=reached)  # the clamp leaves d alone exactly when it is in range
    subtract(pl.hi_dc, pl.dc_lo, out=pl.diffs)
    add(pl.hi_dc, pl.dc_lo, out=pl.sums)
    multiply(pl.diffs, pl.sums, out=pl.diffs)
    heron = pl.heron
    multiply(heron, pl.factor1, out=heron)
    # Rows with the target (almost) on the root go to the cascade, as in two_bone.
    ok, ok2 = pl.ok, pl.ok2
    multiply(hi, AT_ROOT, out=tmp)
    np.greater(d, tmp, out=ok)

    # Bend direction s, unnormalised: t x (w x b) keeps the bend plane; with a pole,
    # |t|^2 p - (p.t) t is the pole's part off the reach line (times |t|^2). The tests
    # are two_bone's sine tests, squared and scaled so no sqrt or division is needed:
    # |s|^2 > (ON_LINE a b d)^2, or > (ON_LINE |p| |t|^2)^2 with a pole.
    s, sn2 = pl.s, pl.sn2
    if P is None:
        for cross in (pl.cross_n, pl.cross_s):
            for x, y, o, x2, y2 in cross:
                multiply(x, y, out=o)
                multiply(x2, y2, out=tmp)
                subtract(o, tmp, out=o)
        multiply(pl.a2, pl.b2, out=tmp)
    else:
        p = pl.p
        subtract(P.T, pl.r, out=p)
        np.einsum("kc,jkc->jc", p, pl.tp, out=pl.pt_pp)  # p.t, p.p
        multiply(p, pl.d2, out=s)
        multiply(pl.t, pl.pt, out=pl.tmp3)
        subtract(s, pl.tmp3, out=s)
        multiply(pl.pp, pl.d2, out=tmp)
    multiply(tmp, pl.d2, out=tmp)
    multiply(tmp, ON_LINE * ON_LINE, out=tmp)
    np.einsum("kc,kc->c", s, s, out=sn2)
    np.greater(sn2, tmp, out=ok2)
    ok &= ok2

    # The factors: k = mv / |s| = sqrt(heron / |s|^2) / (2 dc) on s, and on t
    # mu / d = (amb hi / dc + dc) / (2 d) for the mid and dc / d for the end.
    multiply(amb, hi, out=hi)  # hi is no longer needed
    divide(heron, sn2, out=pl.k)
    np.sqrt(pl.k, out=pl.k)
    divide(pl.k_mu, dc, out=pl.k_mu)
    add(hi, dc, out=hi)
    multiply(pl.k_mu, 0.5, out=pl.k_mu)
    divide(pl.mu_dc, d, out=pl.mu_dc)  # alpha = mu / d, delta = dc / d

    multiply(pl.t, pl.alpha_delta, out=out)
    add(out, pl.r, out=out)
    multiply(s, pl.k, out=s)
    add(out[0], s, out=out[0])

    if not ok.all():
        solve_rows(np.flatnonzero(~ok), R, M, E, T, P, out[0].T, out[1].T)


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
