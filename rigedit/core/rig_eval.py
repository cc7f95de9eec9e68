"""One frame of a rig solved (Rig.solve delegates here): order, warm start, blend, write-back.

Start from the animated pose (the clip at `time`, or the rest pose, the body put on the
ground); for each chain in order, find the world transform of the chain root's parent in
the pose built so far (so an arm sees the solved spine), warm-start the solver from the
chain's OWN last IK solution (its local rotations put back on the current parent), turn
each bone of that warm start toward the solved positions by the shortest arc (rig_solve.py),
and slerp those IK rotations with the pose's by the chain's weight; then grounded feet take
their soles' rotations. The chain walk is plain floats: a full FK per chain would cost more
than the solvers. What is kept between frames is the rig's RigState (rig_state.py).

Every frame goes to one compiled call first (rig_frame.py, docs/ARCHITECTURE.md, core: one
frame evaluation); this walk takes only what that call hands back: a saved solution being
shown or placed (Rig.restore_state), input a solver refuses (raised here with the solver's
own message), and a rig while `RigState.skip` says so (tests compare the two, which agree
to round-off). The goals are the frame's (rig_goals.py), never written into the chains.
"""
from __future__ import annotations

import math
from itertools import chain as concat

import numpy as np

from . import scalar_quat as sq
from .chain import Chain
from .chain_settings import ChainReport, report
from .rig_anim import animated
from .rig_goals import goal_and_pole, placed_goals
from .rig_ground import turn_soles
from .rig_state import ChainOutput, SettledFrame
from .rig_frame import compiled_frame, frame_rows
from .rig_full_body import solve_frame as full_body_frame
from .rig_chain import ChainState, SolveInputs, make, solve_chain, solve_settings
from .rig_limb import solve_limb
from .rig_pose import PendingState, placed
from .rig_solve import ChainSetup, world_of
from .rig_uses import look_at_rotations
from .skeleton import Pose
from .transforms import quat_slerp


def solve_frame(rig, show: frozenset | None = None) -> dict[str, ChainReport]:
    """Rig.solve: every chain in order, each blended by its weight before the next one
    looks at the pose; the result becomes the rig's pose. Returns chain name -> ChainReport.

    A chain whose inputs (its settings and the pose above it) are those of its last solve
    is not solved again, unless FABRIK was still short of the target (it gets another
    warm-started go); a frame whose inputs all match the last settled one returns at once.

    `show` (Rig.restore_state): a saved solution put back is shown as it was, not solved,
    and stays the state it was for the next solve to go on from (rig_pose.py); the chains
    named in `show` had none saved (the saving rig had not solved them) and are left as
    animated until the next solve."""
    anim = animated(rig)
    # This frame's goals (rig_goals.py): grounded feet and follow-clip chains aim where the
    # frame places them; the chains themselves are not written.
    placed = placed_goals(rig, anim)
    if rig.full_body:  # issue 16: every chain together (rig_full_body.py)
        return full_body_frame(rig, anim, show is not None)
    if show is None:
        got = compiled_frame(rig, anim, placed, report)  # the usual frame, in one compiled call
        if got is not None:
            return got
    cache = rig.solve_state
    chains = rig.chains_by_name
    settled_frame = cache.settled
    key = None  # made only to compare with a settled frame, or to be one
    if settled_frame is not None:
        key = frame_key(rig, placed)
        if settled_frame.key == key and tuple(chains) == settled_frame.order:
            return cache.report_idle()
    f = _Frame(rig, anim, placed, show)
    reports = {}
    settled = True
    for name, ch in chains.items():
        plan = f.plans[name]
        if not ch.kind.reaches:  # aimed afresh over the pose built so far
            reports[name] = _solve_look_at(rig, ch, plan, f.rot, f.trans, f.world, f.outputs)
        elif show is not None and name in show:
            # Nothing saved to show and the rig that saved had not solved it either: its
            # first solve is the next one, from the pose built then, as that rig's would be.
            reports[name] = report(name, math.nan, 0, False)
        else:
            errors: list = []
            state, iterations = _reaching(f, name, ch, plan, errors)
            settled = settled and state.final
            reports[name] = report(name, state.error, iterations, state.reached, tuple(errors))
    if rig.ground is not None and anim.soles:
        turn_soles(rig, anim.soles, f.rot, f.trans, f.world)
    cache.outputs, cache.outputs_key = f.outputs, anim.key
    if show is not None:
        # Shown, not solved: the next solve finds every base afresh and compares it with
        # the base each saved solution stood on, as the saving rig's would.
        cache.outputs, cache.outputs_key, settled = {}, None, False
    # fromiter over the flattened tuples: half the cost of np.array on a list of tuples.
    flat = np.fromiter(concat.from_iterable(f.rot), np.float64, 4 * len(f.rot)).reshape(-1, 4)
    cache.show(Pose(flat, anim.translations.copy()))
    cache.settled = make(SettledFrame, (key or frame_key(rig, placed), tuple(chains), reports)) if settled else None
    return reports


