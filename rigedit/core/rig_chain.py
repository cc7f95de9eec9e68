"""What a chain's solve leaves in the rig (RigState.states): its last solution with what it
was solved for (ChainState, SolveInputs) and a limited loop solver's own warm start
(LimitedWarm). The compiled frame keeps them as arrays (frame_pack.FrameState) and they are
made from those when Python asks: to save a rig (rig_pose.py), to copy it, to put a saved
one back.
"""
from __future__ import annotations

from typing import NamedTuple

from .chain import Chain
from .ik.chain_frames import PreparedLimits


# Named tuples, not frozen dataclasses: as immutable and named, compared by value, and made
# and compared once per chain per frame at a fraction of the cost (frozen dataclasses cost
# 5-12% of a drag frame). The solve loop makes them with `make` (tuple.__new__ on the
# fields in order), which skips the generated __new__'s Python call.
make = tuple.__new__


class SolveInputs(NamedTuple):
    """What a chain was solved for: the world transform of its root's parent, its joints'
    offsets and its settings (solver, target, pole, tolerance, max_iterations, reach_clamp,
    softness; solve_settings' order). Compared by value: the same inputs give the same answer."""

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
