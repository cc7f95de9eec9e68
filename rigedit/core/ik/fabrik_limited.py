"""FABRIK with joint limits: the compiled entry points of a limited solve (the rig's limited
chains; `fabrik()` and `ccd()` go through single_kernel.solve_chain, which calls limited_row)
and the write-back of its frames into local rotations.
Kept apart from fabrik_kernel.py's unlimited entry points so that the two compile in
processes of their own at set-up (scripts/compile_kernels.py): each module's typed entry
points compile when it is imported.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import fabrik_arc, fabrik_loop, fabrik_newton, fabrik_passes, fabrik_row, limits, soft
from .fabrik_passes import _jit, _row3q, qconj, qmul
from .fabrik_row import _lengths_ok, solve_row, start_directions, workspace

fresh_cache(__file__, sq, limits, soft, fabrik_passes, fabrik_newton, fabrik_loop, fabrik_arc, fabrik_row)
jitable(soft.soft_distance_float, soft.effective_target_float)


# The limited solve, compiled once for fabrik_limited and the rig's rows (inlined into each,
# it was typed, lowered and optimised twice: a fifth of the kernels' compile). Typed, so the
# literal flags the rig's rows pass do not compile it again.
_LIMITED_SIG = (
    "Tuple((float64, int64, boolean))(float64[:, ::1], float64[::1], float64[::1], int64[::1], float64[:, ::1],"
    " float64[:, ::1], float64[:, ::1], float64[::1], boolean, float64, int64, float64[::1], boolean, boolean,"
    " float64[::1], UniTuple(float64[:, ::1], 4), float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1], boolean)"
)


@numba.njit(_LIMITED_SIG, cache=True, nogil=True)
def limited_row(
    start, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, conform, tol, cap, hint, has_hint, arc_start,
    errors, out, ps, vs, ts, sweeps,
):  # fmt: skip
    """solve_row with limits (see there); `sweeps`: CCD's step, not FABRIK's."""
    return solve_row(
        start, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, True, conform, tol, cap, hint, has_hint,
        arc_start, errors, out, ps, ps, vs, ts, sweeps,
    )  # fmt: skip


@_jit
def fabrik_limited(
    pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, frames, has_frames, tol, cap, hint, has_hint,
    arc_start, conform, errors, out_pts, out_axes, out_dirs, out_turns, out_frames,
):  # fmt: skip
    """A limited chain with its limits prepared (chain_frames.planned_limits: the rig's
    rig_solve.fabrik_chain and frame_cold): solve_row, then each bone's frame at the result
    (its turn times its reference frame, normalised) into out_frames when the reference
    frames are given. Returns (error, steps, moved)."""
    return _row_with_frames(
        pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, frames, has_frames, tol, cap, hint, has_hint,
        arc_start, conform, errors, out_pts, out_axes, out_dirs, out_turns, out_frames, False,
    )  # fmt: skip


@_jit
def ccd_rig_row(
    pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, frames, has_frames, tol, cap, hint, has_hint,
    arc_start, conform, errors, out_pts, out_axes, out_dirs, out_turns, out_frames,
):  # fmt: skip
    """fabrik_limited's signature with CCD's step, for a rig's CCD chain started cold (frame_cold.py):
    the hint and arc start are not CCD's and are left unused."""
    return _row_with_frames(
        pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, frames, has_frames, tol, cap, root_dir, False,
        False, conform, errors, out_pts, out_axes, out_dirs, out_turns, out_frames, True,
    )  # fmt: skip


@_jit
def ccd_rig_free(pts, target, tol, cap, hint, has_hint, errors, out):
    """fabrik_kernel.rig_free's signature with CCD's step, for a rig's CCD chain with no
    limit: the limited row with every joint free (the sweep reads the pose's directions),
    lengths from the warm start. Returns (error, steps)."""
    n = pts.shape[0]
    m = n - 1
    lengths, dirs = np.empty(m), np.empty((m, 3))
    _lengths_ok(pts, lengths, False)
    no_vec = np.zeros(3)
    start_directions(pts, no_vec, False, (target[0] - pts[0, 0], target[1] - pts[0, 1], target[2] - pts[0, 2]), dirs)
    ps, vs, ts = workspace(n)
    pose = (out, np.zeros((m, 3)), np.empty((m, 3)), np.empty((m, 4)))
    err, count, _ = limited_row(
        pts, target, lengths, np.zeros(m, np.int64), np.zeros((m, 2)), dirs, np.zeros((m, 3)), no_vec, False, tol, cap,
        no_vec, False, False, errors, pose, ps, vs, ts, True,
    )  # fmt: skip
    return err, count


