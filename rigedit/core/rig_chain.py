"""One chain of a rig solved for a frame, warm-started from its own last solve.

Rig.solve walks its chains in order and hands each changed one to `solve_chain`, with the
chain's base (the world transform of its root's parent in the pose built so far), its
joints' offsets, its last state and the local rotations to start from. The two-bone limb's
usual case skips this (rig_limb.py, one compiled call); everything else comes here: FABRIK,
limited or not, and a two-bone chain whose last solve left a limited warm start.
"""
from __future__ import annotations

from typing import NamedTuple

from . import scalar_quat as sq
from .chain import Chain
from .ik.chain_frames import PreparedLimits
from .ik.fabrik import tip_of
from .ik.frame_codes import STALL_GAIN
from .ik.soft import effective_target_float
from .bone_turns import chain_pose, local_turns
from .rig_solve import ChainSetup, fabrik_warm, turned_locals


# Named tuples, not frozen dataclasses: as immutable and named, compared by value, and made
# and compared once per chain per frame at a fraction of the cost (frozen dataclasses cost
# 5-12% of a drag frame). The solve loop makes them with `make` (tuple.__new__ on the
# fields in order), which skips the generated __new__'s Python call.
make = tuple.__new__


class SolveInputs(NamedTuple):
    """What a chain was solved for: the world transform of its root's parent, its joints'
    offsets and its settings (solver, target, pole, tolerance, max_iterations, reach_clamp,
    softness; rig_eval's order). Compared by value: the same inputs give the same answer."""

    base_pos: tuple
    base_rot: tuple
    offsets: list
    settings: tuple


class LimitedWarm(NamedTuple):
    """A limited FABRIK result as the next warm start: the base and offsets it was solved
    on, its points, its bones' world frames and its PreparedLimits there."""

    base_pos: tuple
    base_rot: tuple
    offsets: list
    points: object
    frames: object
    prepared: PreparedLimits


class ChainState:
    """A chain's last solve: its IK local rotations (all joints but the tip), what it was
    solved for (`inputs`, and its limits as Chain.limit_key), and whether solving the same
    again could change anything (`final`: reached, closed-form, or FABRIK no longer getting
    closer), so an unchanged chain is not solved again; `start` is a limited FABRIK
    result's LimitedWarm, or None."""

    __slots__ = ("ik", "inputs", "limits", "error", "reached", "final", "start")

    def __init__(
        self, ik: list, inputs: SolveInputs | None, limits, error: float, reached: bool, final: bool,
        start: LimitedWarm | None = None,
    ) -> None:
        self.ik, self.inputs, self.limits, self.error, self.reached, self.final = ik, inputs, limits, error, reached, final
        self.start = start


def solve_settings(ch: Chain, goal, pole) -> tuple:
    """The settings a chain's solve reads (SolveInputs.settings), in their order: `goal` and
    `pole` are the frame's (rig_goals.goal_and_pole)."""
    return (ch.solver, goal, pole, ch.tolerance, ch.max_iterations, ch.reach_clamp, ch.softness)


# FABRIK short of its target is solved again on the next frame, warm-started, until a solve of
# unchanged inputs gains less than STALL_GAIN (ik/frame_codes.py) of its error: then it has
# stalled (out of reach, or held by its limits) and is left alone until something changes.


def solve_chain(
    ch: Chain,
    setup: ChainSetup,
    base_pos,
    base_rot,
    offsets: list,
    warm_state: ChainState | None,
    warm: list,
    inputs: SolveInputs,
    previous: ChainState | None,
    errors: list,
    cold=None,
) -> tuple[ChainState, int]:
    """Solve one chain from `warm` (the local rotations of `warm_state`, its last solve, or
    of the animated pose); `previous` is its last state when the inputs are unchanged;
    FABRIK's error after each pass goes to `errors`. `cold`: (rotations, joint indices) of
    the pose built so far, the animated pose under this chain, for a limited FABRIK chain
    whose warm start stalls short of a target in reach once its inputs hold still: its
    frames, carried from frame to frame, may have twisted so that its hinges cannot bend
    toward the target any more (the passes cannot untwist them), and a solve from the
    animated pose, where a target it reached before is reached again, is tried too; the
    nearer one is kept."""
    aims = inputs.settings[1:3]  # the frame's goal and pole (rig_goals.py)
    ik, error, iterations, start, stalled = _solve(ch, setup, base_pos, base_rot, offsets, warm_state, warm, errors, aims)
    if stalled and cold is not None and previous is not None and warm_state is not None:
        # Only once the inputs hold still (`previous`: a drag has stopped), so a drag pays
        # for one solve a frame.
        rot, idx = cold
        again: list = []
        got = _solve(ch, setup, base_pos, base_rot, offsets, None, [rot[j] for j in idx[:-1]], again, aims)
        if got[1] > ch.tolerance:
            # A cold start is often a straight bind pose that a first solve only unbends;
            # one warm solve on from it, as the next frame would make.
            on: list = []
            state = ChainState(got[0], inputs, ch.limit_key, got[1], False, False, got[3])
            more = _solve(ch, setup, base_pos, base_rot, offsets, state, got[0], on, aims)
            if more[1] < got[1]:
                got, again = more[:2] + (got[2] + more[2],) + more[3:], again + on
        if got[1] < error:  # nearer: the next solves go on from there
            ik, error, iterations, start = got[:4]
            errors[:] = again
    reached = error <= ch.tolerance
    final = ch.kind.method.final(reached, iterations)
    if previous is not None and error >= previous.error * (1.0 - STALL_GAIN):
        final = True
    return ChainState(ik, inputs, ch.limit_key, error, reached, final, start), iterations


