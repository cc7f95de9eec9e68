"""FABRIK for many chains at once (crowds, creature legs, whole clips).

    r = fabrik_batch(points, target, *, tolerance=1e-3, max_iterations=10, pole=None, arc_start=True)
    points (N, n, 3), target (N, 3), pole (N, 3) or None
    r.points (N, n, 3); r.iterations (N,) int; r.error (N,); r.reached (N,) bool

Row by row this is `fabrik` (no limits): the same straight shortcut out of reach, the same
arc start, the same passes and stopping rules, so each row equals the single-chain result
to round-off. The work is vectorised over chains and loops over joints in Python. Chains
that are done (within tolerance, stalled, or dropped a worse pass) leave the working set,
so they stop changing and stop costing: a warm-started clip mostly finishes in one pass.

Coordinates are kept as (n, 3, M) arrays, one column a chain, so every joint update works
on a contiguous (3, M) block.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._floats import TINY, Y_UP
from .arc_start import ARC_GAIN_RELATIVE, STRAIGHT_RELATIVE, arc_pose_batch
from .fabrik import STALL_RELATIVE, read_iterations, read_tolerance


@dataclass(slots=True)
class FabrikBatchResult:
    points: np.ndarray  # (N, n, 3)
    iterations: np.ndarray  # (N,) int
    error: np.ndarray  # (N,)
    reached: np.ndarray  # (N,) bool


def fabrik_batch(points, target, *, tolerance=1e-3, max_iterations=10, pole=None, arc_start=True):
    p = _read(points, 3, "points")
    if p.shape[1] < 2:
        raise ValueError(f"points must be (N, n, 3) with n >= 2, got shape {p.shape}")
    big_n, n = p.shape[0], p.shape[1]
    t = _read(target, 2, "target")
    if t.shape != (big_n, 3):
        raise ValueError(f"target must be ({big_n}, 3) to match points, got shape {t.shape}")
    hint_all = None
    if pole is not None:
        hint_all = _read(pole, 2, "pole")
        if hint_all.shape != (big_n, 3):
            raise ValueError(f"pole must be ({big_n}, 3) to match points, got shape {hint_all.shape}")
    tol = read_tolerance(tolerance)
    cap = read_iterations(max_iterations)

    pts = p.transpose(1, 2, 0).copy()  # (n, 3, N), always our own: it is written to
    tt = np.ascontiguousarray(t.T)
    root = pts[0].copy()
    ls = np.empty((n - 1, big_n))
    for k in range(n - 1):  # joint by joint: (3, N) blocks stay in cache, a whole (n, 3, N) would not
        bone = pts[k + 1] - pts[k]
        ls[k] = _length(bone)
    total = np.sum(ls, axis=0)
    toward = tt - root
    reach = _length(toward)
    dirs = StartDirections(p, ls, toward)
    iterations = np.zeros(big_n, dtype=np.int64)

    far = reach > total
    if far.any():
        u = toward[:, far] / reach[far]
        pts[1:, :, far] = root[None, :, far] + np.cumsum(ls[:, far], axis=0)[:, None, :] * u[None]
    err = _gap(pts[-1], tt)

    todo = np.nonzero(~far & (err > tol))[0] if cap > 0 else np.zeros(0, dtype=np.int64)
    if arc_start and len(todo):
        tip = pts[-1][:, todo] - root[:, todo]
        span = _length(tip)
        straight = (total[todo] > TINY) & (span >= total[todo] * (1.0 - STRAIGHT_RELATIVE))
        rows = todo[straight]
        if len(rows):
            hint = None if hint_all is None else hint_all.T[:, rows] - root[:, rows]
            arc = arc_pose_batch(
                root[:, rows], tt[:, rows], ls[:, rows], total[rows], tip[:, straight] / span[straight], hint, tol
            )
            arc_err = _gap(arc[-1], tt[:, rows])
            better = arc_err < err[rows] - ARC_GAIN_RELATIVE * total[rows]
            pts[:, :, rows[better]] = arc[:, :, better]
            err[rows[better]] = arc_err[better]
        todo = todo[err[todo] > tol]

    if len(todo):
        _iterate(pts, err, iterations, todo, root, tt, ls, dirs, tol, cap, STALL_RELATIVE * total)
    out = np.ascontiguousarray(pts.transpose(2, 0, 1))
    return FabrikBatchResult(out, iterations, err, err <= tol)


def _iterate(pts, err, iterations, todo, root, tt, ls, dirs, tol, cap, min_gain) -> None:
    """fabrik.iterate for every row in `todo`, in place. A row's result is written back as
    soon as its own loop would have ended; the working set drops finished rows once they
    are half of it (gathering costs about as much as a pass over the rows it drops). Two
    buffers take turns as the pass's input and output, so no pass allocates."""
    rows = todo
    everything = len(rows) == pts.shape[2]
    w = pts.copy() if everything else pts[:, :, rows]
    q = np.empty_like(w)
    w_err = err.copy() if everything else err[rows]
    if not everything:
        root, tt, ls, min_gain = root[:, rows], tt[:, rows], ls[:, rows], min_gain[rows]
    live = np.ones(len(rows), dtype=bool)
    for _ in range(cap):
        _passes(w, q, root, tt, ls, dirs, rows)
        new_err = _gap(q[-1], tt)
        worse = new_err > w_err
        if worse.any():
            back = np.nonzero(worse)[0]
            q[:, :, back] = w[:, :, back]
            new_err[back] = w_err[back]
        gain = w_err - new_err
        w, q = q, w
        w_err = new_err
        iterations[rows[live]] += 1
        done = live & (worse | (gain <= min_gain) | (w_err <= tol))
        if done.any():
            fin = np.nonzero(done)[0]
            if everything and live.all():
                # The first rows to finish, and the working set is every chain in order:
                # one plain copy beats a scatter. Rows still live are written again when
                # they finish; rows finished before would be overwritten, hence live.all().
                np.copyto(pts, w)
                np.copyto(err, w_err)
            else:
                pts[:, :, rows[fin]] = w[:, :, fin]
                err[rows[fin]] = w_err[fin]
            live &= ~done
            left = np.count_nonzero(live)
            if left == 0:
                return
            if 2 * left <= len(live):
                keep = np.nonzero(live)[0]
                everything = False
                rows, w, w_err = rows[keep], w[:, :, keep], w_err[keep]
                q = np.empty_like(w)
                root, tt, ls, min_gain = root[:, keep], tt[:, keep], ls[:, keep], min_gain[keep]
                live = np.ones(left, dtype=bool)
    keep = np.nonzero(live)[0]
    pts[:, :, rows[keep]] = w[:, :, keep]
    err[rows[keep]] = w_err[keep]


