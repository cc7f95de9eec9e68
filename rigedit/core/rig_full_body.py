"""One frame of a rig solved with `rig.full_body` on: every chain's goal together, the hips
and trunk moving as far as the goals' pulls let them (ik/full_body_kernel.py has the method).

The rig is turned into plain arrays once per chain layout (FullBodyTables, kept on the
rig), the animated pose and the last solve's pose (the warm start) go in, the solved local
rotations and root translation come out, and each chain's joints are slerped from the
animated pose by its weight (the root and trunk by the largest weight of the chains that
move them), so weight 0 everywhere gives the animated pose exactly. full_body_batch.solve_batch is the
batch form: many frames' goals in one call of the kernel's solve_rows (rows in parallel).

Roles and pull defaults: a chain on a leg as the chain proposer finds legs (autochains'
Body: from the hips, or a quadruped's chest, down to the foot, and the hub's other branches
that reach the ground), or a gait's leg, is a leg, an anchor (pull 0); a FABRIK chain other
chains hang from (the spine) is the trunk, pull TRUNK_PULL (its tip goal gives way to the limbs'); everything
else (arms, a head) ARM_PULL: its root may be moved by up to ARM_PULL of its reach, so a
hand reaches about 1.4x its arm's length (benchmarks/bench_full_body.py measures it).
Look-at chains are not part of the full-body solve (their joints keep the animated pose),
nor are grounded feet's sole turns. A chain's report gives its own tip error; its `errors`
are the whole body's pass errors (the kernel's measure, the same for every chain: never
growing), its `iterations` the body's passes; `chain_curve` gives the chain's own tip
error after each pass (the dock plots that). The last solve's result is the rig's
solved_state (`FullBodySolution`): a saved full-body rig opens on it exactly, as a per-chain
rig opens on its chains' solutions (full_body_saved.py: restore_state's frame shows it as it
was; a solve takes it as its answer while it is `current`, solved for the goals and settings
as they are, and fits them, and starts from it otherwise, as the saving rig would).
"""
from __future__ import annotations

import math

import numpy as np

from . import scalar_quat as sq
from .chain_settings import ChainReport
from .full_body_saved import take_saved
from .full_body_tables import (  # noqa: F401 (default_pull and the pulls are this module's API too)
    ARM_PULL,
    LEG_PULL,
    TRUNK_PULL,
    FullBodyTables,
    anim_arrays,
    chain_arrays,
    default_pull,
    solve_key,
    tables_of,
)
from .skeleton import Pose
from .transforms import quat_slerp

# Passes of the whole-body loop at most: a warm drag frame needs one to three, a cold
# 1.35x reach ~10.
FULL_BODY_ITERATIONS = 40


def kernel():
    from .ik import full_body_kernel  # numba's import waits for the first full-body solve

    return full_body_kernel


def solve_frame(rig, anim, show: bool = False) -> dict:
    """Rig.solve with full_body on (rig_eval.solve_frame hands over the animated frame it made).
    `show` (restore_state): a saved solution put back is shown as it was, not solved."""
    tables = tables_of(rig)
    key = solve_key(rig, anim, tables)
    body = rig.solve_state.body
    last = body.last
    if last is not None and last[0] == key and rig.solve_state.pose is last[1]:
        # Nothing it reads has changed: the same answer, no pass run.
        return {n: ChainReport(n, r.error, 0, r.reached, ()) for n, r in last[2].items()}
    if body.fixed is None or body.fixed[0] != (tables, key[3]):
        # Everything but the goals, kept while the settings stay (a drag moves only goals).
        body.fixed = ((tables, key[3]), chain_arrays(rig, tables))
    arrays = body.fixed[1]
    active, weights = arrays[7], arrays[8]
    goals = np.array(key[2], dtype=np.float64)
    anim_rot, anim_trans = anim_arrays(rig, anim)
    nc = len(tables.names)
    out_rot, out_trans, chain_err = np.empty_like(anim_rot), np.empty_like(anim_trans), np.zeros(nc)
    errors, chain_errors = np.empty(FULL_BODY_ITERATIONS), np.empty((FULL_BODY_ITERATIONS, nc))
    count = 0
    answer = take_saved(rig, tables, key, goals, (anim_rot, anim_trans), (out_rot, out_trans, chain_err), active, show)
    if answer is not None:  # a saved solution put back (restore_state)
        rot, trans = blend(tables, anim_rot, anim_trans, out_rot, out_trans, weights)
        if not answer:
            key = None  # not its answer: the next solve runs
    elif active.any():
        count = _run(rig, tables, arrays, goals, anim_rot, anim_trans, out_rot, out_trans, chain_err, errors, chain_errors)
        rot, trans = blend(tables, anim_rot, anim_trans, out_rot, out_trans, weights)
    else:
        rot, trans = anim_rot.copy(), anim_trans.copy()
    rig.solve_state.show(Pose(rot, trans))
    rig.solve_state.settled = None
    reports = _reports(tables, active, arrays[4], chain_err.tolist(), count, tuple(errors[:count].tolist()))
    body.last = None if key is None else (key, rig.solve_state.pose, reports)
    body.curves = {n: tuple(chain_errors[:count, c].tolist()) for c, n in enumerate(tables.names)}
    return reports


