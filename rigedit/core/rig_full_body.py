"""One frame of a rig solved with `rig.full_body` on: every chain's goal together, the hips
and trunk moving as far as the goals' pulls let them (ik/full_body_kernel.py has the method).

The rig is turned into plain arrays once per chain layout (FullBodyTables, kept on the
rig), the animated pose and the last solve's pose (the warm start) go in, the solved local
rotations and root translation come out, and each chain's joints are slerped from the
animated pose by its weight (the root and trunk by the largest weight of the chains that
move them), so weight 0 everywhere gives the animated pose exactly. `solve_batch` is the
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
rig opens on its chains' solutions (`put_back`: restore_state's frame shows it as it was; a
solve takes it as its answer while it is `current`, solved for the goals and settings as
they are, and fits them, and starts from it otherwise, as the saving rig would).
"""
from __future__ import annotations

import math

import numpy as np

from . import scalar_quat as sq
from .chain import ChainReport
from .full_body_tables import (  # noqa: F401 (default_pull and the pulls are this module's API too)
    ARM_PULL,
    LEG_PULL,
    TRUNK_PULL,
    FullBodyTables,
    chain_arrays,
    default_pull,
    tables_key as _tables_key,
    tables_of as _tables,
)
from .rig_anim import animated
from .rig_goals import goal_and_pole, placed_goals
from .rig_pose import FIT_M, FullBodySolution
from .skeleton import Pose
from .transforms import quat_slerp

# Passes of the whole-body loop at most: a warm drag frame needs one to three, a cold
# 1.35x reach ~10.
FULL_BODY_ITERATIONS = 40


def kernel():
    from .ik import full_body_kernel  # numba's import waits for the first full-body solve

    return full_body_kernel


def _anim_arrays(rig, anim):
    """The animated frame as arrays, kept while it is the same frame."""
    got = rig._cache.body.anim
    if got is None or got[0] is not anim:
        got = rig._cache.body.anim = (anim, np.array(anim.rot, dtype=np.float64), np.array(anim.translations, dtype=np.float64))
    return got[1], got[2]


def _key(rig, anim, tables) -> tuple:
    """What a full-body solve reads besides its warm start (compared by value)."""
    chs = [rig._chains[n] for n in tables.names]
    placed = placed_goals(rig, anim)
    if placed:  # the frame's goals (rig_goals.py)
        aims = [goal_and_pole(ch, placed) for ch in chs]
    else:
        aims = [(ch._target, ch._pole) for ch in chs]
    targets = tuple(goal for goal, _ in aims)
    settings = tuple((pole, ch._tolerance, ch._weight, ch._pull, ch._reach_clamp, ch._softness) for ch, (_, pole) in zip(chs, aims))
    return (anim, tables, targets, settings)


def _signature(rig, key: tuple) -> tuple:
    """A key as a saved solution remembers it: the animated frame and the tables by their
    own keys (the tables' key is the chain layout and limits they were made for)."""
    return (key[0].key, _tables_key(rig)) + key[2:]