def _passes(w, q, root, t, ls, dirs, rows) -> None:
    """One backward and one forward pass over (n, 3, M) points w, into q."""
    n = w.shape[0]
    q[-1] = t
    for k in range(n - 2, -1, -1):
        _pull(w[k], q[k + 1], ls[k], dirs, k, rows, -1.0, q[k])
    q[0] = root
    for k in range(1, n):
        _pull(q[k], q[k - 1], ls[k - 1], dirs, k - 1, rows, 1.0, q[k])


def _pull(joint, anchor, l, dirs, bone, rows, sign, out) -> None:
    """out = the joint moved to distance l from the anchor, toward where it was; a joint on
    top of the anchor goes along sign * the bone's start direction. (3, M) arrays."""
    v = joint - anchor
    d = _length(v)
    flat = d <= TINY
    if flat.any():
        v = np.where(flat, sign * dirs.bone(bone, rows), v)
        d = np.where(flat, 1.0, d)
    v *= l / d
    np.add(anchor, v, out=out)


class StartDirections:
    """chain_frames.bone_directions for every chain, worked out on first use: the fallback
    when a pass finds a joint on top of the next one, which few solves ever do."""

    def __init__(self, points, ls, toward):
        self._args = (points, ls, toward)  # the caller's (N, n, 3) points, never written to
        self._dirs = None

    def bone(self, k, rows) -> np.ndarray:
        if self._dirs is None:
            points, ls, toward = self._args
            bones = np.ascontiguousarray(np.diff(points, axis=1).transpose(1, 2, 0))
            self._dirs = start_directions(bones, ls, toward)
        return self._dirs[k][:, rows]


def start_directions(bones, ls, toward) -> np.ndarray:
    """(n - 1, 3, N) unit bone directions; zero-length bones as bone_directions fills them."""
    m, big_n = ls.shape
    ok = ls > TINY
    dirs = bones / np.where(ok, ls, 1.0)[:, None, :]
    prev = np.zeros((3, big_n))
    for k in range(m):  # a zero-length bone takes its parent's direction
        prev = np.where(ok[k], dirs[k], prev)
        dirs[k] = prev
    first = np.zeros((3, big_n))
    for k in range(m - 1, -1, -1):  # leading zero-length bones take the first real one
        first = np.where(ok[k], dirs[k], first)
    tn = np.sqrt(np.sum(toward * toward, axis=0))
    lost = np.where(tn > TINY, toward / np.where(tn > TINY, tn, 1.0), np.array(Y_UP)[:, None])
    first = np.where(ok.any(axis=0), first, lost)
    seen = np.zeros(big_n, dtype=bool)
    for k in range(m):
        seen |= ok[k]
        dirs[k] = np.where(seen, dirs[k], first)
    return dirs


def _length(v) -> np.ndarray:
    """|v| of (3, M) columns, summed x*x + y*y + z*z in that order as fabrik's floats do
    (einsum may sum otherwise): a folding chain amplifies a last-bit difference in a length
    a million times within a couple of passes, and the rows must equal fabrik's."""
    x, y, z = v
    return np.sqrt(x * x + y * y + z * z)


def _gap(a, b) -> np.ndarray:
    d = a - b
    return np.sqrt(np.sum(d * d, axis=0))


def _read(v, ndim: int, what: str) -> np.ndarray:
    try:
        a = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be an array of numbers") from None
    if a.ndim != ndim or a.shape[-1] != 3:
        want = "(N, n, 3)" if ndim == 3 else "(N, 3)"
        raise ValueError(f"{what} must be {want}, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        bad = np.argwhere(~np.isfinite(a))[0].tolist()
        raise ValueError(f"{what} must be finite; entry {bad} is not")
    return a
