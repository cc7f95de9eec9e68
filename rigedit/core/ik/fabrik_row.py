"""FABRIK on one chain, written once: `solve_row`, which every FABRIK solve in rigedit runs
(fabrik_kernel.py's unlimited entry points, fabrik_limited.py's limited ones).

A row solve: the start pose (conformed to the bone lengths and limits when asked), the
straight shortcut when an unlimited chain cannot reach, the arc start for a straight chain
(fabrik_arc.py), then `iterate`, the one loop (fabrik_loop.py).
"""
from __future__ import annotations

import math

import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_arc, fabrik_loop, fabrik_newton, fabrik_passes, fabrik_starts, limits
from .fabrik_arc import arc_pose, hinge_bend_side
from .fabrik_loop import COLD_STALL, LIMITED_STALL, STALL_RELATIVE, _copy, _copy_rows, _iterate_inlined, iterate
from .fabrik_starts import shake
from .fabrik_passes import HINGE, TINY, _gap, _inline, _jit, _row3, forward, unit_or

# With limits, a pass that leaves more than this fraction of the error it started from is
# stalling (typically a hinge plane that has to turn): only then are the two CCD sweeps
# tried too, each as dear as two passes. With cones only there is no hinge plane to turn,
# and passes keep drawing the tip in, if slowly: the sweeps pay only once one has all but
# stalled.
CCD_WHEN_ABOVE = 0.5
CONES_CCD_WHEN_ABOVE = 0.9
# A chain counts as straight when its tip is this close (relative) to its full reach:
# bends up to about 0.1 degree, which give FABRIK no usable bend plane either.
STRAIGHT_RELATIVE = 1e-6
# The arc replaces the start only when nearer by more than this fraction of the chain's
# length: a tie (one real bone whose target is on the root) keeps the start.
ARC_GAIN_RELATIVE = 1e-12

fresh_cache(__file__, sq, limits, fabrik_passes, fabrik_newton, fabrik_loop, fabrik_starts, fabrik_arc)


# --- the row -----------------------------------------------------------------------------------


