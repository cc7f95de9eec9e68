"""A rig frame in one compiled call (docs/ARCHITECTURE.md, core: one frame evaluation).

Every chain in dependency order over the pose built so far: its base (the world transform
of its root's parent, walked up from the rotations written so far), the "same inputs, final
answer" shortcut, the solver's own compiled row (two_bone_kernel._limb for a closed-form
limb; fabrik_limited._rig_row, FABRIK's or CCD's step, for a reaching chain warm-started
from its own last limited result; look_at_kernel.aim_chain for an aim), the blend by weight
and the write-back. The rows are the
solvers' one implementation, called here rather than from Python; nothing is copied.

The rig packs its chains once per shape and settings (core/frame_pack.py: the tables and the
state arrays whose layout the constants below give); each frame hands in the animated
rotations, the translations and the goals, and gets the solved rotations, the next warm
starts and each chain's report numbers. A chain this call cannot take (a reaching chain
with no limited warm start on this base, a stall to retry from the animated pose, input a
solver refuses) stops it before anything is kept: it returns that chain's index and the
rig solves the frame in Python (rig_eval.py), as it does for the rare cases it never packs.
"""
from __future__ import annotations

import numpy as np

from .. import bone_turns
from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import (
    fabrik_arc, fabrik_limited, fabrik_loop, fabrik_newton, fabrik_passes, fabrik_row, frame_codes, frame_math,
    limits, look_at_kernel, soft, two_bone_codes, two_bone_kernel,
)
from .fabrik_passes import _jit
from .frame_codes import (
    C_CAP, C_FOLLOW, C_N, C_PARENT, C_ROW, C_SLOT, F_AXIS, F_CLAMP, F_EPS, F_FWD, F_HI, F_KIND, F_LO, F_MAX_ANGLE,
    F_MAX_TWIST, F_SOFT, F_TOL, F_UP, I_GOAL, I_HAS_POLE, I_POLE, I_WEIGHT, J_AXIS, J_DIR, J_FRAME, J_IK, J_KIND,
    J_LENGTH, J_OFFSET, J_PARAMS, J_POINT, J_REST, J_SHARE, ROW_AIM, ROW_CCD, ROW_LIMB, STALL_GAIN, STOP_NO_WARM,
    STOP_ONCE, S_BASE, S_ERROR, S_FINAL, S_GOAL, S_HAS_POLE, S_LAST, S_POLE, S_REACHED, S_ROOT_DIR, S_SAME_SETTINGS,
    S_WARM, S_WARM_BASE, T_CHAIN, T_JOINT, T_PARENT,
)
from .frame_math import chain_length, cols_of, put, put_cols, quat_at, slerp, vec_at, world_of

# Every module whose code compiles into this one (the rows it calls, and theirs).
fresh_cache(
    __file__, frame_codes, frame_math, two_bone_codes, two_bone_kernel, fabrik_limited, fabrik_row, fabrik_loop,
    fabrik_passes, fabrik_newton, fabrik_arc, limits, look_at_kernel, soft, sq, bone_turns,
)


@_jit
def _same(st, slots, c, base_pos, base_rot, inp, trans, joints, s, n):
    """Whether chain c's inputs are those of its last solve (SolveInputs compared by value)."""
    if st[c, S_LAST] == 0.0 or st[c, S_SAME_SETTINGS] == 0.0 or st[c, S_HAS_POLE] != inp[c, I_HAS_POLE]:
        return False
    for k in range(3):
        if st[c, S_BASE + k] != base_pos[k] or st[c, S_GOAL + k] != inp[c, I_GOAL + k]:
            return False
        if inp[c, I_HAS_POLE] != 0.0 and st[c, S_POLE + k] != inp[c, I_POLE + k]:
            return False
    for k in range(4):
        if st[c, S_BASE + 3 + k] != base_rot[k]:
            return False
    return _offsets_same(slots, trans, joints, s, n)


@_jit
def _offsets_same(slots, trans, joints, s, n):
    for k in range(n):
        j = joints[s + k]
        for a in range(3):
            if slots[s + k, J_OFFSET + a] != trans[j, a]:
                return False
    return True


@_jit
def _limb(c, ints, fl, inp, joints, rot, trans, slots, base_pos, base_rot, warm_own):
    """Chain c as a closed-form limb: (status, error) with its two rotations put in `slots`."""
    s = ints[c, C_SLOT]
    j0, j1, j2 = joints[s], joints[s + 1], joints[s + 2]
    if warm_own:
        w0, w1 = quat_at(slots, s, J_IK), quat_at(slots, s + 1, J_IK)
    else:
        w0, w1 = quat_at(rot, j0, 0), quat_at(rot, j1, 0)
    has_pole = inp[c, I_HAS_POLE] != 0.0
    pole = vec_at(inp, c, I_POLE) if has_pole else base_pos
    status, l0, l1, error, _ = two_bone_kernel._limb(
        vec_at(inp, c, I_GOAL), pole, has_pole, fl[c, F_EPS], fl[c, F_CLAMP], fl[c, F_SOFT], chain_length(joints, trans, s, 3),
        int(fl[c, F_KIND]), vec_at(fl, c, F_AXIS), fl[c, F_LO], fl[c, F_HI], base_pos, base_rot, vec_at(trans, j0, 0),
        vec_at(trans, j1, 0), vec_at(trans, j2, 0), w0, w1,
    )  # fmt: skip
    put(slots, s, J_IK, l0)
    put(slots, s + 1, J_IK, l1)
    return status, error