def _solve(ch, setup, base_pos, base_rot, offsets, warm_state, warm, errors, aims):
    """solve_chain's solve from one start toward `aims` (the frame's goal and pole): (local
    rotations, error, iterations, next warm start, whether a limited FABRIK solve stopped
    short of an aim within reach before its iteration cap)."""
    goal, pole = aims
    start = None
    if warm_state is not None:
        limits = warm_state.limits
        if limits is ch.limit_key or limits == ch.limit_key:
            start = warm_state.start
    if start is not None and start.base_pos == base_pos and start.base_rot == base_rot and start.offsets == offsets:
        # The chain's own last limited result, on the same base: its points, frames and
        # limit directions are where that solve left them (no FK, no limits to prepare).
        points, frames, prepared = start.points, start.frames, start.prepared
    else:
        points, frames = chain_pose(base_pos, base_rot, offsets, warm)
        start = prepared = None
    if prepared is not None:
        # The frame-to-frame case: the general path below in one compiled call, which also
        # aims (reach clamp, soft IK) and measures what the stall check reads.
        tol, cap, total = ch.tolerance, ch.max_iterations, setup.total
        solved, iterations, ik, moved, error, to_aim, span = fabrik_warm(
            goal, tol, cap, base_rot, points, frames, prepared, errors, pole, (total, ch.reach_clamp, ch.softness),
            ch.kind.method.limited,
        )
        if moved is not None:
            start = make(LimitedWarm, (base_pos, base_rot, offsets) + moved)
        stalled = error > tol and 0 < iterations < cap and to_aim > tol and span <= total
        return (warm if ik is None else ik), error, iterations, start, stalled
    target = aim = goal
    if ch.reach_clamp < 1.0 or ch.softness > 0.0:  # rig_uses.reach_is_plain, inline
        # The reach clamp / soft IK move the target the solver aims at; the error stays
        # measured against the real target, so an out-of-reach target still shows.
        root = points[0] if type(points) is list else tuple(points[0].tolist())  # a limited start is an array
        aim = effective_target_float(root, target, setup.total, ch.reach_clamp, ch.softness)
    ik = None
    # The solver's own step (its registry entry's method): the closed form, or passes of
    # its step through the shared loop; here there is no limited warm start (prepared None).
    root_dir = sq.qrot(base_rot, offsets[0]) if setup.root_limited else None
    solved, twists, iterations, prep, result = ch.kind.method.solve(
        aim, pole, ch.tolerance, ch.max_iterations, setup, base_rot, points, frames, root_dir, errors
    )
    start = None
    if result is not None:
        # Limited: the forward pass carried each bone's frame turn; those turns are the
        # write-back (turned_locals), and the result is the next warm start's pose.
        pts, axes, dirs, turns = result
        if turns is None:
            ik, world = warm, frames
        else:
            ik, world = turned_locals(base_rot, frames, turns)
        ready = PreparedLimits(prep.kinds, prep.params, dirs, axes, prep.root_dir, None, prep.lengths, prep.packed)
        start = make(LimitedWarm, (base_pos, base_rot, offsets, pts, world, ready))
    if ik is None:
        ik = warm if solved is points else local_turns(base_rot, warm, offsets, solved, twists)
    tip = tip_of(solved)
    error = sq.dist(tip, target)
    stalled = False
    if error > ch.tolerance and 0 < iterations < ch.max_iterations and ch.limits and ch.kind.method.warm_limited:
        stalled = sq.dist(tip, aim) > ch.tolerance and sq.dist(tip_of(solved[:1]), aim) <= setup.total
    return ik, error, iterations, start, stalled