@_inline
def start_directions(pts, root_dir, has_root_dir, toward, out):
    """Unit bone directions of `pts` into out (m, 3): a zero-length bone takes its parent's
    (root_dir for bone 0, when given), the first bones with no parent direction take the
    first real one, and a chain with no length at all points `toward` (or up)."""
    m = pts.shape[0] - 1
    have = has_root_dir
    prev = (root_dir[0], root_dir[1], root_dir[2])
    first = -1
    for k in range(m):
        dx, dy, dz = pts[k + 1, 0] - pts[k, 0], pts[k + 1, 1] - pts[k, 1], pts[k + 1, 2] - pts[k, 2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
        if d > TINY:
            prev = (dx / d, dy / d, dz / d)
            have = True
            if first < 0:
                first = k
        if have:
            out[k, 0], out[k, 1], out[k, 2] = prev
    if not has_root_dir:
        if first >= 0:
            u = _row3(out, first)
        else:
            u = unit_or(toward, (0.0, 1.0, 0.0))
        for k in range(first if first >= 0 else m):
            out[k, 0], out[k, 1], out[k, 2] = u


@_inline
def solve_row(
    start, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, limited, conform, tol, cap, hint, has_hint,
    arc_start, errors, out, ps, lps, vs, ts, sweeps,
):  # fmt: skip
    """FABRIK on one chain, from the points `start` (n, 3) toward `target` (3,), bones
    `lengths` (m,), limits as the module says (kinds all NONE and limited False for none;
    ref_dirs the start's bone directions in any case: a joint on top of its anchor falls
    back on them). `conform`: first rebuild the start from its root along its frames'
    directions with these lengths and limits (a start that may not meet them). `hint`: a
    vector from the root toward the pole side, for the arc start. Writes the solved pose
    to `out` (points, axes, dirs, turns; only points when unlimited) and each step's error
    to `errors`. Work space from the caller (workspace()): `ps` (>= 6, n, 3), `vs` (8, m, 3)
    and `ts` (5, m, 4), `lps` the points of the limited-only poses (ps itself, or any
    (>= 6, ., 3) array when unlimited: then vs, ts and lps are never touched, and may be
    empty). `sweeps`: CCD's step instead of FABRIK's passes (fabrik_loop.iterate), called
    `limited` whether or not a joint has a limit (the sweep reads the pose's directions);
    with no limit it takes the straight out-of-reach shortcut as FABRIK does. Returns
    (error, steps, moved: whether the pose is not the start's own)."""
    n = start.shape[0]
    m = n - 1
    # Three poses and the limited passes' reference pose, the backward pass's points (also
    # the arc's), the sweep's rebuilt points and its turns: views by index (a reshape costs
    # numba a helper call, more than an allocation).
    work, cand, spare = (ps[0], vs[0], vs[1], ts[0]), (ps[1], vs[2], vs[3], ts[1]), (lps[2], vs[4], vs[5], ts[2])
    ref = (lps[5], vs[6], vs[7], ts[4])
    aim, swept, sweep = ps[3], lps[4], ts[3]
    root = (start[0, 0], start[0, 1], start[0, 2])
    toward = (target[0] - root[0], target[1] - root[1], target[2] - root[2])
    total = 0.0
    for k in range(m):
        total += lengths[k]
    _start_pose(start, kinds, params, ref_dirs, ref_axes, root_dir, lengths, limited, conform, out)
    moved = conform
    reach = math.sqrt(toward[0] * toward[0] + toward[1] * toward[1] + toward[2] * toward[2])
    if not limited and reach > total:
        return _straight_free(root, toward, reach, lengths, target, out[0]), 0, True
    if sweeps and reach > total and _no_limit(kinds):
        return _straight_ccd(root, toward, reach, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, aim, out), 0, True
    err = _gap(out[0], target)
    if err <= tol or cap <= 0:
        return err, 0, moved
    arc_taken = False
    if arc_start and total > TINY:
        err, arc_taken = _arc_start(
            root, toward, target, lengths, total, kinds, params, ref_dirs, ref_axes, root_dir, limited, tol, hint, has_hint,
            err, aim, cand, out,
        )  # fmt: skip
        moved = moved or arc_taken
    # Through a call, not a flag set True then False in a loop: numba typed `iterate` for the
    # flag's first value (the literal True) and again for bool, compiling the limited loop,
    # the largest function here, twice.
    cones_only = _no_hinge(kinds) if limited else True
    when = CONES_CCD_WHEN_ABOVE if cones_only else CCD_WHEN_ABOVE
    if limited:
        cold = conform
        best_e, count = iterate(
            out, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths, target, True,
            err, tol, cap, STALL_RELATIVE * total, COLD_STALL if cold else LIMITED_STALL, when, cones_only,
            not (conform or arc_taken), errors, sweeps, cold,
        )  # fmt: skip
        # Other starts only for a solve from a start not its own (conform): a warm start
        # from the last result would leap from valley to valley from frame to frame, and
        # the rig, whose chains warm-start, tries a start of its own when one stalls.
        if cold and best_e > tol and count < cap:
            best_e, count = shake(
                out, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths, target,
                best_e, count, tol, cap, STALL_RELATIVE * total, cones_only, when, errors, sweeps,
            )  # fmt: skip
    else:
        best_e, count = _iterate_inlined(
            out, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths, target, False,
            err, tol, cap, STALL_RELATIVE * total, 0.0, when, cones_only, not (conform or arc_taken), errors, False, False,
        )  # fmt: skip
    return best_e, count, moved or best_e < err


@_inline
def _start_pose(start, kinds, params, ref_dirs, ref_axes, root_dir, lengths, limited, conform, out):
    """The solve's start into `out`: `start` conformed (rebuilt from its root along its
    frames' directions with these lengths and limits), or as it is, with its reference
    frames (limited)."""
    if conform:
        forward(start, kinds, params, ref_dirs, ref_axes, root_dir, lengths, True, limited, out[0], out[1], out[2], out[3])
        return
    _copy_rows(start, out[0])
    if limited:
        _copy_rows(ref_axes, out[1])
        _copy_rows(ref_dirs, out[2])
        for k in range(lengths.shape[0]):
            out[3][k, 0], out[3][k, 1], out[3][k, 2], out[3][k, 3] = 0.0, 0.0, 0.0, 1.0


@_inline
def _straight_free(root, toward, reach, lengths, target, pts):
    """An unlimited chain out of reach: straight toward the target (no limit can forbid it),
    no passes. Returns the tip's error."""
    u = (toward[0] / reach, toward[1] / reach, toward[2] / reach)
    x, y, z = root
    for k in range(lengths.shape[0]):
        l = lengths[k]
        x, y, z = x + l * u[0], y + l * u[1], z + l * u[2]
        pts[k + 1, 0], pts[k + 1, 1], pts[k + 1, 2] = x, y, z
    return _gap(pts, target)


@_inline
def _straight_ccd(root, toward, reach, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, aim, out):
    """CCD with no limit, out of reach: straight toward the target as _straight_free, its
    pose (frames too) by a forward pass. Returns the tip's error."""
    x, y, z = root
    aim[0, 0], aim[0, 1], aim[0, 2] = x, y, z
    for k in range(lengths.shape[0]):
        l = lengths[k] / reach
        x, y, z = x + l * toward[0], y + l * toward[1], z + l * toward[2]
        aim[k + 1, 0], aim[k + 1, 1], aim[k + 1, 2] = x, y, z
    forward(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, False, True, out[0], out[1], out[2], out[3])
    return _gap(out[0], target)


@_inline
def _arc_start(
    root, toward, target, lengths, total, kinds, params, ref_dirs, ref_axes, root_dir, limited, tol, hint, has_hint, err,
    aim, cand, out,
):  # fmt: skip
    """A straight start (within STRAIGHT_RELATIVE of full reach) gives FABRIK no bend plane:
    the arc toward the target (fabrik_arc.arc_pose, bulging toward `hint`, or the hinges'
    bend side) replaces it in `out` when nearer. Returns (error, taken)."""
    m = lengths.shape[0]
    dx, dy, dz = out[0][m, 0] - root[0], out[0][m, 1] - root[1], out[0][m, 2] - root[2]
    span = math.sqrt(dx * dx + dy * dy + dz * dz)
    if span < total * (1.0 - STRAIGHT_RELATIVE):
        return err, False
    straight = (dx / span, dy / span, dz / span)
    side, found = (hint[0], hint[1], hint[2]), has_hint
    if not found and limited:
        found, side = hinge_bend_side(kinds, params, ref_axes, toward)
    arc_pose(root, target, lengths, total, straight, side, found, tol, aim)
    if limited:
        forward(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, False, True, cand[0], cand[1], cand[2], cand[3])
    else:
        _copy_rows(aim, cand[0])
    arc_err = _gap(cand[0], target)
    if arc_err < err - ARC_GAIN_RELATIVE * total:
        _copy(cand, out, limited)
        return arc_err, True
    return err, False


@_jit
def _no_limit(kinds):
    """Whether no joint of the chain has a limit."""
    for k in range(kinds.shape[0]):
        if kinds[k] != 0:
            return False
    return True


@_jit
def _no_hinge(kinds):
    """Whether no joint of the chain is a hinge (cones only, or no limit)."""
    for k in range(kinds.shape[0]):
        if kinds[k] == HINGE:
            return False
    return True


# --- entry points -------------------------------------------------------------------------------


@_inline
def _lengths_ok(pts, lengths, given):
    """Bone lengths of pts into `lengths` (unless given), and whether every coordinate is
    finite: each feeds a bone length, so NaN or inf anywhere shows in their sum."""
    m = pts.shape[0] - 1
    total = 0.0
    for k in range(m):
        dx, dy, dz = pts[k + 1, 0] - pts[k, 0], pts[k + 1, 1] - pts[k, 1], pts[k + 1, 2] - pts[k, 2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
        total += d
        if not given:
            lengths[k] = d
    return math.isfinite(total)


@_inline
def workspace(n):
    """solve_row's limited work space for a chain of n points: (ps, vs, ts)."""
    return np.empty((6, n, 3)), np.empty((8, n - 1, 3)), np.empty((5, n - 1, 4))