@fabrik_passes._inline
def _row_with_frames(
    pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, frames, has_frames, tol, cap, hint, has_hint,
    arc_start, conform, errors, out_pts, out_axes, out_dirs, out_turns, out_frames, sweeps,
):  # fmt: skip
    ps, vs, ts = workspace(pts.shape[0])
    err, count, moved = limited_row(
        pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, conform, tol, cap, hint, has_hint,
        arc_start, errors, (out_pts, out_axes, out_dirs, out_turns), ps, vs, ts, sweeps,
    )  # fmt: skip
    if has_frames:
        for k in range(lengths.shape[0]):
            w = qmul(_row3q(out_turns, k), _row3q(frames, k))
            nw = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3])
            out_frames[k, 0], out_frames[k, 1], out_frames[k, 2], out_frames[k, 3] = w[0] / nw, w[1] / nw, w[2] / nw, w[3] / nw
    return err, count, moved


@fabrik_passes._inline
def _rig_row(
    pts, goal, reach, lengths, kinds, params, ref_dirs, ref_axes, root_dir, frames, base, tol, cap, pole, has_pole, errors,
    out, out_locals, out_world, sweeps,
):  # fmt: skip
    """A rig chain's limited solve, warm-started from its own last result (which meets its
    limits; frame_reach.loop): the solve toward `goal` as the reach clamp and soft IK over
    the chain's length move it (reach: total, clamp, softness), the arc start bulging toward
    the pole when has_pole (FABRIK; `sweeps`: CCD's step, no arc start), then (when the pose
    moved) `turned_locals` from the root parent's world rotation `base` and the bones'
    warm-start world frames. Returns (tip error to the aim, steps, moved, tip error to the
    goal, distance from the root to the aim): what the rig reports and checks for a stall."""
    tx, ty, tz = goal
    total, clamp, softness = reach
    px, py, pz = pole
    out_pts, out_turns = out[0], out[3]
    root = (pts[0, 0], pts[0, 1], pts[0, 2])
    aim = (tx, ty, tz)
    if clamp < 1.0 or softness > 0.0:  # neither the reach clamp nor soft IK moves it otherwise
        aim = soft.effective_target_float(root, aim, total, clamp, softness)
    target = np.array(aim)
    hint = np.array((px - root[0], py - root[1], pz - root[2]))
    ps, vs, ts = workspace(pts.shape[0])
    err, count, moved = limited_row(
        pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, False, tol, cap, hint, has_pole and not sweeps,
        not sweeps, errors, out, ps, vs, ts, sweeps,
    )  # fmt: skip
    if moved:
        turned_locals(base[0], base[1], base[2], base[3], frames, out_turns, out_locals, out_world)
    tip = out_pts.shape[0] - 1
    dx, dy, dz = out_pts[tip, 0] - tx, out_pts[tip, 1] - ty, out_pts[tip, 2] - tz
    rx, ry, rz = aim[0] - root[0], aim[1] - root[1], aim[2] - root[2]
    return err, count, moved, math.sqrt(dx * dx + dy * dy + dz * dz), math.sqrt(rx * rx + ry * ry + rz * rz)


@_jit
def turned_locals(bx, by, bz, bw, frames, turns, out, world):
    """The local rotations of a limited result's joints (all but the tip) and its bones'
    world frames: each bone's reference frame turned by the turn its forward pass carried,
    then seen from its parent's new frame. Written to `out` and
    `world`, from the root parent's world rotation (bx, by, bz, bw)."""
    m = turns.shape[0]
    parent = (bx, by, bz, bw)
    for k in range(m):
        # Both unit to round-off, and w only feeds the normalised local rotations and, as
        # the next warm start's frames, the next turn * frame: left as is.
        w = qmul(_row3q(turns, k), _row3q(frames, k))
        lx, ly, lz, lw = qmul(qconj(parent), w)
        n = math.sqrt(lx * lx + ly * ly + lz * lz + lw * lw)
        out[k, 0], out[k, 1], out[k, 2], out[k, 3] = lx / n, ly / n, lz / n, lw / n
        world[k, 0], world[k, 1], world[k, 2], world[k, 3] = w
        parent = w
