"""The compiled entry points of the single-chain public calls that run the limited row:
`fabrik()` with limits and `ccd()` with or without them (`solve_chain`, every form;
`ccd_free`, ccd()'s common call in few arguments). One call does the per-call work (checks
included), so their Python side only reads its arguments into arrays:

- bone lengths from the points (or the given ones) and whether every coordinate is
  finite (fabrik_row._lengths_ok), whether the target is;
- the limits' per-solve part, as chain_frames.planned_limits does it for the rig: the
  start's bone directions (fabrik_row.start_directions), the root direction made unit,
  the root frame and the bones' frames (given, checked and normalised, or by parallel
  transport from the root frame), each hinge's axis carried into world space;
- the row solve and each bone's frame at the result (fabrik_limited._row_with_frames, as
  the rig's limited entry points: FABRIK's passes or CCD's sweeps).

The limits come as a plan: one row per bone, (kind code, two parameters, unit hinge axis in
the parent bone's frame), as chain_frames.LimitPlan.rows packs them; no rows for none (ccd()
with no limit: every joint free). What the kernel refuses it returns as a status and the
index it concerns; limit_args.refuse names the problem.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import fabrik_arc, fabrik_limited, fabrik_loop, fabrik_newton, fabrik_passes, fabrik_row, limits, single_codes, soft
from .fabrik_limited import _row_with_frames
from .fabrik_passes import HINGE, NONE, TINY, _row3, _row3q, hinge_axis_found, qbetween, qmul, qrot
from .fabrik_row import _lengths_ok, start_directions
from .single_codes import (
    BAD_FRAMES, BAD_POINTS, BAD_ROOT_DIR, BAD_ROOT_FRAME, BAD_SHAPE, BAD_TARGET, OK, PARALLEL_HINGE, ZERO_FRAME,
    ZERO_ROOT_DIR, ZERO_ROOT_FRAME,
)

fresh_cache(
    __file__, sq, limits, soft, fabrik_passes, fabrik_newton, fabrik_loop, fabrik_arc, fabrik_row, fabrik_limited, single_codes
)
jitable(sq.qnormalize)


_SIG = (
    "Tuple((int64, int64, float64, int64))(float64[:, ::1], float64[::1], float64[::1], boolean, float64[:, ::1],"
    " float64[::1], boolean, float64[::1], float64[:, ::1], boolean, float64, int64, float64[::1], boolean, boolean,"
    " boolean, float64[::1], float64[:, ::1], float64[:, ::1])"
)


@fabrik_passes._inline
def _root_dir(root_dir, has_root):
    """(status, the root's parent direction made unit as a (3,) array): zeros when not given."""
    root = np.zeros(3)
    if not has_root:
        return OK, root
    x, y, z = root_dir[0], root_dir[1], root_dir[2]
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        return BAD_ROOT_DIR, root
    d = math.sqrt(x * x + y * y + z * z)
    if d <= TINY:
        return ZERO_ROOT_DIR, root
    root[0], root[1], root[2] = x / d, y / d, z / d
    return OK, root


@fabrik_passes._inline
def _frames(plan, dirs, root, has_root, root_frame, frames, has_frames, lengths, kinds, params, axes, ref_frames):
    """The limits' per-solve part (chain_frames.planned_limits) into kinds, params, axes and
    ref_frames (the bones' frames at the start). Returns (status, index)."""
    m = lengths.shape[0]
    base = (root_frame[0], root_frame[1], root_frame[2], root_frame[3])
    if not (math.isfinite(base[0]) and math.isfinite(base[1]) and math.isfinite(base[2]) and math.isfinite(base[3])):
        return BAD_ROOT_FRAME, 0
    if base[0] * base[0] + base[1] * base[1] + base[2] * base[2] + base[3] * base[3] <= TINY:
        return ZERO_ROOT_FRAME, 0
    base = sq.qnormalize(base)
    if has_frames:
        for k in range(m):  # every one finite before any is found zero, as the message says
            for c in range(4):
                if not math.isfinite(frames[k, c]):
                    return BAD_FRAMES, k
        for k in range(m):
            q = _row3q(frames, k)
            n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
            if n2 <= TINY:
                return ZERO_FRAME, k
            nq = math.sqrt(n2)
            ref_frames[k, 0], ref_frames[k, 1], ref_frames[k, 2], ref_frames[k, 3] = q[0] / nq, q[1] / nq, q[2] / nq, q[3] / nq
    else:  # parallel transport from the root frame
        frame = base
        for k in range(m):
            u = _row3(dirs, k)
            if k > 0 or has_root:
                prev = _row3(dirs, k - 1) if k > 0 else (root[0], root[1], root[2])
                frame = sq.qnormalize(qmul(qbetween(prev, u), frame))
            ref_frames[k, 0], ref_frames[k, 1], ref_frames[k, 2], ref_frames[k, 3] = frame
    for k in range(m):
        kind = int(plan[k, 0])
        if kind == NONE or lengths[k] <= TINY:  # a zero-length bone cannot point anywhere wrong
            continue
        kinds[k], params[k, 0], params[k, 1] = kind, plan[k, 1], plan[k, 2]
        if kind == HINGE:
            parent = (root[0], root[1], root[2]) if k == 0 else _row3(dirs, k - 1)
            axis = qrot(base if k == 0 else _row3q(ref_frames, k - 1), (plan[k, 3], plan[k, 4], plan[k, 5]))
            found, _ = hinge_axis_found(axis, parent)
            if not found:
                return PARALLEL_HINGE, k
            axes[k, 0], axes[k, 1], axes[k, 2] = axis
    return OK, 0


# The body, inlined into both entry points (solve_chain, ccd_free): ccd_free calling
# solve_chain passed it 19 arguments, each array's reference counted up and down: ~0.5 us
# of a 2 us call.
@fabrik_passes._inline
def _solve(
    pts, target, lengths, given, plan, root_dir, has_root, root_frame, frames, has_frames, tol, cap, pole, has_pole,
    arc_start, sweeps, errors, out, out_frames,
):  # fmt: skip
    n = pts.shape[0]
    m = n - 1
    limited = plan.shape[0] > 0
    if (
        n < 2 or pts.shape[1] != 3 or target.shape[0] != 3 or out.shape[0] != n or out.shape[1] != 3
        or errors.shape[0] < max(cap, 1) or (given and lengths.shape[0] != m) or plan.shape[1] != 6
        or (limited and (plan.shape[0] != m or out_frames.shape[0] != m or out_frames.shape[1] != 4))
        or (has_frames and (frames.shape[0] != m or frames.shape[1] != 4)) or root_dir.shape[0] != 3
        or root_frame.shape[0] != 4 or pole.shape[0] != 3
    ):  # fmt: skip
        return BAD_SHAPE, 0, 0.0, 0
    ls = lengths if given else np.empty(m)
    if not _lengths_ok(pts, ls, given):
        return BAD_POINTS, 0, 0.0, 0
    if not (math.isfinite(target[0]) and math.isfinite(target[1]) and math.isfinite(target[2])):
        return BAD_TARGET, 0, 0.0, 0
    status, root = _root_dir(root_dir, has_root)
    if status != OK:
        return status, 0, 0.0, 0
    toward = (target[0] - pts[0, 0], target[1] - pts[0, 1], target[2] - pts[0, 2])
    dirs = np.empty((m, 3))
    start_directions(pts, root, has_root, toward, dirs)
    kinds, params, axes, ref_frames = np.zeros(m, np.int64), np.zeros((m, 2)), np.zeros((m, 3)), np.empty((m, 4))
    if limited:
        status, index = _frames(plan, dirs, root, has_root, root_frame, frames, has_frames, ls, kinds, params, axes, ref_frames)
        if status != OK:
            return status, index, 0.0, 0
    hint = np.zeros(3)  # from the root toward the pole side
    if has_pole:
        hint[0], hint[1], hint[2] = pole[0] - pts[0, 0], pole[1] - pts[0, 1], pole[2] - pts[0, 2]
    err, count, _ = _row_with_frames(
        pts, target, ls, kinds, params, dirs, axes, root, ref_frames, limited, tol, cap, hint, has_pole, arc_start, True,
        errors, out, np.zeros((m, 3)), np.empty((m, 3)), np.empty((m, 4)), out_frames, sweeps,
    )  # fmt: skip
    return OK, 0, err, count


# Typed, as fabrik_kernel.fabrik_free: a call costs numba no type inference, and an array of
# another kind is a TypeError rather than a second compile (the callers pass their own).
@numba.njit(_SIG, cache=True, nogil=True)
def solve_chain(
    pts, target, lengths, given, plan, root_dir, has_root, root_frame, frames, has_frames, tol, cap, pole, has_pole,
    arc_start, sweeps, errors, out, out_frames,
):  # fmt: skip
    """One chain from the points `pts` (n, 3) toward `target` (3,): bone `lengths` (m,) when
    `given` (else from pts), limits `plan` (m, 6) or (0, 6) for none, the root's parent
    direction and frame (read when has_root; root_frame (4,) any length but zero),
    `frames` (m, 4) the bones' frames at pts when has_frames (else parallel transport),
    the arc start bulging toward `pole` when has_pole, `sweeps` for CCD's step. Writes
    the points to `out`, the errors to `errors` (>= max(cap, 1)) and, with limits, each
    bone's frame at the result to out_frames (m, 4). Returns (status, index, error, steps)."""
    return _solve(
        pts, target, lengths, given, plan, root_dir, has_root, root_frame, frames, has_frames, tol, cap, pole, has_pole,
        arc_start, sweeps, errors, out, out_frames,
    )  # fmt: skip


# ccd_free's stand-ins, only ever read: constants (numba counts no references on them).
_NO_PLAN, _NO_VEC, _IDENTITY, _NO_FRAMES = np.zeros((0, 6)), np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0]), np.zeros((0, 4))
_FREE_SIG = "Tuple((int64, int64, float64, int64))(float64[:, ::1], float64[::1], float64, int64, float64[::1], float64[:, ::1])"


@numba.njit(_FREE_SIG, cache=True, nogil=True)
def ccd_free(pts, target, tol, cap, errors, out):
    """ccd()'s common call, lengths from the points and no limit: solve_chain with its
    stand-ins here, where they cost less than the arguments that would carry them in
    (numba unboxes each argument of a call from Python: 19 of them cost ~1 us)."""
    return _solve(
        pts, target, np.empty(0), False, _NO_PLAN, _NO_VEC, False, _IDENTITY, _NO_FRAMES, False, tol, cap, _NO_VEC, False,
        False, True, errors, out, np.empty((0, 4)),
    )  # fmt: skip
