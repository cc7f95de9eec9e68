"""FABRIK, written once and compiled: every FABRIK solve in rigedit runs
`fabrik_row.solve_row`. This module holds its unlimited entry points: `fabrik()`'s common
call (fabrik_plain, fabrik_free), the batch (fabrik_rows: the same row function over rows,
in parallel) and the rig's unlimited chains (rig_free); fabrik_limited.py holds the limited
ones. Callers (fabrik.py, fabrik_batch.py, fabrik_pose.py, rig_solve.py) check their input,
hand plain arrays here and read plain arrays back.

The parts, one concept a module: fabrik_passes (one joint's limit, the backward and forward
passes, the CCD sweep), fabrik_loop (the one iteration loop, in the manner of Godot's
`_process_joints`, and its stall rule), fabrik_arc (the arc start for a straight chain),
fabrik_row (the row solve). numba caches the machine code beside each module;
`jitable.fresh_cache` drops a module's cache when a module compiled into it changes.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_arc, fabrik_loop, fabrik_passes, fabrik_row, limits
from .fabrik_passes import _inline, _jit
from .fabrik_row import _lengths_ok, solve_row, start_directions

# solve statuses (the callers turn them into ValueErrors naming the problem)
OK, BAD_POINTS, BAD_TARGET, BAD_SHAPE = 0, 1, 2, 3

fresh_cache(__file__, sq, limits, fabrik_passes, fabrik_loop, fabrik_arc, fabrik_row)


# free_row is compiled once, for fabrik_free and fabrik_rows alike: inlined into both, its
# solve (the largest code here) was typed, lowered and optimised twice, and inside
# fabrik_rows' parallel loop the parfor passes went over all of it (a third of the
# kernels' compile). Typed, so a literal flag from a caller does not compile it again.
_ROW_SIG = (
    "Tuple((int64, float64, int64))(float64[:, ::1], float64[::1], float64[::1], boolean, float64[::1], boolean, boolean,"
    " float64, int64, float64[:, ::1], float64[::1], float64[:, :, ::1])"
)

# Stand-ins for the limited solve's work space and limit arrays, which an unlimited solve
# never reads or writes. Constants (read-only to numba, so a write would not compile): numba
# counts no references on a constant array, while every view of an allocated one costs two
# atomic counts. With views of work arrays here, a call made 90 atomic counts, and they took
# 38% of a call that did no pass; with these constants it makes 44.
_NO_VS = np.zeros((8, 0, 3))
_NO_TS = np.zeros((5, 0, 4))
_NO_KINDS = np.zeros(0, np.int64)


@numba.njit(_ROW_SIG, cache=True, nogil=True)
def free_row(pts, target, lengths, given, hint, has_hint, arc_start, tol, cap, out, errors, ps):
    """fabrik_free's solve once its shapes are checked, in the work space ps (7, n, 3) (a
    batch reuses it from row to row); `lengths` receives the bone lengths unless given.
    Returns (status, error, steps)."""
    m = pts.shape[0] - 1
    if not _lengths_ok(pts, lengths, given):
        return BAD_POINTS, 0.0, 0
    if not (math.isfinite(target[0]) and math.isfinite(target[1]) and math.isfinite(target[2])):
        return BAD_TARGET, 0.0, 0
    dirs = ps[6, :m]
    toward = (target[0] - pts[0, 0], target[1] - pts[0, 1], target[2] - pts[0, 2])
    start_directions(pts, hint, False, toward, dirs)
    rows = _NO_VS[0]
    err, count, _ = solve_row(
        pts, target, lengths, _NO_KINDS, rows, dirs, rows, hint, False, given, tol, cap, hint, has_hint,
        arc_start, errors, (out, rows, rows, _NO_TS[0]), ps, _NO_VS, _NO_VS, _NO_TS,
    )  # fmt: skip
    return OK, err, count


# fabrik_free's options, one bit each
GIVEN_LENGTHS, HAS_HINT, ARC_START = 1, 2, 4


@_inline
def _free_entry(pts, target, lengths, hint, tol, cap, options, out, errors):
    """fabrik_free's body (see there), shared with fabrik_plain."""
    n = pts.shape[0]
    if n < 2 or pts.shape[1] != 3 or out.shape[0] != n or out.shape[1] != 3 or errors.shape[0] < max(cap, 1):
        return BAD_SHAPE, 0.0, 0
    if target.shape[0] != 3 or hint.shape[0] != 3:
        return BAD_TARGET, 0.0, 0
    m = n - 1
    given = (options & GIVEN_LENGTHS) != 0
    if not given:
        lengths = np.empty(m)
    elif lengths.shape[0] != m:
        return BAD_SHAPE, 0.0, 0
    # One allocation for the points work space and the start's directions (an allocation
    # costs about as much as a bone's step of a pass; one buffer cut into the other arrays
    # by reshape and view cost more still).
    ps = np.empty((7, n, 3))
    return free_row(
        pts, target, lengths, given, hint, (options & HAS_HINT) != 0, (options & ARC_START) != 0, tol, cap, out, errors, ps
    )