def solve_frame(rig, anim, show: bool = False) -> dict:
    """Rig.solve with full_body on (rig_eval hands over the animated frame it made).
    `show` (restore_state): a saved solution put back is shown as it was, not solved."""
    tables = _tables(rig)
    key = _key(rig, anim, tables)
    settings = key[3]
    last = rig._cache.body.last
    if last is not None and last[0] == key and rig._pose is last[1]:
        # Nothing it reads has changed: the same answer, no pass run.
        return {n: ChainReport(n, r.error, 0, r.reached, ()) for n, r in last[2].items()}
    fixed = rig._cache.body.fixed
    if fixed is None or fixed[0] != (tables, settings):
        # Everything but the goals, kept while the settings stay (a drag moves only goals).
        fixed = rig._cache.body.fixed = ((tables, settings), chain_arrays(rig, tables))
    _, poles, has_pole, pulls, tols, clamps, softs, active, weights = fixed[1]
    goals = np.array(key[2], dtype=np.float64)
    anim_rot, anim_trans = _anim_arrays(rig, anim)
    root = tables.root
    nc = len(tables.names)
    out_rot, out_trans = np.empty_like(anim_rot), np.empty_like(anim_trans)
    chain_err = np.zeros(nc)
    errors = np.empty(FULL_BODY_ITERATIONS)
    chain_errors = np.empty((FULL_BODY_ITERATIONS, nc))
    count = 0
    body = rig._cache.body
    put = None
    if active.any():
        put, body.pending = body.pending, None
    saved, then = (None, None) if put is None else put
    if saved is not None and not _usable(saved, tables, anim_rot):
        saved = None
    current = saved is not None and then == _signature(rig, key)
    fits = saved is not None and _fits(rig, tables, saved, goals, anim_rot, anim_trans, out_rot, out_trans, chain_err, active)
    if saved is not None and (show and (fits or not current) or current and fits):
        # A saved solution put back (restore_state): shown as it was, and this frame's
        # answer when it was solved for what the frame asks (else the next solve's start).
        if not fits:
            _fill(tables, saved, anim_rot, anim_trans, out_rot, out_trans)
            chain_err[:] = [float(saved.errors[n]) for n in tables.names]
        # Solved for another chain layout or limits, it is not even the next solve's start.
        made_for = tables if saved.warm_start else None
        rig._cache.body.warm = (out_rot, out_trans[root].copy(), made_for, dict(zip(tables.names, chain_err.tolist())),
                               *_solved_on(saved, anim_trans[root], anim_rot[root]))
        rot, trans = blend(tables, anim_rot, anim_trans, out_rot, out_trans, weights)
        if not (current and fits):
            key = None  # not its answer: the next solve runs
    elif active.any():
        if saved is not None and saved.warm_start:  # not their answer: the start of their solve, as the saved rig's would be
            rig._cache.body.warm = (np.asarray(saved.rotations, dtype=np.float64), np.asarray(saved.root, dtype=np.float64),
                                   tables, dict(saved.errors), *_solved_on(saved, anim_trans[root], anim_rot[root]))
        warm_rot, warm_root = _warm_start(rig, tables, anim_rot, anim_trans)
        lk, la, lb, lax = tables.lim
        mk, max_, mlo, mhi = tables.mid
        count = kernel().solve_row(
            tables.parents, anim_rot, anim_trans, warm_rot, warm_root, tables.order, tables.below, tables.child,
            tables.owner, lk, la, lb, lax, tables.kinds, tables.cs, tables.cj, goals, poles, has_pole, pulls, tols, clamps,
            softs, mk, max_, mlo, mhi, active, FULL_BODY_ITERATIONS, out_rot, out_trans, chain_err, errors, chain_errors,
        )  # fmt: skip
        rig._cache.body.warm = (out_rot, out_trans[root].copy(), tables, dict(zip(tables.names, chain_err.tolist())),
                               anim_trans[root].copy(), anim_rot[root].copy())
        rot, trans = blend(tables, anim_rot, anim_trans, out_rot, out_trans, weights)
    else:
        rot, trans = anim_rot.copy(), anim_trans.copy()
    rig._pose = Pose(rot, trans)
    rig._world_cache = None
    rig._cache.settled = None
    hist = tuple(errors[:count].tolist())
    reports = {}
    errs = chain_err.tolist()
    for c, n in enumerate(tables.names):
        if active[c]:
            e = errs[c]
            reports[n] = ChainReport(n, e, count, bool(e <= tols[c]), hist)
        else:
            reports[n] = ChainReport(n, math.nan, 0, False, ())
    rig._cache.body.last = None if key is None else (key, rig._pose, reports)
    rig._cache.body.curves = {n: tuple(chain_errors[:count, c].tolist()) for c, n in enumerate(tables.names)}
    return reports


def chain_curve(rig, name: str) -> tuple[float, ...] | None:
    """A chain's own tip error after each pass of the last full-body solve (None: it was not
    in one): what a chain's error plot shows under full body, where its report's `errors`
    are the whole body's."""
    curves = rig._cache.body.curves
    return None if curves is None or not rig.full_body else curves.get(name)