@_jit
def _loop(c, ints, fl, inp, st, slots, base_rot, errors, total):
    """Chain c as a reaching chain from its own last limited result (its slots' warm start):
    its step's rig row. Returns (steps, error, stalled); the rotations and the next warm
    start go into `slots`."""
    s, n, cap = ints[c, C_SLOT], ints[c, C_N], ints[c, C_CAP]
    m = n - 1
    rows = slots[s:s + n]
    out = (np.empty((n, 3)), np.zeros((m, 3)), np.empty((m, 3)), np.empty((m, 4)))
    out_locals, out_world = np.empty((m, 4)), np.empty((m, 4))
    errs = np.empty(max(cap, 1))
    tol = fl[c, F_TOL]
    kinds = np.empty(m, np.int64)
    lengths, root_dir = np.empty(m), np.empty(3)
    for k in range(m):
        kinds[k] = int(rows[k, J_KIND])
        lengths[k] = rows[k, J_LENGTH]
    for k in range(3):
        root_dir[k] = st[c, S_ROOT_DIR + k]
    to_aim, count, moved, error, span = fabrik_limited._rig_row(
        cols_of(rows, n, J_POINT, 3), vec_at(inp, c, I_GOAL), (total, fl[c, F_CLAMP], fl[c, F_SOFT]), lengths, kinds,
        cols_of(rows, m, J_PARAMS, 2), cols_of(rows, m, J_DIR, 3), cols_of(rows, m, J_AXIS, 3), root_dir,
        cols_of(rows, m, J_FRAME, 4), base_rot, tol, cap, vec_at(inp, c, I_POLE), inp[c, I_HAS_POLE] != 0.0, errs, out,
        out_locals, out_world, ints[c, C_ROW] == ROW_CCD,
    )  # fmt: skip
    for k in range(count):
        errors[c, k] = errs[k]
    if moved:
        put_cols(rows, J_IK, out_locals)
        put_cols(rows, J_POINT, out[0])
        put_cols(rows, J_FRAME, out_world)
        put_cols(rows, J_DIR, out[2])
        put_cols(rows, J_AXIS, out[1])
    stalled = error > tol and 0 < count < cap and to_aim > tol and span <= total
    return count, error, stalled


@_jit
def _aim(c, ints, fl, inp, parents, joints, rot, trans, slots):
    """Chain c as an aim (look-at) over the pose built so far: look_at_kernel.aim_chain on
    the path from the skeleton's root to its aiming joint (rig_uses.look_at_rotations),
    blended into the pose by weight. Returns the miss."""
    s, n = ints[c, C_SLOT], ints[c, C_N]
    depth, k = 0, joints[s + n - 1]
    while k >= 0:
        depth += 1
        k = parents[k]
    path, k = np.empty(depth, np.int64), joints[s + n - 1]
    for d in range(depth - 1, -1, -1):
        path[d] = k
        k = parents[k]
    prot, ptrans, at = np.empty((depth, 4)), np.empty((depth, 3)), np.empty(n, np.int64)
    for d in range(depth):
        for k in range(4):
            prot[d, k] = rot[path[d], k]
        for k in range(3):
            ptrans[d, k] = trans[path[d], k]
        for i in range(n):
            if path[d] == joints[s + i]:
                at[i] = d
    out = np.empty((n, 4))
    miss = look_at_kernel.aim_chain(
        prot, ptrans, at, np.ascontiguousarray(slots[s:s + n, J_SHARE]), np.ascontiguousarray(slots[s:s + n, J_REST:J_REST + 4]),
        vec_at(inp, c, I_GOAL), vec_at(fl, c, F_FWD), vec_at(fl, c, F_UP), fl[c, F_MAX_ANGLE], fl[c, F_MAX_TWIST], True, out,
    )  # fmt: skip
    w = inp[c, I_WEIGHT]
    if w != 0.0:
        for i in range(n):
            j = joints[s + i]
            q = quat_at(out, i, 0)
            if w != 1.0:
                q = slerp(quat_at(rot, j, 0), q, w)
            put(rot, j, 0, q)
    return miss


@_jit
def _record(st, slots, c, base_pos, base_rot, inp, trans, joints, s, n, error, reached, final):
    """Chain c's last solve: what it was solved for and how it ended."""
    st[c, S_LAST], st[c, S_SAME_SETTINGS] = 1.0, 1.0
    st[c, S_ERROR], st[c, S_REACHED], st[c, S_FINAL] = error, 1.0 if reached else 0.0, 1.0 if final else 0.0
    put(st, c, S_BASE, base_pos)
    put(st, c, S_BASE + 3, base_rot)
    put(st, c, S_GOAL, vec_at(inp, c, I_GOAL))
    put(st, c, S_POLE, vec_at(inp, c, I_POLE))
    st[c, S_HAS_POLE] = inp[c, I_HAS_POLE]
    for k in range(n):
        put(slots, s + k, J_OFFSET, vec_at(trans, joints[s + k], 0))


