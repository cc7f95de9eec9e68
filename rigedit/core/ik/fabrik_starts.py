"""Other starts for a limited solve that stalled (`shake`): the limits make the tip's
distance a function with more than one valley, and no local step leaves the one it started
in, so a cold solve short of its target goes on from the pose aimed straight at the target,
then from random ones, each run by the one loop (fabrik_loop.iterate) and kept only when
nearer. Warm solves (a rig's frames) never come here: a posture must not jump between frames.
"""
from __future__ import annotations

import math

import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_loop, fabrik_newton, fabrik_passes, limits
from .fabrik_loop import COLD_STALL, _copy, iterate
from .fabrik_passes import TINY, _gap, _inline, _jit, _row3

fresh_cache(__file__, sq, limits, fabrik_passes, fabrik_newton, fabrik_loop)


# --- other starts --------------------------------------------------------------------------

# A limited solve that stalls short of a target within the chain's length, with passes left
# under its cap, goes on from up to SHAKES other starts (each a pose of random bone
# directions conformed to the limits), keeping the nearest pose: the limits make the tip's
# distance a function with more than one valley, and no local step leaves the one it started in.
SHAKES = 10
# Steps a start is given before it must be nearer than the best pose to go on.
TRIAL_SHARE = 4


@_jit
def _hash01(x):
    """A number in [0, 1) that jumps about as x moves (the starts need no statistics, only
    to differ from one another and from solve to solve)."""
    s = math.sin(x) * 43758.5453
    return s - math.floor(s)


@_inline
def _start_aim(attempt, seed, root, target, lengths, aim):
    """Points for another start's forward pass into `aim`: the first (attempt 0) straight
    from the root toward the target (the valley a target out of the limits' reach is
    nearest in, more often than not), the others random bone directions seeded by `seed`."""
    m = lengths.shape[0]
    x, y, z = root
    aim[0, 0], aim[0, 1], aim[0, 2] = root
    tx, ty, tz = target[0] - x, target[1] - y, target[2] - z
    d = math.sqrt(tx * tx + ty * ty + tz * tz)
    for k in range(m):
        if attempt == 0 and d > TINY:
            ux, uy, uz = tx / d, ty / d, tz / d
        else:
            h = _hash01(seed + 1.618 * (attempt * (m + 1) + k))
            g = _hash01(seed - 2.718 * (attempt * (m + 1) + k))
            c = 2.0 * h - 1.0
            s = math.sqrt(max(0.0, 1.0 - c * c))
            ux, uy, uz = s * math.cos(2.0 * math.pi * g), s * math.sin(2.0 * math.pi * g), c
        x, y, z = x + lengths[k] * ux, y + lengths[k] * uy, z + lengths[k] * uz
        aim[k + 1, 0], aim[k + 1, 1], aim[k + 1, 2] = x, y, z


@_jit
def shake(
    best, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths, target, best_e,
    count, tol, cap, min_gain, cones_only, when, errors, sweeps,
):  # fmt: skip
    """`iterate` again from other starts while the best error `best_e` (of the pose `best`,
    after `count` steps) is above tol and steps are left: each run's steps count toward the
    cap, errors[i] stays the best error after step i, and `best` takes
    a run's pose when it is within tol or nearer at all (a cold solve answers with the
    nearest pose it found: a margin of the tolerance threw away starts that ended nearer
    by less, the very gap by which a solve misses the best pose its limits allow; warm
    solves, where a posture must not jump for a hair, never come here). The starts are seeded by
    where the tip stopped. Returns (error, steps)."""
    m = lengths.shape[0]
    run = (np.empty_like(best[0]), np.empty_like(best[1]), np.empty_like(best[2]), np.empty_like(best[3]))
    root = _row3(best[0], 0)
    seed = 12.9898 * best[0][m, 0] + 78.233 * best[0][m, 1] + 37.719 * best[0][m, 2]
    attempt = 0
    while best_e > tol and count < cap and attempt <= SHAKES:
        _start_aim(attempt, seed, root, target, lengths, aim)
        attempt += 1
        fabrik_passes.forward(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, False, True, run[0], run[1], run[2], run[3])
        run_e = _gap(run[0], target)
        steps = 0
        if run_e > tol:
            # A trial of TRIAL_STEPS first; only a start that is then nearer than the best
            # goes on (the passes' reference is the solve's start: `run` keeps its turns).
            run_e, steps = iterate(
                run, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths,
                target, True, run_e, tol, max(1, (cap - count) // TRIAL_SHARE), min_gain, COLD_STALL, when, cones_only, False,
                errors[count:], sweeps, True,
            )  # fmt: skip
            if run_e > tol and run_e < best_e and count + steps < cap:
                run_e, more = iterate(
                    run, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths,
                    target, True, run_e, tol, cap - count - steps, min_gain, COLD_STALL, when, cones_only, False,
                    errors[count + steps:], sweeps, True,
                )  # fmt: skip
                steps += more
        taken = run_e <= tol or run_e < best_e
        for i in range(count, count + steps):
            if not (taken and errors[i] < best_e):
                errors[i] = best_e
        if steps == 0:  # the start itself: a step of its own, so that errors ends at the error
            errors[count] = run_e if taken else best_e
            steps = 1
        count += steps
        if taken:
            _copy(run, best, True)
            best_e = run_e
    return best_e, count
