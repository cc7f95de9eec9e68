"""Two-bone IK for many limbs at once (crowds, creature legs, whole clips).

Row by row the same solve as `two_bone.two_bone_ik`: the same formulas, the same decisions,
the same thresholds, the same lengths (summed in the same order) so ties fall the same way.
The common case (a target off the root, a pole off the reach line or a bent limb) runs as a
fixed chain of whole-array passes; the rare degenerate rows (straight or zero-length limbs,
a target on the root, a pole on the reach line) are collected and solved by the full
decision cascade (`two_bone_cascade`) on just that subset, so they cost nothing when there
are none.

Speed (the target is ~50 ns a chain at 100,000 chains). Here a ufunc pass costs ~0.4-0.6 ns
a float (a sqrt ~1.5 ns), a ufunc call ~0.5-1 us, an einsum or a reduction ~5-13 us and
making a view ~0.3 us, so the cost is a count of passes over (chunk,) rows (about 100 a
chain) plus a count of calls (about 50 a chunk, ~90 us under load, ~10 ns a chain):
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
- The degeneracy tests cost two reductions a chunk, not five passes: a chunk whose
  smallest distances clear bounds made from its largest lengths has no degenerate row.
"""
from __future__ import annotations

import math
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


def _einsum_sums_in_order() -> bool:
    """Whether einsum makes x.x as (x0 x0 + x1 x1) + x2 x2 with every product rounded.

    One call for the three squared lengths is cheaper than three passes, but a numpy built
    to fuse multiply-adds (FMA; aarch64 builds may) rounds differently from two_bone, and
    then lengths, and with them ties at full reach, would not agree to the bit.
    """
    rng = np.random.default_rng(0)
    v = rng.normal(size=(1, 3, 512)) * 10.0 ** rng.uniform(-3, 3, size=(1, 3, 512))
    want = (v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1]) + v[:, 2] * v[:, 2]
    return bool(np.array_equal(np.einsum("mkc,mkc->mc", v, v), want))


EINSUM_SUMS_IN_ORDER = _einsum_sums_in_order()

# Rows per chunk: smaller chunks pay numpy's per-call cost (~50 calls a chunk) more often,
# larger ones fall out of cache between passes; 8192 measured best here.
CHUNK = 8192
_local = threading.local()


class _Workspace:
    def __init__(self) -> None:
        # Component-major: each vector is (3, CHUNK), one contiguous row per coordinate.
        self.vec = np.empty((8, 3, CHUNK))
        self.num = np.empty((18, CHUNK))
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
        self.wbt = v[4:7]  # one call makes |w|^2, |b|^2, |t|^2
        self.squares = v[1:4]  # room for their terms where einsum will not do
        self.pt_vecs = v[7:5:-1]  # [p, t]: one call makes p.p and p.t
        # Scalars, one row each, placed so that rows used together are evenly spaced.
        self.pp, self.a2, self.b2, self.d2, self.pt = f[0], f[1], f[2], f[3], f[4]
        self.sq = f[1:4]
        self.pp_pt = f[0:5:4]
        self.diffs, self.sums = f[5:7], f[7:9]
        self.heron, self.factor1 = f[5], f[6]
        self.amb, self.tmp = f[9], f[10]
        self.len = f[11:14]
        self.a, self.b, self.d = f[11], f[12], f[13]
        self.sn2 = f[14]
        self.hi, self.dc, self.lo = f[15], f[16], f[17]
        self.hi_dc, self.dc_lo = f[15:17], f[16:18]  # Heron's factors in two calls
        # One reduction each for the bound checks: the largest [|p|^2,] |w|^2, |b|^2, |t|^2
        # and the smallest d, |s|^2, hi.
        self.largest_pole, self.largest = f[0:4], f[1:4]
        self.smallest = f[13:16]
        # Once spent, the |s|^2 and hi rows hold k and mu: [k, mu] are divided by dc
        # together, [mu, dc] by d; [alpha, delta] as (2, 1, c) times t (3, c) gives both
        # outputs' t terms in one product.
        self.k = f[14]
        self.k_mu, self.mu_dc = f[14:16], f[15:17]
        self.alpha_delta = f[15:17][:, None, :]
        self.ok, self.ok2 = ws.flags[0, :c], ws.flags[1, :c]
        # Cross products component by component: out[k] = x[i] y[j] - x[j] y[i].
        order = ((0, 1, 2), (1, 2, 0), (2, 0, 1))
        self.cross_n = [(w[i], b[j], n[k], w[j], b[i]) for k, i, j in order]
        self.cross_s = [(t[i], n[j], s[k], t[j], n[i]) for k, i, j in order]