def _warm_start(rig, tables, anim_rot, anim_trans):
    """(rotations, root translation) the solve starts from: the last solve's rotations where
    the solver turns joints, the animated pose everywhere else (a clip moves the shoulders,
    fingers and toes). A clip that carries the body (a walk, a gait's path) carries the
    start's root with it: the last solve's offset from the animated root is kept, not its
    place, or the body would stay behind and only the anchors would drag it along."""
    root = tables.root
    warm = rig._cache.body.warm
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


def exported(rig, anim) -> FullBodySolution | None:
    """The last full-body result as data (None: never solved with full body on), `current`
    when a solve now (on the animated frame `anim`) would take it as its answer."""
    tables = _tables(rig)
    key = _key(rig, anim, tables)
    now = _signature(rig, key)
    pending = rig._cache.body.pending
    if pending is not None:
        saved, then = pending
        current, start = then == now, saved.warm_start and then is not None and then[1] == now[1]
    else:
        warm = rig._cache.body.warm
        if warm is None:
            return None
        last = rig._cache.body.last
        current = last is not None and rig._pose is last[1] and last[0] == key
        anim_root = tuple(warm[4].tolist()) + tuple(warm[5].tolist())
        saved, start = FullBodySolution(warm[0], warm[1], warm[3], anim_root=anim_root), warm[2] is tables
    if saved.current == current and saved.warm_start == start:
        return saved
    return FullBodySolution(saved.rotations, saved.root, saved.errors, current, start, saved.anim_root)


def _solved_on(saved: FullBodySolution, anim_trans, anim_rot) -> tuple:
    """The animated root (translation, rotation) a saved solution was solved over (the warm
    start's anchor: _warm_start), or this frame's for one that does not say (older files)."""
    if saved.anim_root is None:
        return anim_trans.copy(), anim_rot.copy()
    return np.array(saved.anim_root[:3], dtype=np.float64), np.array(saved.anim_root[3:], dtype=np.float64)


def put_back(rig, saved: FullBodySolution | None, anim) -> None:
    """The next full-body solve takes `saved` as its result while it is current (solved for
    the goals and settings the rig has now, on the animated frame `anim`) and fits its
    goals (_fits), else starts from it; None forgets the full-body warm start."""
    rig._cache.body.warm = None
    rig._cache.body.last = None
    if saved is None:
        rig._cache.body.pending = None
    else:
        then = _signature(rig, _key(rig, anim, _tables(rig)))
        if not saved.current:  # its settings are not these: equal to no signature
            then = (then[0], then[1], None, None)
        rig._cache.body.pending = (saved, then)


def _usable(saved, tables, anim_rot) -> bool:
    """A saved solution of this rig's shape: one unit rotation per joint, a root, finite,
    an error for each chain of the solve."""
    rot, root = np.asarray(saved.rotations, dtype=np.float64), np.asarray(saved.root, dtype=np.float64)
    if rot.shape != anim_rot.shape or root.shape != (3,) or set(saved.errors) != set(tables.names):
        return False
    if not (np.isfinite(rot).all() and np.isfinite(root).all()):
        return False
    return bool(np.all(np.abs(np.einsum("ij,ij->i", rot, rot) - 1.0) <= 2e-9))


def _fits(rig, tables, saved, goals, anim_rot, anim_trans, out_rot, out_trans, chain_err, active) -> bool:
    """Whether a usable saved solution fits this frame: each chain's tip as far from its
    goal as the saved error says (FIT_M, as a chain's saved solution must; a goal or bone
    edited since makes it the next solve's start instead). Fills the outputs (solved joints
    from the saved rotations, the rest animated) as it checks."""
    _fill(tables, saved, anim_rot, anim_trans, out_rot, out_trans)
    world = rig._skeleton.fk_matrices(Pose(out_rot, out_trans))[0]
    for c, name in enumerate(tables.names):
        if not active[c]:  # at weight 0 it took no part: its saved error is the solve's 0
            chain_err[c] = float(saved.errors[name])
            continue
        tip = world[tables.chain_joints[c][-1]]
        chain_err[c] = float(np.linalg.norm(tip - goals[c]))
        size = 1.0 + float(np.linalg.norm(world[tables.chain_joints[c][0]] - goals[c]))
        if not abs(chain_err[c] - float(saved.errors[name])) <= FIT_M * size:
            return False
    return True