@_jit
def _warm_here(st, c, base_pos, base_rot):
    """Whether chain c's limited warm start stands on this base."""
    if st[c, S_WARM] == 0.0:
        return False
    for k in range(3):
        if st[c, S_WARM_BASE + k] != base_pos[k]:
            return False
    for k in range(4):
        if st[c, S_WARM_BASE + 3 + k] != base_rot[k]:
            return False
    return True


@_jit
def _write(c, ints, joints, slots, rot, w):
    """Chain c's rotations into the pose, slerped from it by weight w (0: left as it is)."""
    s, m = ints[c, C_SLOT], ints[c, C_N] - 1
    if w == 0.0:
        return
    for k in range(m):
        j = joints[s + k]
        q = quat_at(slots, s + k, J_IK)
        if w != 1.0:
            q = slerp(quat_at(rot, j, 0), q, w)
        put(rot, j, 0, q)


@_jit
def _chain(c, tables, inp, rot, trans, st, slots, report, errors):
    """Chain c of the frame (see the module docstring): -1 done, else 2 c + STOP_* (the
    rig's Python path must take the frame)."""
    parents, joints, ints, fl = tables
    s, n = ints[c, C_SLOT], ints[c, C_N]
    if ints[c, C_ROW] == ROW_AIM:  # aimed afresh every frame: no state, final
        miss = _aim(c, ints, fl, inp, parents, joints, rot, trans, slots)
        report[c, 0], report[c, 1], report[c, 2], report[c, 3] = miss, 0.0, 1.0 if miss <= fl[c, F_TOL] else 0.0, 1.0
        return -1
    if ints[c, C_PARENT] >= 0:
        base_pos, base_rot = world_of(ints[c, C_PARENT], parents, rot, trans)
    else:
        base_pos, base_rot = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)
    same = _same(st, slots, c, base_pos, base_rot, inp, trans, joints, s, n)
    count = 0
    if same and st[c, S_FINAL] != 0.0:
        error, reached, final = st[c, S_ERROR], st[c, S_REACHED] != 0.0, True
    elif ints[c, C_ROW] == ROW_LIMB:
        own = st[c, S_LAST] != 0.0 and ints[c, C_FOLLOW] == 0
        status, error = _limb(c, ints, fl, inp, joints, rot, trans, slots, base_pos, base_rot, own)
        if status != two_bone_codes.OK:
            return 2 * c + STOP_ONCE  # two_bone_ik's own error, raised from the Python path
        reached, final = error <= fl[c, F_TOL], True
    else:
        if ints[c, C_FOLLOW] != 0 or not _warm_here(st, c, base_pos, base_rot) or not _offsets_same(slots, trans, joints, s, n):
            return 2 * c + STOP_NO_WARM  # no limited warm start here: prepared in Python (rig_chain.py)
        count, error, stalled = _loop(c, ints, fl, inp, st, slots, base_rot, errors, chain_length(joints, trans, s, n))
        if stalled and same:
            return 2 * c + STOP_ONCE  # held still and short: rig_chain.solve_chain tries the animated pose too
        reached = error <= fl[c, F_TOL]
        final = reached or count == 0  # ReachLoop.final
        if same and error >= st[c, S_ERROR] * (1.0 - STALL_GAIN):
            final = True
        put(st, c, S_WARM_BASE, base_pos)
        put(st, c, S_WARM_BASE + 3, base_rot)
    _record(st, slots, c, base_pos, base_rot, inp, trans, joints, s, n, error, reached, final)
    report[c, 0], report[c, 1], report[c, 2], report[c, 3] = error, count, 1.0 if reached else 0.0, 1.0 if final else 0.0
    _write(c, ints, joints, slots, rot, inp[c, I_WEIGHT])
    return -1


@_jit
def solve_frame(table, floats, inp, rot, trans, state, slots, out):
    """Every chain of the frame in order (see the module docstring), from the tables
    (frame_codes.py: `table`'s columns, `floats`) and this frame's inputs `inp`. `rot` (the
    animated rotations) becomes the solved pose; `state` and `slots` (frame_pack.FrameState's)
    the next warm starts, changed only when the whole frame was solved here. `out` (chains,
    4 + cap): error, steps, reached, final, then each pass's error. Returns -1, or 2 c + STOP_*
    for the first chain c the frame stopped at and why (nothing kept)."""
    tables = (table[:, T_PARENT], table[:, T_JOINT], table[:, T_CHAIN:], floats)
    report, errors = out[:, :4], out[:, 4:]
    st, sl = state.copy(), slots.copy()
    for c in range(floats.shape[0]):
        got = _chain(c, tables, inp, rot, trans, st, sl, report, errors)
        if got >= 0:
            return got
    put_cols(state, 0, st)
    put_cols(slots, 0, sl)
    return -1
