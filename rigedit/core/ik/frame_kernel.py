"""A rig frame in one compiled call (docs/ARCHITECTURE.md, core: one frame evaluation).

Every chain in dependency order over the pose built so far: its base (the world transform
of its root's parent, walked up from the rotations written so far), the "same inputs, final
answer" shortcut, the solver's own compiled row (two_bone_kernel._limb for a closed-form
limb; FABRIK's or CCD's step for a reaching chain, from its own last limited result
(frame_reach.py) or cold (frame_cold.py); look_at_kernel.aim_chain for an aim), a stall
retried from the animated pose (frame_reach.retry), the blend by weight, the write-back,
and last grounded feet's soles. The rows are the solvers' one implementation, called here
rather than from Python; nothing is copied.

The rig packs its chains once per shape and settings (core/frame_pack.py: the tables and the
state arrays whose layout the constants below give); each frame hands in the animated
rotations, the translations and the goals, and gets the solved rotations, the next warm
starts and each chain's report numbers. A chain whose input its solver refuses stops the
call before anything is kept: it returns that chain and why (rig_frame.refused raises the
error). A saved solution put back (Rig.restore_state) is shown by the next frame as it was
saved, unsolved (S_SHOW).
`solve_frames` is the same frame over many frames from their animated poses (the bake).
"""
from __future__ import annotations

import numpy as np

from .. import bone_turns
from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import (
    fabrik_arc, fabrik_kernel, fabrik_limited, fabrik_loop, fabrik_newton, fabrik_passes, fabrik_row, frame_codes,
    frame_cold, frame_math, frame_reach, limits, look_at_kernel, soft, two_bone_codes, two_bone_kernel,
)
from .fabrik_passes import _jit
from .frame_codes import (
    C_FOLLOW, C_N, C_PARENT, C_ROW, C_SLOT, F_AXIS, F_CLAMP, F_EPS, F_FWD, F_HI, F_KIND, F_LO, F_MAX_ANGLE, F_MAX_TWIST,
    F_SOFT, F_TOL, F_UP, I_GOAL, I_HAS_POLE, I_HAS_SOLE, I_POLE, I_SOLE, I_WEIGHT, J_IK, J_OFFSET, J_REST, J_SHARE, ROW_AIM,
    ROW_LIMB, SHOW_SAVED, STALL_GAIN, STOP_LIMB, STOP_SPAN, S_BASE, S_ERROR, S_FINAL, S_GOAL, S_HAS_POLE, S_LAST, S_POLE,
    S_REACHED, S_SAME_SETTINGS, S_SHOW, T_CHAIN, T_JOINT, T_PARENT,
)
from .frame_math import (
    chain_length, offsets_same, put, put_cols, quat_at, same_inputs, slerp, vec_at, warm_here, world_of,
)

# Every module whose code compiles into this one (the rows it calls, and theirs).
fresh_cache(
    __file__, frame_codes, frame_math, frame_cold, frame_reach, two_bone_codes, two_bone_kernel, fabrik_kernel, fabrik_limited,
    fabrik_row, fabrik_loop, fabrik_passes, fabrik_newton, fabrik_arc, limits, look_at_kernel, soft, sq, bone_turns,
)


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
def _aim(c, ints, fl, inp, parents, joints, rot, trans, slots):
    """Chain c as an aim (look-at) over the pose built so far: look_at_kernel.aim_chain on
    the path from the skeleton's root to its aiming joint,
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
def _chain_rows(c, ints, joints, rot, trans, slots, st):
    """Chain c's warm start for a cold solve (its own last rotations unless it follows the
    clip or has none, else the pose built so far) and its joints' offsets."""
    s, n = ints[c, C_SLOT], ints[c, C_N]
    own = st[c, S_LAST] != 0.0 and ints[c, C_FOLLOW] == 0
    warm, anim, offs = np.empty((n - 1, 4)), np.empty((n - 1, 4)), np.empty((n, 3))
    for k in range(n):
        j = joints[s + k]
        put(offs, k, 0, vec_at(trans, j, 0))
        if k < n - 1:
            put(anim, k, 0, quat_at(rot, j, 0))
            put(warm, k, 0, quat_at(slots, s + k, J_IK) if own else quat_at(rot, j, 0))
    return warm, anim, offs