def _run(rig, tables, arrays, goals, anim_rot, anim_trans, out_rot, out_trans, chain_err, errors, chain_errors) -> int:
    """One compiled full-body solve from the warm start; the warm start for the next one
    kept. Returns the passes run."""
    _, poles, has_pole, pulls, tols, clamps, softs, active, _ = arrays
    warm_rot, warm_root = _warm_start(rig, tables, anim_rot, anim_trans)
    lk, la, lb, lax = tables.lim
    mk, max_, mlo, mhi = tables.mid
    count = kernel().solve_row(
        tables.parents, anim_rot, anim_trans, warm_rot, warm_root, tables.order, tables.below, tables.child,
        tables.owner, lk, la, lb, lax, tables.kinds, tables.cs, tables.cj, goals, poles, has_pole, pulls, tols, clamps,
        softs, mk, max_, mlo, mhi, active, FULL_BODY_ITERATIONS, out_rot, out_trans, chain_err, errors, chain_errors,
    )  # fmt: skip
    root = tables.root
    rig.solve_state.body.warm = (out_rot, out_trans[root].copy(), tables, dict(zip(tables.names, chain_err.tolist())),
                                 anim_trans[root].copy(), anim_rot[root].copy())  # fmt: skip
    return count


def _reports(tables, active, tols, errs: list, count: int, hist: tuple) -> dict:
    """Each chain's report: its own tip error, the body's passes and pass errors."""
    reports = {}
    for c, n in enumerate(tables.names):
        if active[c]:
            reports[n] = ChainReport(n, errs[c], count, bool(errs[c] <= tols[c]), hist)
        else:
            reports[n] = ChainReport(n, math.nan, 0, False, ())
    return reports


def chain_curve(rig, name: str) -> tuple[float, ...] | None:
    """A chain's own tip error after each pass of the last full-body solve (None: it was not
    in one): what a chain's error plot shows under full body, where its report's `errors`
    are the whole body's."""
    curves = rig.solve_state.body.curves
    return None if curves is None or not rig.full_body else curves.get(name)


def _warm_start(rig, tables, anim_rot, anim_trans):
    """(rotations, root translation) the solve starts from: the last solve's rotations where
    the solver turns joints, the animated pose everywhere else (a clip moves the shoulders,
    fingers and toes). A clip that carries the body (a walk, a gait's path) carries the
    start's root with it: the last solve's offset from the animated root is kept, not its
    place, or the body would stay behind and only the anchors would drag it along."""
    root = tables.root
    warm = rig.solve_state.body.warm
    warm_rot = anim_rot.copy()
    if warm is None or warm[2] is not tables or warm[0].shape != anim_rot.shape:
        return warm_rot, anim_trans[root].copy()
    warm_rot[tables.solved] = warm[0][tables.solved]
    warm_root = warm[1]
    if not np.array_equal(warm[4], anim_trans[root]):
        warm_root = warm_root + (anim_trans[root] - warm[4])
        turn = sq.qmul(tuple(anim_rot[root]), sq.qconj(tuple(warm[5])))
        warm_rot[root] = sq.qmul(turn, tuple(warm_rot[root]))
    return warm_rot, warm_root


def blend(tables: FullBodyTables, anim_rot, anim_trans, ik_rot, ik_trans, weights):
    """Each chain's written joints slerped from the animated pose by its weight, the root
    and trunk joints no chain writes by the largest weight; weight 0 leaves a joint's
    animated rotation exactly (quat_slerp gives its ends exactly)."""
    rot, trans = anim_rot.copy(), anim_trans.copy()
    body = float(weights.max())
    if body == 1.0 and bool((weights == 1.0).all()):
        rot[tables.solved] = ik_rot[tables.solved]
        trans[tables.root] = ik_trans[tables.root]
        return rot, trans
    for idx, w in zip(tables.writes + [tables.body_only], weights.tolist() + [body]):
        if w == 0.0 or idx.size == 0:
            continue
        rot[idx] = ik_rot[idx] if w == 1.0 else quat_slerp(anim_rot[idx], ik_rot[idx], w)
    r = tables.root
    if body == 1.0:
        trans[r] = ik_trans[r]
    elif body > 0.0:
        trans[r] = anim_trans[r] + body * (ik_trans[r] - anim_trans[r])
    return rot, trans


