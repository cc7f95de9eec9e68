"""A reaching chain of the rig's compiled frame with no limited warm start of its own on
this base (docs/ARCHITECTURE.md, core: one frame evaluation): its first solve, a chain
without limits, a follow-clip chain, a base a clip moved, every frame of a bake.

What a cold start takes, in the frame's one call: the warm start's pose on
the chain's base (bone_turns.chain_pose), the aim the reach clamp and soft IK make of the
goal, the limits prepared there from the chain's plan (chain_frames.planned_limits: bone
directions, hinge axes in the parent bones' frames), the solver's own row (FABRIK's or
CCD's, free or limited) and the write-back: the limited result's carried frames
(fabrik_limited.turned_locals), else each bone turned by the shortest arc
(bone_turns.local_turns). A limited result is left in the chain's slots as its next warm
start (frame_kernel._loop takes it from there).
"""
from __future__ import annotations

import numpy as np

from .. import bone_turns
from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import (
    fabrik_arc, fabrik_kernel, fabrik_limited, fabrik_loop, fabrik_newton, fabrik_passes, fabrik_row, frame_codes,
    frame_math, limits, soft,
)
from .fabrik_passes import _jit
from .frame_codes import (
    C_CAP, C_LIMITED, C_N, C_ROOT_LIMITED, C_ROW, F_CLAMP, F_SOFT, F_TOL, I_GOAL, I_HAS_POLE, I_POLE, J_AXIS,
    J_DIR, J_FRAME, J_IK, J_KIND, J_LENGTH, J_LOCAL_AXIS, J_PARAMS, J_PLAN_KIND, J_PLAN_PARAMS, J_POINT,
    ROW_CCD, STOP_HINGE, STOP_ROOT, S_ROOT_DIR, S_WARM, S_WARM_BASE,
)
from .frame_math import put, put_cols, quat_at, vec_at

fresh_cache(
    __file__, frame_codes, frame_math, fabrik_kernel, fabrik_limited, fabrik_row, fabrik_loop, fabrik_passes,
    fabrik_newton, fabrik_arc, limits, soft, sq, bone_turns,
)

jitable(
    sq.qmul, sq.qrot, sq.sub, sq.norm, sq.dist, limits.hinge_axis_found, bone_turns.add_rotated, bone_turns.in_parent_frame,
    bone_turns.turn_local, soft.effective_target_float, soft.soft_distance_float,
)  # fmt: skip
TINY = sq.TINY
_HINGE = 2  # chain_frames' code for a hinge (_KIND_CODES)
Y_UP = (0.0, 1.0, 0.0)


@_jit
def chain_pose(base_pos, base_rot, warm, offs):
    """bone_turns.chain_pose on arrays: the chain's points (n, 3) and its joints' world
    rotations (m, 4) under the local rotations `warm` on the base."""
    m = warm.shape[0]
    pts, frames = np.empty((m + 1, 3)), np.empty((m, 4))
    q = base_rot
    p = bone_turns.add_rotated(base_pos, q, vec_at(offs, 0, 0))
    put(pts, 0, 0, p)
    for k in range(m):
        q = sq.qmul(q, quat_at(warm, k, 0))
        put(frames, k, 0, q)
        p = bone_turns.add_rotated(p, q, vec_at(offs, k + 1, 0))
        put(pts, k + 1, 0, p)
    return pts, frames


@_jit
def _directions(pts, root_dir, has_root, toward):
    """chain_frames.bone_directions: each bone's unit direction, a zero-length bone its
    parent's (root_dir for bone 0), the first ones with none the first real one, a chain
    with no length at all `toward` (or up)."""
    m = pts.shape[0] - 1
    dirs, known = np.empty((m, 3)), np.zeros(m, np.bool_)
    prev, has_prev = root_dir, has_root
    first, has_first = Y_UP, False
    for k in range(m):
        v = sq.sub(vec_at(pts, k + 1, 0), vec_at(pts, k, 0))
        n = sq.norm(v)
        if n > TINY:
            prev, has_prev = (v[0] / n, v[1] / n, v[2] / n), True
        if has_prev:
            put(dirs, k, 0, prev)
            known[k] = True
            if not has_first:
                first, has_first = prev, True
    if not has_first:
        n = sq.norm(toward)
        if n > TINY:
            first = (toward[0] / n, toward[1] / n, toward[2] / n)
    for k in range(m):
        if not known[k]:
            put(dirs, k, 0, first)
    return dirs