class _Frame:
    """One walk over a frame's chains: the pose built so far (`rot` as float tuples, and
    `world`, the world transforms worked out of it, None where stale), the chains' states
    and setups (the rig's RigState's), what the last frame's solve left per chain
    (`before`: its state, the weight it blended with and the rotations it wrote; valid on
    the same animated frame) and what this one leaves (`outputs`)."""

    __slots__ = ("rig", "placed", "show", "trans", "rot", "world", "parents", "plans", "states", "setups", "before",
                 "outputs")  # fmt: skip

    def __init__(self, rig, anim, placed: dict, show: frozenset | None) -> None:
        cache = rig.solve_state
        self.rig, self.placed, self.show, self.trans = rig, placed, show, anim.trans
        self.rot = list(anim.rot)  # the chains write into it; the cached animated lists stay as they are
        self.world: list = [None] * len(self.rot)
        self.parents, self.plans = rig.parents, rig.plans
        self.states, self.setups = cache.drop_packed(), cache.setups
        # A chain whose settings, animation and upstream chains are all as they were can
        # take its rotations from `before` without looking at the pose.
        self.before = cache.outputs if cache.outputs_key == anim.key else {}
        self.outputs: dict[str, ChainOutput] = {}


def _reaching(f: _Frame, name: str, ch: Chain, plan, errors: list) -> tuple:
    """A reaching chain of the walk: solved (or its last solve kept), blended by its
    weight into the pose built so far. Returns (its state, the passes run)."""
    idx, rot, world = plan.idx, f.rot, f.world
    last, kept = f.states.get(name), f.before.get(name)
    w = ch.weight
    # rig_chain.solve_settings(ch), inline: per chain per frame.
    got = f.placed.get(name) if f.placed else None  # rig_goals.goal_and_pole, inline
    goal, pole = (ch.own_target, ch.own_pole) if got is None else got
    settings = (ch.solver, goal, pole, ch.tolerance, ch.max_iterations, ch.reach_clamp, ch.softness)
    # Its base is as last solved: same state, nothing upstream rewritten.
    based = last is not None and kept is not None and kept.state is last
    if based:
        for u in plan.upstream:  # a loop, not all() over a generator: per chain per frame
            if not f.outputs[u].unchanged:
                based = False
                break
    limits = ch.limit_key
    if based and last.final and (last.limits is limits or last.limits == limits) and last.inputs.settings == settings:
        # Nothing it reads has moved: same state, and the same rotations if the weight is too
        # (then last frame's record, if it was already unchanged, is this frame's too).
        state, iterations = last, 0
        written = kept.written if kept.weight == w else None
        output = kept if written is not None and kept.unchanged else None
    else:
        state, iterations = _solve(f, name, ch, plan, last, kept, based, settings, errors)
        written = output = None
    if written is None:
        if w == 0.0:
            written = ()
        elif w == 1.0:
            written = state.ik
        else:  # quat_slerp gives its ends exactly, so 0 and 1 need no call
            current = np.array([rot[j] for j in idx[:-1]])
            written = [tuple(q) for q in quat_slerp(current, np.array(state.ik), w).tolist()]
    f.outputs[name] = output or make(ChainOutput, (state, w, written, kept is not None and kept.written is written))
    if written:
        for j, q in zip(idx, written):
            rot[j] = q
        for span, nones in plan.stale:
            world[span] = nones
        if plan.feeds and w == 1.0 and state.start is not None:
            _hand_on(world, idx, state.start)
    return state, iterations