@_jit
def _chain(c, tables, inp, rot, trans, st, slots, report, errors):
    """Chain c of the frame (see the module docstring): -1 done, else c * STOP_SPAN + why
    the solver refused its input (frame_codes.STOP_*)."""
    parents, joints, ints, fl = tables
    s, n = ints[c, C_SLOT], ints[c, C_N]
    if ints[c, C_ROW] == ROW_AIM:  # aimed afresh every frame: no state, final
        miss = _aim(c, ints, fl, inp, parents, joints, rot, trans, slots)
        report[c, 0], report[c, 1], report[c, 2], report[c, 3] = miss, 0.0, 1.0 if miss <= fl[c, F_TOL] else 0.0, 1.0
        return -1
    show = st[c, S_SHOW]
    if show != 0.0:  # put back by Rig.restore_state: shown as saved (or left as animated), not solved
        st[c, S_SHOW] = 0.0
        if show == SHOW_SAVED:
            report[c, 0], report[c, 1], report[c, 2], report[c, 3] = st[c, S_ERROR], 0.0, st[c, S_REACHED], 0.0
            _write(c, ints, joints, slots, rot, inp[c, I_WEIGHT])
        else:
            report[c, 0], report[c, 1], report[c, 2], report[c, 3] = np.nan, 0.0, 0.0, 0.0
        return -1
    if ints[c, C_PARENT] >= 0:
        base_pos, base_rot = world_of(ints[c, C_PARENT], parents, rot, trans)
    else:
        base_pos, base_rot = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)
    same = same_inputs(st, slots, c, base_pos, base_rot, inp, trans, joints, s, n)
    count = 0
    if same and st[c, S_FINAL] != 0.0:
        error, reached, final = st[c, S_ERROR], st[c, S_REACHED] != 0.0, True
    elif ints[c, C_ROW] == ROW_LIMB:
        own = st[c, S_LAST] != 0.0 and ints[c, C_FOLLOW] == 0
        status, error = _limb(c, ints, fl, inp, joints, rot, trans, slots, base_pos, base_rot, own)
        if status != two_bone_codes.OK:
            return c * STOP_SPAN + STOP_LIMB + status
        reached, final = error <= fl[c, F_TOL], True
    else:
        total, rows = chain_length(joints, trans, s, n), slots[s:s + n]
        if ints[c, C_FOLLOW] == 0 and warm_here(st, c, base_pos, base_rot) and offsets_same(slots, trans, joints, s, n):
            count, error, stalled = frame_reach.loop(c, ints, fl, inp, st, rows, base_pos, base_rot, errors, total)
        else:  # no limited warm start of its own here: from its last rotations, or the pose's
            warm, _, offs = _chain_rows(c, ints, joints, rot, trans, slots, st)
            why, count, error, stalled = frame_cold.cold(c, ints, fl, inp, st, rows, warm, offs, base_pos, base_rot, total, errors)
            if why:
                return c * STOP_SPAN + why
        if stalled and same and ints[c, C_FOLLOW] == 0:  # held still and short: from the animated pose too
            _, anim, offs = _chain_rows(c, ints, joints, rot, trans, slots, st)
            why, count, error = frame_reach.retry(c, ints, fl, inp, st, rows, anim, offs, base_pos, base_rot, total, errors, count, error)  # fmt: skip
            if why:
                return c * STOP_SPAN + why
        reached = error <= fl[c, F_TOL]
        final = reached or count == 0  # ReachLoop.final
        if same and error >= st[c, S_ERROR] * (1.0 - STALL_GAIN):
            final = True
    _record(st, slots, c, base_pos, base_rot, inp, trans, joints, s, n, error, reached, final)
    report[c, 0], report[c, 1], report[c, 2], report[c, 3] = error, count, 1.0 if reached else 0.0, 1.0 if final else 0.0
    _write(c, ints, joints, slots, rot, inp[c, I_WEIGHT])
    return -1


@_jit
def _soles(tables, inp, rot, trans):
    """Grounded feet, after every chain: each tip takes its sole's world rotation under
    its leg as solved, blended by the chain's weight (rig_ground.py places the soles)."""
    parents, joints, ints, fl = tables
    for c in range(fl.shape[0]):  # (the int table has a row per joint too)
        w = inp[c, I_WEIGHT]
        if inp[c, I_HAS_SOLE] == 0.0 or w == 0.0:
            continue
        tip = joints[ints[c, C_SLOT] + ints[c, C_N] - 1]
        _, parent_rot = world_of(parents[tip], parents, rot, trans)
        q = sq.qnormalize(sq.qmul(sq.qconj(parent_rot), quat_at(inp, c, I_SOLE)))
        if w != 1.0:
            q = slerp(quat_at(rot, tip, 0), q, w)
        put(rot, tip, 0, q)


@_jit
def solve_frame(table, floats, inp, rot, trans, state, slots, out):
    """Every chain of the frame in order (see the module docstring), from the tables
    (frame_codes.py: `table`'s columns, `floats`) and this frame's inputs `inp`. `rot` (the
    animated rotations) becomes the solved pose; `state` and `slots` (frame_pack.FrameState's)
    the next warm starts, changed only when the whole frame was solved here. `out` (chains,
    4 + cap): error, steps, reached, final, then each pass's error. Returns -1, or
    c * STOP_SPAN + why for the first chain c whose input its solver refused (nothing kept)."""
    tables = (table[:, T_PARENT], table[:, T_JOINT], table[:, T_CHAIN:], floats)
    report, errors = out[:, :4], out[:, 4:]
    st, sl = state.copy(), slots.copy()
    for c in range(floats.shape[0]):
        got = _chain(c, tables, inp, rot, trans, st, sl, report, errors)
        if got >= 0:
            return got
    _soles(tables, inp, rot, trans)
    put_cols(state, 0, st)
    put_cols(slots, 0, sl)
    return -1


@_jit
def solve_frames(table, floats, inp, rot, trans, state, slots, out):
    """solve_frame over frames (the bake): frame f from its animated pose `rot[f]`, `trans[f]`
    and inputs `inp[f]`, every chain cold (`state`, `slots`: a FrameState never solved).
    `rot` becomes the solved poses, `out[f]` frame f's reports. Returns -1, or
    f * chains * STOP_SPAN + c * STOP_SPAN + why for the first frame f and chain c whose
    input its solver refused (the bake raises the error)."""
    chains = floats.shape[0]
    for f in range(rot.shape[0]):
        st, sl = state.copy(), slots.copy()
        tables = (table[:, T_PARENT], table[:, T_JOINT], table[:, T_CHAIN:], floats)
        report, errors = out[f, :, :4], out[f, :, 4:]
        for c in range(chains):
            got = _chain(c, tables, inp[f], rot[f], trans[f], st, sl, report, errors)
            if got >= 0:
                return f * chains * STOP_SPAN + got
        _soles(tables, inp[f], rot[f], trans[f])
    return -1
