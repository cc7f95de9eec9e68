"""FABRIK, written once and compiled: every FABRIK solve in rigedit runs
`fabrik_row.solve_row`. This module holds the unlimited one, `fabrik_free`, and what calls
it: `fabrik()` (straight from Python, or through fabrik_given), the batch (fabrik_rows: the
same solve over rows, in parallel) and the rig's unlimited chains (rig_free, from the
compiled frame's cold start, frame_cold.py); fabrik_limited.py holds the limited solve.
Python callers (fabrik.py, fabrik_batch.py, fabrik_pose.py) check their input, hand plain arrays here and read plain
arrays back.

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
from . import fabrik_arc, fabrik_loop, fabrik_newton, fabrik_passes, fabrik_row, limits
from .fabrik_passes import _jit, forward
from .fabrik_row import _lengths_ok, solve_row, start_directions

# solve statuses (the callers turn them into ValueErrors naming the problem)
OK, BAD_POINTS, BAD_TARGET, BAD_SHAPE = 0, 1, 2, 3

fresh_cache(__file__, sq, limits, fabrik_passes, fabrik_newton, fabrik_loop, fabrik_arc, fabrik_row)


# Stand-ins for the limited solve's work space and limit arrays, which an unlimited solve
# never reads or writes. Constants (read-only to numba, so a write would not compile): numba
# counts no references on a constant array, while every view of an allocated one costs two
# atomic counts. With views of work arrays here (and the row solve behind a call of its
# own), fabrik() made 90 atomic counts a call, 38% of the time of a call that ran no pass;
# it now makes 21.
_NO_VS = np.zeros((8, 0, 3))
_NO_TS = np.zeros((5, 0, 4))
_NO_KINDS = np.zeros(0, np.int64)

# fabrik_free's options, one bit each
HAS_HINT, ARC_START = 2, 4

# The one compiled unlimited solve: fabrik() calls it with the caller's own arrays, and the
# batch, the rig and given lengths (fabrik_given) call it too. Typed once, so a call costs
# numba no type inference, and an array of any other kind (strided, read-only, float32) is
# refused with a TypeError (fabrik's slow path then copies it) instead of compiled for
# again. The pole hint comes as three floats (~0.035 us of dispatch): an array costs ~0.08
# us to unbox, which the common call, with no pole, would pay too. The row solve is
# inlined here and nowhere else: the call into it, with its arrays' reference counts, cost
# ~0.15 us of a 2.5 us solve, and a second inlined copy doubled this module's compile.
_FREE_SIG = (
    "Tuple((int64, float64, int64))(float64[:, ::1], float64[::1], float64, int64, int64, float64, float64, float64,"
    " float64[:, ::1], float64[::1])"
)


@numba.njit(_FREE_SIG, cache=True, nogil=True)
def fabrik_free(pts, target, tol, cap, options, hx, hy, hz, out, errors):
    """fabrik() without limits, checks included: bone lengths from pts; the hint (hx, hy,
    hz), from the root toward the pole side, read when options has HAS_HINT; the arc start
    with ARC_START. `out` (n, 3) and `errors` (>= max(cap, 1)) receive the result. Returns
    (status, error, steps); a status other than OK leaves the caller to say what is wrong."""
    n = pts.shape[0]
    if n < 2 or pts.shape[1] != 3 or out.shape[0] != n or out.shape[1] != 3 or errors.shape[0] < max(cap, 1):
        return BAD_SHAPE, 0.0, 0
    if target.shape[0] != 3:
        return BAD_TARGET, 0.0, 0
    m = n - 1
    # One allocation for the work space: the poses' points (slabs 0-5), the start's bone
    # directions (slab 6) and the bone lengths (slab 7's first column: a strided view, which
    # costs the passes nothing measurable, where an allocation of their own cost ~40 ns).
    ps = np.empty((8, n, 3))
    lengths = ps[7, :m, 0]
    if not _lengths_ok(pts, lengths, False):
        return BAD_POINTS, 0.0, 0
    if not (math.isfinite(target[0]) and math.isfinite(target[1]) and math.isfinite(target[2])):
        return BAD_TARGET, 0.0, 0
    hint = (hx, hy, hz)  # also the stand-in for the root's parent direction, never read
    dirs = ps[6, :m]
    toward = (target[0] - pts[0, 0], target[1] - pts[0, 1], target[2] - pts[0, 2])
    start_directions(pts, hint, False, toward, dirs)
    rows = _NO_VS[0]
    err, count, _ = solve_row(
        pts, target, lengths, _NO_KINDS, rows, dirs, rows, hint, False, False, tol, cap, hint, (options & HAS_HINT) != 0,
        (options & ARC_START) != 0, errors, (out, rows, rows, _NO_TS[0]), ps, _NO_VS, _NO_VS, _NO_TS, False,
    )  # fmt: skip
    return OK, err, count


_GIVEN_SIG = (
    "Tuple((int64, float64, int64))(float64[:, ::1], float64[::1], float64[::1], float64, int64, int64, float64, float64,"
    " float64, float64[:, ::1], float64[::1])"
)


@numba.njit(_GIVEN_SIG, cache=True, nogil=True)
def fabrik_given(pts, target, lengths, tol, cap, options, hx, hy, hz, out, errors):
    """fabrik_free with the bone lengths given (m,): the chain is first rebuilt from its
    root along its bones' directions with them (a bone with no length of its own takes its
    parent's direction, as start_directions says), then solved from there."""
    n = pts.shape[0]
    if n < 2 or pts.shape[1] != 3 or lengths.shape[0] != n - 1:
        return BAD_SHAPE, 0.0, 0
    if target.shape[0] != 3:
        return BAD_TARGET, 0.0, 0
    if not _lengths_ok(pts, lengths, True):  # not finite, or too far apart for float64
        return BAD_POINTS, 0.0, 0
    m = n - 1
    work = np.empty((2, n, 3))
    start, dirs = work[0], work[1, :m]
    hint = (hx, hy, hz)
    start_directions(pts, hint, False, (target[0] - pts[0, 0], target[1] - pts[0, 1], target[2] - pts[0, 2]), dirs)
    rows = _NO_VS[0]
    forward(pts, _NO_KINDS, rows, dirs, rows, hint, lengths, True, False, start, rows, rows, _NO_TS[0])
    return fabrik_free(start, target, tol, cap, options, hx, hy, hz, out, errors)