def _solve(f: _Frame, name: str, ch: Chain, plan, last, kept, based: bool, settings: tuple, errors: list) -> tuple:
    """A reaching chain whose inputs moved: its base found (or kept), its saved solution
    placed, and solved unless its inputs are those of a final solve. (state, passes)."""
    idx, trans = plan.idx, f.trans
    if based:
        inputs = last.inputs  # its settings changed, its base did not
        base_pos, base_rot, offsets = inputs.base_pos, inputs.base_rot, inputs.offsets
    else:
        if plan.parent >= 0:
            base_pos, base_rot = world_of(plan.parent, f.parents, f.rot, trans, f.world)
        else:
            base_pos, base_rot = sq.ZERO, sq.IDENTITY
        if last is not None and kept is not None and kept.state is last and last.inputs is not None:
            # Last frame's, on this same animated frame (`before` says so): the same
            # offsets, without a new list.
            offsets = last.inputs.offsets
        else:
            offsets = [trans[j] for j in idx]
    inputs = make(SolveInputs, (base_pos, base_rot, offsets, settings))
    restored = type(last) is PendingState
    if restored:  # a saved solution put back (restore_state): the state the saving rig had
        last = _place(f.rig.solve_state, name, ch, last, inputs, offsets)
        restored = f.show is not None and last is not None
    limits = ch.limit_key
    same = last is not None and (last.limits is limits or last.limits == limits) and last.inputs == inputs
    if restored or (same and last.final):
        return last, 0  # same inputs, same answer (or shown as saved)
    # Following the clip: start from the animated pose, not the last solve, so a goal on
    # the animated tip gives the clip back and twist follows the clip.
    start = None if ch.follow_clip and f.rig.clip is not None else last
    warm = start.ik if start is not None else [f.rot[j] for j in idx[:-1]]
    setup = f.setups.get(name)
    if setup is None or not setup.fits(ch, offsets):
        setup = f.setups[name] = ChainSetup(ch, offsets)
    if ch.kind.method.limb and (start is None or start.start is None):
        # solve_chain's two-bone branch in one pass (rig_limb.py): closed form, so final,
        # and no warm start of its own to keep.
        ik, error, _ = solve_limb(
            settings[1], settings[2], ch.tolerance, ch.reach_clamp, ch.softness, setup.total, setup.mid_limit,
            base_pos, base_rot, offsets, warm, setup.limb_row(ch),
        )  # fmt: skip
        state, iterations = ChainState(ik, inputs, limits, error, error <= ch.tolerance, True), 0
    else:
        state, iterations = solve_chain(
            ch, setup, base_pos, base_rot, offsets, start, warm, inputs, last if same else None, errors, (f.rot, idx),
        )  # fmt: skip
    f.states[name] = state
    return state, iterations


def solved_for_now(rig) -> dict[str, tuple]:
    """Each chain's (offsets, settings, limits) as a solve now would read them: what a
    saved solution is compared with to say whether it is current (rig_pose.py)."""
    anim = animated(rig)
    trans, placed, plans = anim.trans, placed_goals(rig, anim), rig.plans
    return {
        name: ([trans[j] for j in plans[name].idx], solve_settings(ch, *goal_and_pole(ch, placed)), ch.limit_key)
        for name, ch in rig.chains_by_name.items()
    }


def _hand_on(world: list, idx: list, start) -> None:
    """A limited FABRIK chain's world transforms, from its solve, into the frame's world
    cache: its points and its bones' world frames (start: the LimitedWarm it left) are its
    joints' world positions and rotations in the pose it wrote (weight 1), to round-off. A
    chain below it (an arm under the spine) then finds its base there instead of walking up
    the spine and to the hips again in Python floats (~0.7 us a joint)."""
    points, frames = start.points.tolist(), start.frames.tolist()
    for k in range(len(idx) - 1):
        world[idx[k]] = (tuple(points[k]), tuple(frames[k]))


def frame_key(rig, placed: dict) -> tuple:
    """Everything a frame's solve reads besides the chains' own states (solving does not
    change any of it); `placed`: the goals the frame places (rig_goals.placed_goals). Read
    off the rig's FrameBoard, as the compiled frame reads it: the chains' stamps (new
    whenever a setting the solve reads changes) and their goal, pole and weight rows,
    the frame's goals standing in for the placed chains' own."""
    board = rig.frame_board
    return rig.animation_key, tuple(board.stamps), frame_rows(rig, placed)


def _place(cache, name: str, ch: Chain, last: ChainState, inputs: SolveInputs, offsets: list) -> ChainState | None:
    setup = cache.setups.get(name)
    if setup is None or not setup.fits(ch, offsets):
        setup = cache.setups[name] = ChainSetup(ch, offsets)
    state = placed(last, ch, inputs, setup)
    if state is None:
        del cache.states[name]
    else:
        cache.states[name] = state
    return state


def _solve_look_at(rig, ch: Chain, plan, rot: list, trans: list, world: list, outputs: dict) -> ChainReport:
    """A look_at chain: aimed over the pose built so far, blended by weight like the
    other kinds (0 leaves the pose exactly as it came), solved afresh every time (it is
    closed-form, so there is no warm start to keep)."""
    idx, w = plan.idx, ch.weight
    aimed, miss = look_at_rotations(rig.skeleton, ch, idx, rot, trans)
    if w == 0.0:
        written = ()
    elif w == 1.0:
        written = aimed
    else:
        current = np.array([rot[j] for j in idx])
        written = [tuple(q) for q in quat_slerp(current, np.array(aimed), w).tolist()]
    outputs[ch.name] = make(ChainOutput, (None, w, written, False))
    if written:
        for j, q in zip(idx, written):
            rot[j] = q
        for span, nones in plan.stale:
            world[span] = nones
    return report(ch.name, miss, 0, miss <= ch.tolerance)