# fabrik() calls this with the caller's own arrays: typed once, so a call costs numba no
# type inference, and an array of any other kind (strided, read-only, float32) is refused
# with a TypeError (fabrik's slow path then copies it) instead of compiled for again.
_FREE_SIG = "Tuple((int64, float64, int64))(float64[:, ::1], float64[::1], float64[::1], float64[::1], float64, int64, int64, float64[:, ::1], float64[::1])"


@numba.njit(_FREE_SIG, cache=True, nogil=True)
def fabrik_free(pts, target, lengths, hint, tol, cap, options, out, errors):
    """fabrik() without limits, checks included: bone lengths from pts (or `lengths` when
    options has GIVEN_LENGTHS: then the chain is first rebuilt along its directions with
    them); `hint` (from the root toward the pole side) read when HAS_HINT; the arc start
    with ARC_START. `out` (n, 3) and `errors` (>= max(cap, 1)) receive the result. Returns
    (status, error, steps); a status other than OK leaves the caller to say what is wrong."""
    return _free_entry(pts, target, lengths, hint, tol, cap, options, out, errors)


_PLAIN_SIG = "Tuple((int64, float64, int64))(float64[:, ::1], float64[::1], float64, int64, int64, float64[:, ::1], float64[::1])"


@numba.njit(_PLAIN_SIG, cache=True, nogil=True)
def fabrik_plain(pts, target, tol, cap, options, out, errors):
    """fabrik_free with neither given lengths nor a hint (options: ARC_START or 0): fabrik()'s
    common call, with two arrays fewer for numba to unbox (~0.1 us of a 3 us call)."""
    return _free_entry(pts, target, errors[:0], target, tol, cap, options & ARC_START, out, errors)


@_jit
def rig_free(pts, target, tol, cap, hint, has_hint, errors, out):
    """A rig chain's unlimited solve: fabrik_free from its warm start. Returns (error, steps)."""
    _, err, count = fabrik_free(pts, target, errors[:0], hint, tol, cap, ARC_START | (HAS_HINT if has_hint else 0), out, errors)
    return err, count


@numba.njit(cache=True, nogil=True, parallel=True)
def fabrik_rows(pts, target, tol, cap, hints, has_hint, arc_start, out, iterations, error):
    """fabrik_free over rows (N, n, 3), in parallel: each row is the single-chain solve.
    Returns the first row whose points are not finite, or -1."""
    rows = pts.shape[0]
    bad = np.zeros(rows, np.bool_)
    if rows == 0:
        return -1
    n = pts.shape[1]
    # Rows in chunks, each with its own work space: a row's solve is ~1 us, and three
    # allocations a row would cost a tenth of it.
    chunk = 64
    chunks = (rows + chunk - 1) // chunk
    for c in numba.prange(chunks):
        errors = np.empty(max(cap, 1))
        lengths = np.empty(n - 1)
        ps = np.empty((7, n, 3))
        for i in range(c * chunk, min(rows, (c + 1) * chunk)):
            status, e, count = free_row(pts[i], target[i], lengths, False, hints[i], has_hint, arc_start, tol, cap, out[i], errors, ps)
            bad[i] = status != OK
            iterations[i] = count
            error[i] = e
    for i in range(rows):
        if bad[i]:
            return i
    return -1
