"""A rig frame in one compiled call (docs/ARCHITECTURE.md, core: one frame evaluation).

Every chain in dependency order over the pose built so far: its base (the world transform
of its root's parent, walked up from the rotations written so far), the "same inputs, final
answer" shortcut, the solver's own compiled row (two_bone_kernel._limb for a closed-form
limb; fabrik_limited._rig_row, FABRIK's or CCD's step, for a reaching chain warm-started
from its own last limited result), the blend by weight and the write-back. The rows are the
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

import math

import numpy as np

from .. import bone_turns
from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_limited, frame_codes, two_bone_codes, two_bone_kernel
from .fabrik_passes import _jit
from .frame_codes import (
    C_CAP, C_FOLLOW, C_N, C_PARENT, C_ROW, C_SLOT, F_AXIS, F_CLAMP, F_EPS, F_HI, F_KIND, F_LO, F_SOFT, F_TOL,
    I_GOAL, I_HAS_POLE, I_POLE, I_WEIGHT, ROW_CCD, ROW_LIMB, S_BASE, S_ERROR, S_FINAL, S_GOAL, S_HAS_POLE, S_LAST,
    S_POLE, S_REACHED, S_SAME_SETTINGS, S_WARM, S_WARM_BASE, STALL_GAIN,
)

fresh_cache(__file__, frame_codes, two_bone_codes, sq, bone_turns)


@_jit
def _world_of(j, parents, rot, trans):
    """World (position, rotation) of joint j in the pose `rot`, `trans` (rig_solve.world_of's
    operations, walked from the root: the chains above have just written their joints)."""
    px, py, pz = 0.0, 0.0, 0.0
    q = (0.0, 0.0, 0.0, 1.0)
    path = np.empty(parents.shape[0], np.int64)
    n = 0
    while j >= 0:
        path[n] = j
        n += 1
        j = parents[j]
    for i in range(n - 1, -1, -1):
        k = path[i]
        px, py, pz = bone_turns.add_rotated((px, py, pz), q, (trans[k, 0], trans[k, 1], trans[k, 2]))
        q = sq.qmul(q, (rot[k, 0], rot[k, 1], rot[k, 2], rot[k, 3]))
    return (px, py, pz), q


@_jit
def _total(joints, trans, s, n):
    """A chain's length from its joints' offsets, summed as rig_solve.ChainSetup sums it."""
    total = 0.0
    for k in range(1, n):
        j = joints[s + k]
        total += math.sqrt(trans[j, 0] * trans[j, 0] + trans[j, 1] * trans[j, 1] + trans[j, 2] * trans[j, 2])
    return total


@_jit
def _slerp(a, b, t):
    """transforms.quat_slerp for one pair, 0 < t < 1 (its ends are the caller's)."""
    dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
    s = 1.0
    if dot < 0.0:
        s, dot = -1.0, -dot
    theta = math.acos(min(max(dot, -1.0), 1.0))
    sin_theta = math.sin(theta)
    if sin_theta < 1e-9:
        wa, wb = 1.0 - t, t
    else:
        wa, wb = math.sin((1.0 - t) * theta) / sin_theta, math.sin(t * theta) / sin_theta
    x, y = wa * a[0] + wb * s * b[0], wa * a[1] + wb * s * b[1]
    z, w = wa * a[2] + wb * s * b[2], wa * a[3] + wb * s * b[3]
    n = math.sqrt(x * x + y * y + z * z + w * w)
    return (x / n, y / n, z / n, w / n)


@_jit
def _same(st, c, base_pos, base_rot, inp, offs, trans, joints, s, n):
    """Whether chain c's inputs are those of its last solve (SolveInputs compared by value)."""
    if st[c, S_LAST] == 0.0 or st[c, S_SAME_SETTINGS] == 0.0:
        return False
    for k in range(3):
        if st[c, S_BASE + k] != base_pos[k] or st[c, S_GOAL + k] != inp[c, I_GOAL + k]:
            return False
    for k in range(4):
        if st[c, S_BASE + 3 + k] != base_rot[k]:
            return False
    if st[c, S_HAS_POLE] != inp[c, I_HAS_POLE]:
        return False
    if inp[c, I_HAS_POLE] != 0.0:
        for k in range(3):
            if st[c, S_POLE + k] != inp[c, I_POLE + k]:
                return False
    for k in range(n):
        j = joints[s + k]
        for a in range(3):
            if offs[s + k, a] != trans[j, a]:
                return False
    return True


@_jit
def _limb(c, ints, fl, inp, joints, rot, trans, ik, base_pos, base_rot, warm_own):
    """Chain c as a closed-form limb: (status, error) with its two rotations put in `ik`."""
    s = ints[c, C_SLOT]
    j0, j1, j2 = joints[s], joints[s + 1], joints[s + 2]
    if warm_own:
        w0, w1 = (ik[s, 0], ik[s, 1], ik[s, 2], ik[s, 3]), (ik[s + 1, 0], ik[s + 1, 1], ik[s + 1, 2], ik[s + 1, 3])
    else:
        w0, w1 = (rot[j0, 0], rot[j0, 1], rot[j0, 2], rot[j0, 3]), (rot[j1, 0], rot[j1, 1], rot[j1, 2], rot[j1, 3])
    goal = (inp[c, I_GOAL], inp[c, I_GOAL + 1], inp[c, I_GOAL + 2])
    has_pole = inp[c, I_HAS_POLE] != 0.0
    pole = (inp[c, I_POLE], inp[c, I_POLE + 1], inp[c, I_POLE + 2]) if has_pole else base_pos
    status, l0, l1, error, _ = two_bone_kernel._limb(
        goal, pole, has_pole, fl[c, F_EPS], fl[c, F_CLAMP], fl[c, F_SOFT], _total(joints, trans, s, 3), int(fl[c, F_KIND]),
        (fl[c, F_AXIS], fl[c, F_AXIS + 1], fl[c, F_AXIS + 2]), fl[c, F_LO], fl[c, F_HI], base_pos, base_rot,
        (trans[j0, 0], trans[j0, 1], trans[j0, 2]), (trans[j1, 0], trans[j1, 1], trans[j1, 2]),
        (trans[j2, 0], trans[j2, 1], trans[j2, 2]), w0, w1,
    )  # fmt: skip
    ik[s, 0], ik[s, 1], ik[s, 2], ik[s, 3] = l0
    ik[s + 1, 0], ik[s + 1, 1], ik[s + 1, 2], ik[s + 1, 3] = l1
    return status, error


@_jit
def _loop(c, ints, fl, inp, ik, warm, root_dirs, base_rot, errors, total):
    """Chain c as a reaching chain from its own last limited result (the warm arrays, by
    slot: points, frames, ref_dirs, ref_axes, kinds, params, lengths): its step's rig row.
    Returns (steps, error, stalled), the rotations in `ik` and the next warm start in place."""
    points, frames, dirs, axes, kinds, params, lengths = warm
    s, n, cap = ints[c, C_SLOT], ints[c, C_N], ints[c, C_CAP]
    m = n - 1
    pts = np.ascontiguousarray(points[s:s + n])
    fr = np.ascontiguousarray(frames[s:s + m])
    out = (np.empty((n, 3)), np.zeros((m, 3)), np.empty((m, 3)), np.empty((m, 4)))
    out_locals, out_world = np.empty((m, 4)), np.empty((m, 4))
    errs = np.empty(max(cap, 1))
    tol = fl[c, F_TOL]
    to_aim, count, moved, error, span = fabrik_limited._rig_row(
        pts, (inp[c, I_GOAL], inp[c, I_GOAL + 1], inp[c, I_GOAL + 2]), (total, fl[c, F_CLAMP], fl[c, F_SOFT]),
        np.ascontiguousarray(lengths[s:s + m]), np.ascontiguousarray(kinds[s:s + m]),
        np.ascontiguousarray(params[s:s + m]), np.ascontiguousarray(dirs[s:s + m]),
        np.ascontiguousarray(axes[s:s + m]), np.ascontiguousarray(root_dirs[c]), fr, base_rot, tol, cap,
        (inp[c, I_POLE], inp[c, I_POLE + 1], inp[c, I_POLE + 2]), inp[c, I_HAS_POLE] != 0.0, errs, out, out_locals,
        out_world, ints[c, C_ROW] == ROW_CCD,
    )  # fmt: skip
    errors[c, :count] = errs[:count]
    if moved:
        ik[s:s + m] = out_locals
        points[s:s + n] = out[0]
        frames[s:s + m] = out_world
        dirs[s:s + m] = out[2]
        axes[s:s + m] = out[1]
    stalled = error > tol and 0 < count < cap and to_aim > tol and span <= total
    return count, error, stalled


@_jit
def _record(st, c, base_pos, base_rot, inp, offs, trans, joints, s, n, error, reached, final):
    """Chain c's last solve: what it was solved for and how it ended."""
    st[c, S_LAST], st[c, S_SAME_SETTINGS] = 1.0, 1.0
    st[c, S_ERROR], st[c, S_REACHED], st[c, S_FINAL] = error, 1.0 if reached else 0.0, 1.0 if final else 0.0
    for k in range(3):
        st[c, S_BASE + k], st[c, S_GOAL + k], st[c, S_POLE + k] = base_pos[k], inp[c, I_GOAL + k], inp[c, I_POLE + k]
    for k in range(4):
        st[c, S_BASE + 3 + k] = base_rot[k]
    st[c, S_HAS_POLE] = inp[c, I_HAS_POLE]
    for k in range(n):
        offs[s + k] = trans[joints[s + k]]


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
def _write(c, ints, joints, ik, rot, w):
    """Chain c's rotations into the pose, slerped from it by weight w (0: left as it is)."""
    s, m = ints[c, C_SLOT], ints[c, C_N] - 1
    if w == 0.0:
        return
    for k in range(m):
        j = joints[s + k]
        q = (ik[s + k, 0], ik[s + k, 1], ik[s + k, 2], ik[s + k, 3])
        if w != 1.0:
            q = _slerp((rot[j, 0], rot[j, 1], rot[j, 2], rot[j, 3]), q, w)
        rot[j, 0], rot[j, 1], rot[j, 2], rot[j, 3] = q


@_jit
def _chain(c, tables, inp, rot, trans, state, report, errors):
    """Chain c of the frame (see the module docstring): -1 done, else c (the rig's Python
    path must take the frame)."""
    parents, joints, ints, fl = tables
    st, ik, offs, root_dirs = state[0], state[1], state[2], state[3]
    warm = state[4:]
    s, n = ints[c, C_SLOT], ints[c, C_N]
    if ints[c, C_PARENT] >= 0:
        base_pos, base_rot = _world_of(ints[c, C_PARENT], parents, rot, trans)
    else:
        base_pos, base_rot = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)
    same = _same(st, c, base_pos, base_rot, inp, offs, trans, joints, s, n)
    count = 0
    if same and st[c, S_FINAL] != 0.0:
        error, reached, final = st[c, S_ERROR], st[c, S_REACHED] != 0.0, True
    elif ints[c, C_ROW] == ROW_LIMB:
        own = st[c, S_LAST] != 0.0 and ints[c, C_FOLLOW] == 0
        status, error = _limb(c, ints, fl, inp, joints, rot, trans, ik, base_pos, base_rot, own)
        if status != two_bone_codes.OK:
            return c  # two_bone_ik's own error, raised from the Python path
        reached, final = error <= fl[c, F_TOL], True
    else:
        if st[c, S_LAST] == 0.0 or ints[c, C_FOLLOW] != 0 or not _warm_here(st, c, base_pos, base_rot):
            return c  # no limited warm start here: prepared in Python (rig_chain.py)
        count, error, stalled = _loop(c, ints, fl, inp, ik, warm, root_dirs, base_rot, errors, _total(joints, trans, s, n))
        if stalled and same:
            return c  # held still and short: rig_chain.solve_chain tries the animated pose too
        reached = error <= fl[c, F_TOL]
        final = reached or count == 0  # ReachLoop.final
        if same and error >= st[c, S_ERROR] * (1.0 - STALL_GAIN):
            final = True
        for k in range(3):
            st[c, S_WARM_BASE + k] = base_pos[k]
        for k in range(4):
            st[c, S_WARM_BASE + 3 + k] = base_rot[k]
    _record(st, c, base_pos, base_rot, inp, offs, trans, joints, s, n, error, reached, final)
    report[c, 0], report[c, 1], report[c, 2], report[c, 3] = error, count, 1.0 if reached else 0.0, 1.0 if final else 0.0
    _write(c, ints, joints, ik, rot, inp[c, I_WEIGHT])
    return -1


@_jit
def solve_frame(tables, inp, rot, trans, state, report, errors):
    """Every chain of the frame in order (see the module docstring). `rot` (the animated
    rotations) becomes the solved pose; `state` (frame_pack.FrameState's arrays) the next
    warm starts, changed only when the whole frame was solved here. `report` (chains, 4):
    error, steps, reached, final; `errors` (chains, cap): each pass's error. Returns -1, or
    the first chain the frame stopped at (nothing kept)."""
    work = (state[0].copy(), state[1].copy(), state[2].copy(), state[3], state[4].copy(), state[5].copy(),
            state[6].copy(), state[7].copy(), state[8], state[9], state[10])  # fmt: skip
    for c in range(tables[2].shape[0]):
        got = _chain(c, tables, inp, rot, trans, work, report, errors)
        if got >= 0:
            return got
    state[0][:], state[1][:], state[2][:] = work[0], work[1], work[2]
    state[4][:], state[5][:], state[6][:], state[7][:] = work[4], work[5], work[6], work[7]
    return -1
