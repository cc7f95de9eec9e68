"""The one iteration loop of FABRIK and CCD (`iterate`), in the manner of Godot's
`_process_joints`: the solver supplies its step (FABRIK: a backward and a forward pass,
fabrik_passes.py, plus CCD sweeps when a limited pass stalls, since a pass cannot turn a
hinge plane; CCD: one sweep), the limit of each joint a call inside the step. A limited
step short of tolerance is followed by a damped least-squares step (fabrik_newton.py; not
FABRIK with cones only going on from its own solve, see below). The loop stops
within tolerance, at the cap, or when the best error of the last STALL_PASSES steps fell by
no more than the stall floor; a step that ends farther off is not kept (the reported errors
never grow), but the steps go on from it: limited FABRIK often gets worse for a pass on its
way in. A limited solve stalled short of a target goes on from other starts
(fabrik_starts.shake) while steps are left.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_newton, fabrik_passes, limits
from .fabrik_newton import dls
from .fabrik_passes import TINY, _gap, _inline, _jit, _row3, backward, ccd, forward, step

# The stall rule: the passes stop once the best tip error of the last STALL_PASSES passes
# fell by no more than the larger of STALL_RELATIVE of the chain's length (float64
# round-off in a pass is ~1e-15 of it: nothing that matters changes any more) and, with
# limits, STALL_PASSES * LIMITED_STALL of the error (LIMITED_STALL a pass on average: the
# limits hold the chain short of a target it cannot reach, and further passes creep by
# ever smaller steps). Over several passes, never one: a limited pass can lose ground and
# the next ones win it back.
STALL_PASSES = 3
COLD_WINDOW = 2
COLD_STALL = 0.01
COLD_TOLS = 0.5
STALL_RELATIVE = 1e-9
LIMITED_STALL = 1e-3

# A stalled limited solve restarts from its best pose with that pose's own frames only if
# some bone turned more than this (radians) since the frames the passes read: nearer, the
# two sets of frames differ in twist by ~1e-4 rad, and the restart would replay the same
# passes (a dragged chain short of its target would pay them every frame).
RESTART_TURN = 0.02
RESTART_COS = math.cos(RESTART_TURN)


fresh_cache(__file__, sq, limits, fabrik_passes, fabrik_newton)


# --- the loop -------------------------------------------------------------------------------


@_inline
def _copy(src, dst, limited):
    _copy_rows(src[0], dst[0])
    if limited:
        _copy_rows(src[1], dst[1])
        _copy_rows(src[2], dst[2])
        _copy_rows(src[3], dst[3])


@_inline
def _copy_rows(src, dst):
    """dst[...] = src, written out: numba's general slice assignment costs more than the
    copy of a chain's few rows."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@_jit
