"""A full-body rig's saved solution (rig_pose.FullBodySolution): taken out as data
(`exported`, what a preset saves), put back (`put_back`, Rig.restore_state), and taken by
the next solve (`take_saved`): as its answer while it is current (solved for the goals and
settings the rig has now) and fits its goals, shown as it was by restore_state's frame, and
otherwise the start of the solve, as the saving rig's would be.
"""
from __future__ import annotations

import numpy as np

from .full_body_tables import signature, solve_key, tables_of
from .rig_pose import FIT_M, FullBodySolution
from .skeleton import Pose


def take_saved(rig, tables, key, goals, anim, out, active, show: bool) -> bool | None:
    """The saved solution put back, for this solve (`anim`: the animated rotations and
    translations; `out`: the solve's output rotations, translations and chain errors).
    None: there is none to show (a usable one that is not current became the solve's warm
    start); else it is shown, `out` filled, and True when it is this frame's answer."""
    body = rig.solve_state.body
    put = None
    if active.any():
        put, body.pending = body.pending, None
    anim_rot, anim_trans = anim
    saved, then = (None, None) if put is None else put
    if saved is None or not _usable(saved, tables, anim_rot):
        return None
    out_rot, out_trans, chain_err = out
    root = tables.root
    current = then == signature(rig, key)
    fits = _fits(rig, tables, saved, goals, anim_rot, anim_trans, out_rot, out_trans, chain_err, active)
    if show and (fits or not current) or current and fits:
        # Shown as it was, and this frame's answer when it was solved for what the frame
        # asks (else the next solve's start).
        if not fits:
            _fill(tables, saved, anim_rot, anim_trans, out_rot, out_trans)
            chain_err[:] = [float(saved.errors[n]) for n in tables.names]
        # Solved for another chain layout or limits, it is not even the next solve's start.
        made_for = tables if saved.warm_start else None
        body.warm = (out_rot, out_trans[root].copy(), made_for, dict(zip(tables.names, chain_err.tolist())),
                     *_solved_on(saved, anim_trans[root], anim_rot[root]))  # fmt: skip
        return current and fits
    if saved.warm_start:  # not their answer: the start of their solve, as the saved rig's would be
        body.warm = (np.asarray(saved.rotations, dtype=np.float64), np.asarray(saved.root, dtype=np.float64),
                     tables, dict(saved.errors), *_solved_on(saved, anim_trans[root], anim_rot[root]))  # fmt: skip
    return None


def exported(rig, anim) -> FullBodySolution | None:
    """The last full-body result as data (None: never solved with full body on), `current`
    when a solve now (on the animated frame `anim`) would take it as its answer."""
    tables = tables_of(rig)
    key = solve_key(rig, anim, tables)
    now = signature(rig, key)
    pending = rig.solve_state.body.pending
    if pending is not None:
        saved, then = pending
        current, start = then == now, saved.warm_start and then is not None and then[1] == now[1]
    else:
        warm = rig.solve_state.body.warm
        if warm is None:
            return None
        last = rig.solve_state.body.last
        current = last is not None and rig.solve_state.pose is last[1] and last[0] == key
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
    rig.solve_state.body.warm = None
    rig.solve_state.body.last = None
    if saved is None:
        rig.solve_state.body.pending = None
    else:
        then = signature(rig, solve_key(rig, anim, tables_of(rig)))
        if not saved.current:  # its settings are not these: equal to no signature
            then = (then[0], then[1], None, None)
        rig.solve_state.body.pending = (saved, then)


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
    world = rig.skeleton.fk_matrices(Pose(out_rot, out_trans))[0]
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