@_jit
def _prepare(rows, pts, frames, base_rot, root_dir, has_root, aim):
    """chain_frames.planned_limits from the plan in the chain's slots: (why, lengths, kind
    codes, params, reference directions, hinge axes); why 0, or STOP_HINGE + the joint
    whose hinge axis lies along its parent bone (where planned_limits raises)."""
    m = frames.shape[0]
    lengths, kinds, params, axes = np.empty(m), np.zeros(m, np.int64), np.zeros((m, 2)), np.zeros((m, 3))
    for k in range(m):
        lengths[k] = sq.dist(vec_at(pts, k + 1, 0), vec_at(pts, k, 0))
    dirs = _directions(pts, root_dir, has_root, sq.sub(aim, vec_at(pts, 0, 0)))
    for k in range(m):
        kind = int(rows[k, J_PLAN_KIND])
        if kind == 0 or lengths[k] <= TINY:
            continue  # a zero-length bone cannot point anywhere wrong
        kinds[k], params[k, 0], params[k, 1] = kind, rows[k, J_PLAN_PARAMS], rows[k, J_PLAN_PARAMS + 1]
        if kind == _HINGE:
            parent = root_dir if k == 0 else vec_at(dirs, k - 1, 0)
            axis = sq.qrot(base_rot if k == 0 else quat_at(frames, k - 1, 0), vec_at(rows, k, J_LOCAL_AXIS))
            found, _ = limits.hinge_axis_found(axis, parent)
            if not found:
                return STOP_HINGE + k, lengths, kinds, params, dirs, axes
            put(axes, k, 0, axis)
    return 0, lengths, kinds, params, dirs, axes


@_jit
def _keep_warm(c, st, rows, base_pos, base_rot, root_dir, prepared, out, world):
    """A limited result left in the chain's slots as its next warm start."""
    lengths, kinds, params = prepared
    st[c, S_WARM] = 1.0
    put(st, c, S_WARM_BASE, base_pos)
    put(st, c, S_WARM_BASE + 3, base_rot)
    put(st, c, S_ROOT_DIR, root_dir)
    put_cols(rows, J_POINT, out[0])
    put_cols(rows, J_FRAME, world)
    put_cols(rows, J_DIR, out[2])
    put_cols(rows, J_AXIS, out[1])
    put_cols(rows, J_PARAMS, params)
    for k in range(lengths.shape[0]):
        rows[k, J_KIND], rows[k, J_LENGTH] = kinds[k], lengths[k]


@_jit
def _turned(base_rot, warm, offs, solved):
    """bone_turns.local_turns (no twists): each bone turned by the shortest arc onto the
    solved points, its children carried along."""
    m = warm.shape[0]
    ik = np.empty((m, 4))
    parent = base_rot
    for k in range(m):
        sx, sy, sz = bone_turns.in_parent_frame(parent, vec_at(solved, k, 0), vec_at(solved, k + 1, 0))
        local = bone_turns.turn_local(quat_at(warm, k, 0), vec_at(offs, k + 1, 0), sx, sy, sz)
        put(ik, k, 0, local)
        parent = sq.qmul(parent, local)
    return ik