def iterate(
    best, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths, target, limited,
    err, tol, cap, min_gain, stall, ccd_when_above, cones_only, own_ref, errors, sweeps, cold,
):  # fmt: skip
    """The one FABRIK loop, from the pose `best` at tip error `err` (the other poses are
    work space; `ref` receives the reference the limited passes read frames against). A
    step is a backward and a forward pass; limited, when that leaves more than
    ccd_when_above of the error the step started from, also CCD sweeps (`_try_sweeps`),
    then, short of `tol`, the damped least-squares step (fabrik_newton.dls) from the
    nearest pose the step has seen, its start when the passes and sweeps lost ground (a run
    of such steps is then a Gauss-Newton descent): every joint at once, where the passes
    and sweeps move one at a time against the limits and creep in by a few per cent a step
    near the end (on random hinge/cone chains from rest, a median 2 steps where 5). Its
    frames are read against its own start: against a far reference a bone's frame, one
    shortest arc from its reference direction, twists fast as it turns, and the steps
    overshot. The passes go on from the step's pose;
    `best` takes it only when nearer, so errors[i], the best tip error after step i, never
    grows. Stops within `tol`, after `cap` steps, or on a stall (`_stalled`). `own_ref`:
    `best` is the reference pose itself (a warm start from a solve's own result), as after
    a restart. `sweeps` (CCD, `limited` True): the step is one CCD sweep
    (fabrik_passes.ccd) instead of the passes, with the same limits, stall rule and
    restarts. `cold`: a solve from a start not its own, that other starts follow
    (fabrik_row.solve_row): no restarts with the pose's own frames, and the stall window
    COLD_WINDOW. Returns (error, steps)."""
    _copy(best, work, limited)
    if limited:
        _reset_ref(ref, ref_dirs, ref_axes)
    root = _row3(best[0], 0)
    work_e = best_e = err
    count = 0
    mark = 0  # the step the stall window may start at
    restarted = own_ref  # the passes (re)started from the best pose, at error restart_e
    restart_e = err
    window = COLD_WINDOW if cold else STALL_PASSES
    # A sweep after a pass that lost to the pass is kept (`memo`, its error memo_e): when the
    # next step starts from that pass's pose with the same reference, its sweep from the
    # step's start is that very sweep, and is not run again (a stalled chain's steps would
    # otherwise sweep the same pose twice each). Its buffers are made when first needed.
    memo = spare
    memo_e = 0.0
    memo_ok = memo_own = False
    while best_e > tol and count < cap:
        # The step's own move, written here and not in an inlined helper: numba's inlining
        # gives each array argument a variable of its own, a reference count up and down per
        # array per step that its pruning leaves in (22 arrays: a warm cone chain's step, the
        # humanoid spine's every frame, took 7% longer).
        if sweeps:  # CCD's sweep
            ccd(work, ref, kinds, params, root_dir, lengths, target, swept, sweep, cand)
        elif limited:  # FABRIK's passes, the forward one reading frames against `ref`
            backward(work[0], work[1], kinds, params, work[2], lengths, target, True, aim)
            aim[0, 0], aim[0, 1], aim[0, 2] = root
            step(aim, ref, kinds, params, root_dir, lengths, cand)
        else:
            backward(work[0], work[1], kinds, params, ref_dirs, lengths, target, False, aim)
            aim[0, 0], aim[0, 1], aim[0, 2] = root
            forward(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, False, False, cand[0], cand[1], cand[2], cand[3])
        ce = _gap(cand[0], target)
        kept = False  # memo holds the sweep from this step's pass, which the step keeps
        if limited and not sweeps and ce > work_e * ccd_when_above:  # the pass is stalling: try the sweeps
            cand, spare, memo, ce, memo_e, kept, memo_own = _try_sweeps(
                work, cand, spare, memo, ref, swept, sweep, kinds, params, root_dir, lengths, target, work_e, ce, memo_e,
                memo_ok, memo_own, ccd_when_above, cones_only,
            )  # fmt: skip
        # The least-squares step (written here for the reason the passes are). Not for
        # FABRIK with cones only going on from its own last solve (a rig's frame): a chain
        # held short by its cones, as the humanoid's spine every frame of a drag, never ends
        # within tolerance, and the step each pass made the frame half as slow again for
        # nothing the passes do not find.
        if limited and not (cones_only and not sweeps and own_ref) and ce > tol:
            src = cand if ce < work_e else work
            if dls(src, src, kinds, params, root_dir, lengths, target, swept, sweep, spare):
                se = _gap(spare[0], target)
                if se < ce:
                    cand, spare = spare, cand
                    ce = se
                    kept = False
        memo_ok = kept
        work, cand = cand, work
        work_e = ce
        improved = ce < best_e
        if improved:
            _copy(work, best, limited)
            best_e = ce
        errors[count] = best_e
        count += 1
        restart, stop = _stalled(
            limited, cold, improved, restarted, restart_e, best_e, best[2], ref[2], lengths, count, mark, window, err, errors,
            stall, min_gain, tol,
        )  # fmt: skip
        if stop:
            break
        if limited:  # a literal False in the unlimited solve: numba drops the branch
            if restart:
                _copy(best, work, True)
                _copy(best, ref, True)
                work_e = restart_e = best_e
                mark = count
                restarted = True
                memo_ok = False
    return best_e, count


@_inline
def _reset_ref(ref, ref_dirs, ref_axes):
    """The passes' reference pose back to the solve's start: its directions and hinge axes,
    no turn."""
    _copy_rows(ref_dirs, ref[2])
    _copy_rows(ref_axes, ref[1])
    for k in range(ref[3].shape[0]):
        ref[3][k, 0], ref[3][k, 1], ref[3][k, 2], ref[3][k, 3] = 0.0, 0.0, 0.0, 1.0