def _fill(tables, saved, anim_rot, anim_trans, out_rot, out_trans) -> None:
    """The solved pose of a saved solution: its rotations on the joints the solve turns,
    its root's translation, the animated pose everywhere else."""
    rot, root = np.asarray(saved.rotations, dtype=np.float64), np.asarray(saved.root, dtype=np.float64)
    out_rot[:] = anim_rot
    out_rot[tables.solved] = rot[tables.solved]
    out_trans[:] = anim_trans
    out_trans[tables.root] = root


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


def solve_batch(rig, goals: dict, *, rotations=None, translations=None):
    """Full-body IK for many frames at once (the kernel's solve_rows, rows in parallel):
    `goals` maps chain name -> (N, 3) goals (chains not named keep their target); each row
    starts cold from the animated pose, or from the animated frames `rotations` (N, J, 4)
    and `translations` (N, J, 3) when given. Returns (rotations (N, J, 4), translations
    (N, J, 3), tip errors (N, C) in rig.chain_names order without look-at chains, passes
    (N,)): the solved pose of each row at weight 1."""
    tables = _tables(rig)
    placed = placed_goals(rig, animated(rig))
    _, poles, has_pole, pulls, tols, clamps, softs, active, _ = chain_arrays(rig, tables, placed)
    base = np.array([goal_and_pole(rig._chains[n], placed)[0] for n in tables.names], dtype=np.float64).reshape(-1, 3)
    rows = None
    for name, g in goals.items():
        if name not in tables.names:
            raise ValueError(f"no full-body chain named {name!r} (chains: {', '.join(tables.names)})")
        g = np.asarray(g, dtype=np.float64)
        if g.ndim != 2 or g.shape[1] != 3 or (rows is not None and g.shape[0] != rows):
            raise ValueError(f"goals[{name!r}] must be (N, 3) with one N for every chain, got shape {g.shape}")
        if not np.isfinite(g).all():
            raise ValueError(f"goals[{name!r}] must be finite")
        rows = g.shape[0]
    if rows is None:
        raise ValueError("goals must name at least one chain")
    G = np.repeat(base[None], rows, axis=0)
    for name, g in goals.items():
        G[:, tables.names.index(name)] = g
    if rotations is None:
        anim_rot, anim_trans = _anim_arrays(rig, animated(rig))
        R, T = np.repeat(anim_rot[None], rows, axis=0), np.repeat(anim_trans[None], rows, axis=0)
    else:
        R, T = np.ascontiguousarray(rotations, dtype=np.float64), np.ascontiguousarray(translations, dtype=np.float64)
        if R.shape != (rows, len(tables.parents), 4) or T.shape != (rows, len(tables.parents), 3):
            raise ValueError(f"rotations and translations must be ({rows}, {len(tables.parents)}, 4) and (..., 3)")
    lk, la, lb, lax = tables.lim
    mk, mx, mlo, mhi = tables.mid
    cap = FULL_BODY_ITERATIONS
    out_r, out_t = np.empty_like(R), np.empty_like(T)
    err, errors, its = np.empty((rows, len(tables.names))), np.empty((rows, cap)), np.empty(rows, np.int64)
    chain_errors = np.empty((rows, cap, len(tables.names)))
    kernel().solve_rows(
        tables.parents, R, T, R.copy(), T[:, tables.root].copy(), tables.order, tables.below, tables.child, tables.owner,
        lk, la, lb, lax, tables.kinds, tables.cs, tables.cj, G, np.repeat(poles[None], rows, axis=0), has_pole, pulls,
        tols, clamps, softs, mk, mx, mlo, mhi, active, cap, out_r, out_t, err, errors, chain_errors, its,
    )  # fmt: skip
    return out_r, out_t, err, its