@_jit
def cold(c, ints, fl, inp, st, rows, warm, offs, base_pos, base_rot, total, errors):
    """Chain c solved from the local rotations `warm` on its base (see the module
    docstring); `rows`: its joint slots, `offs` its joints' offsets. Returns (why, steps,
    error to the goal, stalled); the rotations go into its slots' J_IK. why 0, or why the
    solver refuses the input (frame_codes.STOP_*; rig_frame.refused raises the error)."""
    n, cap, tol = ints[c, C_N], ints[c, C_CAP], fl[c, F_TOL]
    m = n - 1
    pts, frames = chain_pose(base_pos, base_rot, warm, offs)
    goal, root = vec_at(inp, c, I_GOAL), vec_at(pts, 0, 0)
    aim = goal
    if fl[c, F_CLAMP] < 1.0 or fl[c, F_SOFT] > 0.0:  # neither the reach clamp nor soft IK moves it otherwise
        aim = soft.effective_target_float(root, goal, total, fl[c, F_CLAMP], fl[c, F_SOFT])
    st[c, S_WARM] = 0.0
    put_cols(rows, J_IK, warm)
    tip = vec_at(pts, m, 0)
    if sq.dist(tip, aim) <= tol:  # already there (solve_methods.ReachLoop.solve): kept as it is
        return 0, 0, sq.dist(tip, goal), False
    has_pole = inp[c, I_HAS_POLE] != 0.0
    hint = np.zeros(3)
    if has_pole:
        for k in range(3):
            hint[k] = inp[c, I_POLE + k] - root[k]
    target, errs, ccd = np.array(aim), np.empty(max(cap, 1)), ints[c, C_ROW] == ROW_CCD
    if ints[c, C_LIMITED] == 0:
        out = np.empty((n, 3))
        if ccd:
            _, count = fabrik_limited.ccd_rig_free(pts, target, tol, cap, hint, has_pole, errs, out)
        else:
            _, count = fabrik_kernel.rig_free(pts, target, tol, cap, hint, has_pole, errs, out)
        put_cols(rows, J_IK, _turned(base_rot, warm, offs, out))
        solved = out
        stalled = False
    else:
        why, count, solved, stalled = _limited(c, ints, st, rows, pts, frames, base_pos, base_rot, offs, target, hint, has_pole, errs, tol, cap, ccd, total)  # fmt: skip
        if why:
            return why, 0, 0.0, False
    for k in range(count):
        errors[c, k] = errs[k]
    error = sq.dist(vec_at(solved, m, 0), goal)
    return 0, count, error, stalled and error > tol


@_jit
def _limited(c, ints, st, rows, pts, frames, base_pos, base_rot, offs, target, hint, has_pole, errs, tol, cap, ccd, total):
    """cold's limited branch (a limit plan prepared on the warm start): (why, steps, solved
    points, stalled short of the aim)."""
    n = pts.shape[0]
    m = n - 1
    root_dir, has_root = (0.0, 0.0, 0.0), False
    if ints[c, C_ROOT_LIMITED] != 0:
        v = sq.qrot(base_rot, vec_at(offs, 0, 0))
        d = sq.norm(v)
        if d <= TINY:
            return STOP_ROOT, 0, pts, False  # a root limit with no bone entering the root
        root_dir, has_root = (v[0] / d, v[1] / d, v[2] / d), True
    aim = (target[0], target[1], target[2])
    why, lengths, kinds, params, dirs, axes = _prepare(rows, pts, frames, base_rot, root_dir, has_root, aim)
    if why:
        return why, 0, pts, False
    out = (np.empty((n, 3)), np.zeros((m, 3)), np.empty((m, 3)), np.empty((m, 4)))
    none = np.zeros((0, 4))
    root_arr = np.array(root_dir)
    if ccd:
        _, count, moved = fabrik_limited.ccd_rig_row(
            pts, target, lengths, kinds, params, dirs, axes, root_arr, none, False, tol, cap, hint, has_pole, True, True,
            errs, out[0], out[1], out[2], out[3], none,
        )  # fmt: skip
    else:
        _, count, moved = fabrik_limited.fabrik_limited(
            pts, target, lengths, kinds, params, dirs, axes, root_arr, none, False, tol, cap, hint, has_pole, True, True,
            errs, out[0], out[1], out[2], out[3], none,
        )  # fmt: skip
    world = frames
    if moved:
        ik, world = np.empty((m, 4)), np.empty((m, 4))
        fabrik_limited.turned_locals(base_rot[0], base_rot[1], base_rot[2], base_rot[3], frames, out[3], ik, world)
        put_cols(rows, J_IK, ik)
    _keep_warm(c, st, rows, base_pos, base_rot, root_dir, (lengths, kinds, params), out, world)
    solved = out[0]
    # Held short of an aim within reach before the cap (cold adds: and short of the goal).
    stalled = 0 < count < cap and sq.dist(vec_at(solved, m, 0), aim) > tol and sq.dist(vec_at(solved, 0, 0), aim) <= total
    return 0, count, solved, stalled
