"""A reaching chain of the rig's compiled frame on its own limited warm start, and a stall
retried from the animated pose (docs/ARCHITECTURE.md, core: one frame evaluation).

`loop` is the warm path (fabrik_limited._rig_row: FABRIK's or CCD's step from the points,
frames and limit directions the chain's last solve left on this base): every frame of a
drag. `retry`: a limited chain held still and short once its inputs stop moving (its
frames, carried from frame to frame, may have twisted so that its hinges cannot bend toward
the target any more) is also solved from the animated pose (and once more on from there),
and the nearer answer is kept. frame_cold.py solves a chain with no warm start of its own.
"""
from __future__ import annotations

import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_limited, frame_codes, frame_cold, frame_math
from .fabrik_passes import _jit
from .frame_codes import (
    C_CAP, C_N, C_ROW, F_CLAMP, F_SOFT, F_TOL, I_GOAL, I_HAS_POLE, I_POLE, J_AXIS, J_DIR, J_FRAME, J_IK, J_KIND, J_LENGTH,
    J_PARAMS, J_POINT, ROW_CCD, S_ROOT_DIR, S_WARM, S_WARM_BASE,
)
from .frame_math import cols_of, put, put_cols, vec_at

fresh_cache(__file__, fabrik_limited, frame_codes, frame_cold, frame_math, sq)


@_jit
def loop(c, ints, fl, inp, st, rows, base_pos, base_rot, errors, total):
    """Chain c from its own last limited result (the warm start in its joint slots `rows`):
    its step's rig row. Returns (steps, error, stalled); the rotations and the next warm
    start go into `rows`, the passes' errors into errors[c]."""
    n, cap = ints[c, C_N], ints[c, C_CAP]
    m = n - 1
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
    put(st, c, S_WARM_BASE, base_pos)
    put(st, c, S_WARM_BASE + 3, base_rot)
    stalled = error > tol and 0 < count < cap and to_aim > tol and span <= total
    return count, error, stalled


@_jit
def retry(c, ints, fl, inp, st, rows, anim, offs, base_pos, base_rot, total, errors, count, error):
    """The retry after a stalled solve (`count` passes, `error`, its
    result in `rows` and st[c]): a cold solve from the animated rotations `anim`, one warm
    solve on from it when that is still short, and the nearer of the two answers kept
    (its passes' errors in errors[c], up to two caps of them). Returns (why, steps, error);
    why 0, or why the cold solve refused its input (frame_codes.STOP_*)."""
    kept_st, kept_rows, kept_errs = st[c].copy(), rows.copy(), errors[c, :count].copy()
    why, got, far, _ = frame_cold.cold(c, ints, fl, inp, st, rows, anim, offs, base_pos, base_rot, total, errors)
    if why:
        return why, count, error
    again = errors[c, :got].copy()
    if far > fl[c, F_TOL] and st[c, S_WARM] != 0.0:
        # A cold start is often a straight bind pose that a first solve only unbends: one
        # warm solve on from it, as the next frame would make.
        cold_st, cold_rows = st[c].copy(), rows.copy()
        on = np.empty_like(errors)
        more, nearer, _ = loop(c, ints, fl, inp, st, rows, base_pos, base_rot, on, total)
        if nearer < far:
            got, far, again = got + more, nearer, np.concatenate((again, on[c, :more]))
        else:
            st[c], rows[:] = cold_st, cold_rows
    if far < error:  # nearer: the next solves go on from there
        errors[c, :got] = again
        return 0, got, far
    st[c], rows[:] = kept_st, kept_rows
    errors[c, :count] = kept_errs
    return 0, count, error