def _solve_chunk(pl: _Plan, R, M, E, T, P, out, reached) -> None:
    """Solve one chunk into out (2, 3, c) = [mid, end] and reached (c,)."""
    # Outputs are passed positionally: the out= keyword costs ~0.4 us a call here.
    multiply, add, subtract, divide = np.multiply, np.add, np.subtract, np.divide
    # The bones and the reach straight from the (c, 3) inputs' strided columns: one pass
    # each, where copying the inputs to component rows first would add four.
    # (In this order each input row is read again while it is still in cache.)
    Mt = M.T
    np.copyto(pl.r, R.T)
    subtract(T.T, pl.r, pl.t)  # root -> target
    subtract(Mt, pl.r, pl.w)  # upper bone
    subtract(E.T, Mt, pl.bv)  # lower bone
    # Squared lengths summed as (x^2 + y^2) + z^2, like two_bone: lengths agree to the bit.
    if EINSUM_SUMS_IN_ORDER:
        np.einsum("mkc,mkc->mc", pl.wbt, pl.wbt, out=pl.sq)
    else:
        q = pl.squares
        multiply(pl.wbt, pl.wbt, q)
        add(q[:, 0], q[:, 1], pl.sq)
        add(pl.sq, q[:, 2], pl.sq)
    np.sqrt(pl.sq, pl.len)
    a, b, d = pl.a, pl.b, pl.d
    hi, dc, lo, amb, tmp = pl.hi, pl.dc, pl.lo, pl.amb, pl.tmp

    # The triangle: dc (root -> end) clamped to the limb's span, Heron's product
    # (hi - dc)(dc - lo)(hi + dc)(dc + lo) = (2 dc mv)^2 as in two_bone. No floors on the
    # divisors: d == 0 or dc == 0 only on rows the cascade redoes, and errstate hides 0/0.
    add(a, b, hi)
    subtract(a, b, amb)
    np.absolute(amb, lo)
    np.maximum(d, lo, out=dc)  # (positional out is deprecated for these two)
    np.minimum(dc, hi, out=dc)
    np.equal(dc, d, reached)  # the clamp leaves d alone exactly when it is in range
    subtract(pl.hi_dc, pl.dc_lo, pl.diffs)
    add(pl.hi_dc, pl.dc_lo, pl.sums)
    multiply(pl.diffs, pl.sums, pl.diffs)
    heron = pl.heron
    multiply(heron, pl.factor1, heron)

    # Bend direction s, unnormalised: t x (w x b) keeps the bend plane; with a pole,
    # |t|^2 p - (p.t) t is the pole's part off the reach line (times |t|^2).
    s, sn2 = pl.s, pl.sn2
    if P is None:
        for cross in (pl.cross_n, pl.cross_s):
            for x, y, o, x2, y2 in cross:
                multiply(x, y, o)
                multiply(x2, y2, tmp)
                subtract(o, tmp, o)
        lim_a, lim_b = pl.a2, pl.b2
        a2, b2, d2 = np.maximum.reduce(pl.largest, axis=1)
        bound = a2 * b2 * d2
    else:
        p = pl.p
        subtract(P.T, pl.r, p)
        np.einsum("kc,jkc->jc", p, pl.pt_vecs, out=pl.pp_pt)
        multiply(p, pl.d2, s)
        multiply(pl.t, pl.pt, pl.tmp3)
        subtract(s, pl.tmp3, s)
        lim_a, lim_b = pl.pp, pl.d2
        pp, a2, b2, d2 = np.maximum.reduce(pl.largest_pole, axis=1)
        bound = pp * d2 * d2
    np.einsum("kc,kc->c", s, s, out=sn2)
    # Rows to hand to the cascade: a target (almost) on the root, the sine tests of two_bone,
    # squared and scaled so no sqrt or division is needed (|s|^2 > (ON_LINE a b d)^2, or
    # > (ON_LINE |p| |t|^2)^2 with a pole), and a limb of zero length (which passes the pole
    # test). If the smallest d and |s|^2 clear bounds made from the largest lengths, no row
    # fails (rounding is monotonic, so no row's own bound is higher; sqrt(max a^2) +
    # sqrt(max b^2) is at least every a + b); only otherwise are the rows tested one by one.
    d_min, sn2_min, hi_min = np.minimum.reduce(pl.smallest, axis=1)
    hi_max = math.sqrt(a2) + math.sqrt(b2)
    clean = d_min > AT_ROOT * hi_max and sn2_min > bound * (ON_LINE * ON_LINE) and hi_min > 0.0
    if not clean:
        ok, ok2 = pl.ok, pl.ok2
        multiply(hi, AT_ROOT, tmp)
        np.greater(d, tmp, ok)
        multiply(lim_a, lim_b, tmp)
        multiply(tmp, pl.d2, tmp)
        multiply(tmp, ON_LINE * ON_LINE, tmp)
        np.greater(sn2, tmp, ok2)
        ok &= ok2
        np.greater(hi, 0.0, ok2)
        ok &= ok2

    # The factors: k = mv / |s| = sqrt(heron / |s|^2) / (2 dc) on s, and on t
    # mu / d = (amb hi / dc + dc) / (2 d) for the mid and dc / d for the end.
    multiply(amb, hi, hi)
    divide(heron, sn2, pl.k)
    np.sqrt(pl.k, pl.k)
    divide(pl.k_mu, dc, pl.k_mu)
    add(hi, dc, hi)
    multiply(pl.k_mu, 0.5, pl.k_mu)
    divide(pl.mu_dc, d, pl.mu_dc)  # alpha = mu / d, delta = dc / d

    multiply(pl.t, pl.alpha_delta, out)
    add(out, pl.r, out)
    multiply(s, pl.k, s)
    mid = out[0]
    add(mid, s, mid)

    if not clean and not ok.all():
        solve_rows(np.flatnonzero(~ok), R, M, E, T, P, mid.T, out[1].T)


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