@_jit
def rig_free(pts, target, tol, cap, hint, has_hint, errors, out):
    """A rig chain's unlimited solve: fabrik_free from its warm start. Returns (error, steps)."""
    options = ARC_START | (HAS_HINT if has_hint else 0)
    _, err, count = fabrik_free(pts, target, tol, cap, options, hint[0], hint[1], hint[2], out, errors)
    return err, count


@numba.njit(cache=True, nogil=True, parallel=True)
def fabrik_rows(pts, target, tol, cap, hints, has_hint, arc_start, out, iterations, error):
    """fabrik_free over rows (N, n, 3), in parallel: each row is the single-chain solve.
    Returns the first row whose points are not finite, or -1."""
    rows = pts.shape[0]
    bad = np.zeros(rows, np.bool_)
    if rows == 0:
        return -1
    options = (HAS_HINT if has_hint else 0) | (ARC_START if arc_start else 0)
    # Rows in chunks, each with its own errors buffer (fabrik_free makes its own work space).
    chunk = 64
    chunks = (rows + chunk - 1) // chunk
    for c in numba.prange(chunks):
        errors = np.empty(max(cap, 1))
        for i in range(c * chunk, min(rows, (c + 1) * chunk)):
            hx, hy, hz = hints[i, 0], hints[i, 1], hints[i, 2]
            status, e, count = fabrik_free(pts[i], target[i], tol, cap, options, hx, hy, hz, out[i], errors)
            bad[i] = status != OK
            iterations[i] = count
            error[i] = e
    for i in range(rows):
        if bad[i]:
            return i
    return -1