@_inline
def _try_sweeps(
    work, cand, spare, memo, ref, swept, sweep, kinds, params, root_dir, lengths, target, work_e, ce, memo_e, memo_ok,
    memo_own, ccd_when_above, cones_only,
):  # fmt: skip
    """A limited pass that is stalling (typically a hinge plane that has to turn): a CCD
    sweep after the pass and one from the step's start `work`, whichever ends nearest in
    `cand`. Returns (cand, spare, memo, error, memo_e, kept, memo_own); kept: `memo` holds
    the sweep from this step's pass, which the step keeps (iterate's memo)."""
    kept = False
    ccd(cand, ref, kinds, params, root_dir, lengths, target, swept, sweep, spare)
    se = _gap(spare[0], target)
    lost = not se < ce
    if not lost:
        cand, spare = spare, cand
        ce = se
    # Unless the sweep after the pass did it, the sweep from the step's start too: the other
    # way on. With cones only, not when the pass and that sweep got nearer than the step's
    # start either: there is no hinge plane for it to turn, the next step goes on from
    # there, and a chain held short by its cones swept its start every step for next to
    # nothing (on random cone chains the solves end as near; with hinges the second sweep
    # is what turns a plane).
    if ce > work_e * ccd_when_above and not (cones_only and ce < work_e):
        if memo_ok:  # the last step's sweep from its pass: this step's start
            if memo_e < ce:
                cand, memo = memo, cand
                ce = memo_e
            elif lost:
                memo, spare = spare, memo
                memo_e, kept = se, True
        else:
            if lost:
                if not memo_own:
                    memo = (np.empty_like(spare[0]), np.empty_like(spare[1]), np.empty_like(spare[2]), np.empty_like(spare[3]))
                    memo_own = True
                memo, spare = spare, memo
                memo_e, kept = se, True
            ccd(work, ref, kinds, params, root_dir, lengths, target, swept, sweep, spare)
            se = _gap(spare[0], target)
            if se < ce:
                cand, spare = spare, cand
                ce = se
                kept = False
    return cand, spare, memo, ce, memo_e, kept, memo_own


@_inline
def _stalled(
    limited, cold, improved, restarted, restart_e, best_e, dirs, ref_dirs, lengths, count, mark, window, err, errors, stall,
    min_gain, tol,
):  # fmt: skip
    """After step `count`: (restart, stop). A limited step that lost ground restarts at once
    from the best pose with its own frames (the frames the passes read may be what holds it
    back), not from the worse one. A stall: the best error of the last `window` steps fell
    by no more than max(min_gain, window * stall * that error); limited, it first restarts
    (what a warm-started call would do), and only a stall right after such a restart, with
    nothing better found since, or one whose reference is as good as the best pose's own
    frames, ends the solve. A cold solve neither restarts nor goes on after a stall: other
    starts follow it."""
    restart = limited and not cold and not improved and not (restarted and restart_e == best_e)
    restart = restart and not _turned_less(dirs, ref_dirs, lengths)
    if restart or count - mark < window:
        return restart, False
    i = count - window
    before = err if i == 0 else errors[i - 1]
    floor = window * stall * before
    if cold and floor > window * COLD_TOLS * tol:
        floor = window * COLD_TOLS * tol
    if floor < min_gain:
        floor = min_gain
    if before - best_e > floor:
        return False, False
    if not limited or cold or (restarted and restart_e - best_e <= floor) or _turned_less(dirs, ref_dirs, lengths):
        return False, True
    return True, False


# The same loop inlined, for the unlimited solve (fabrik_free, its one caller): a call passes
# it some thirty arrays, which cost an unlimited N=10 solve 0.25 us of its 1.8. Inlined
# there with `limited` False, numba drops the limited branches (the CCD sweeps, the limited
# step) before typing them, so the copy costs little compile; the limited solve keeps the
# call (inlined there too, its host's compile grew by a quarter).
_iterate_inlined = numba.njit(cache=True, nogil=True, inline="always")(iterate.py_func)


@_jit
def _turned_less(dirs, ref_dirs, lengths):
    """Whether no bone turned by more than RESTART_TURN from the reference: then a restart
    with the pose's own frames would replay the same passes (frames carried by one arc or
    by two differ in twist by the order of the product of their angles)."""
    for k in range(lengths.shape[0]):
        if lengths[k] > TINY and dirs[k, 0] * ref_dirs[k, 0] + dirs[k, 1] * ref_dirs[k, 1] + dirs[k, 2] * ref_dirs[k, 2] < RESTART_COS:
            return False
    return True
