"""The rig's solve state, one declared object (RigState) the Rig owns: the pose it shows,
and what it keeps between solves (Rig.solve, rig_frame.py): each chain's warm start, so
that a chain whose inputs have not changed is not solved again, and the last settled
frame, so that a frame whose inputs all match it returns at once. The rig's modules
(rig_eval, rig_frame, rig_full_body, rig_goals, rig_anim, rig_match) read and write it
through `Rig.solve_state`; nothing else about a solve is kept anywhere.

Everything here is keyed by value (a chain state's SolveInputs, its limits as a value, the
rig's input version for the clip and ground), never by an object's identity. The records
made every frame are named tuples (see rig_chain.SolveInputs).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from .chain_settings import ChainReport
from .frame_pack import FrameState, FrameTables
from .rig_anim import AnimatedFrame
from .rig_chain import ChainState
from .skeleton import Pose, Skeleton


class SettledFrame(NamedTuple):
    """A solve that left every chain final: its inputs (the frame's tables, animated frame
    and input rows, rig_frame.py), the chain order and the reports, returned again while
    those inputs hold."""

    key: tuple
    order: tuple
    reports: dict


@dataclass(slots=True)
class BodyCache:
    """What the full-body solve (rig_full_body.py) keeps between frames, each replaced and
    never changed in place: its warm start (`warm`: rotations, root translation, the tables
    it was solved with or None, chain errors, the animated root's translation and rotation),
    a saved solution put back (`pending`: the solution and what it was solved for), the last
    answer (`last`: key, pose, reports), the per-pass chain errors (`curves`), and what is
    worked out once per layout or frame (`tables`, `roles`, `fixed`, `anim`, each with its key)."""

    warm: tuple | None = None
    pending: tuple | None = None
    last: tuple | None = None
    curves: dict | None = None
    tables: tuple | None = None
    roles: tuple | None = None
    fixed: tuple | None = None
    anim: tuple | None = None

    def has_start(self) -> bool:
        return self.warm is not None or self.pending is not None

    def forget_start(self) -> None:
        """Solve afresh from the animated pose (Rig.reset, IK/FK matching)."""
        self.warm = self.pending = None


@dataclass(slots=True)
class RigState:
    """The pose shown (`pose`: the last solve's, or one adopted; its world positions
    `world`, worked out on demand and dropped with it). Per chain, its last solve
    (`states`); the animated frame of the current clip and time (`anim`), the goals the
    frame placed (`goals`: grounded feet, follow-clip chains), and the last settled frame
    (`settled`).

    The compiled frame (rig_frame.py) keeps the chains' last solves as arrays (`frame`, a
    frame_pack.FrameState on the tables `tables`); `states` unpacks them into ChainStates
    when asked. Whoever changes the ChainStates in place drops the arrays (`drop_packed`)."""

    pose: Pose | None = None
    world: np.ndarray | None = None
    _states: dict[str, ChainState] = field(default_factory=dict)
    anim: AnimatedFrame | None = None
    goals: dict = field(default_factory=dict)  # the goals the last solve aimed at (rig_goals.py)
    settled: SettledFrame | None = None
    body: BodyCache = field(default_factory=BodyCache)
    frame: FrameState | None = None
    tables: FrameTables | None = None
    anim_rot: tuple | None = None  # (AnimatedFrame, its rotations as an array, its translations copied), for the compiled frame
    placed_rows: dict = field(default_factory=dict)  # chain -> (goal, pole, weight, sole, its packed input row), rig_frame.frame_rows

    def show(self, pose: Pose) -> None:
        """`pose` is the rig's pose now (a solve's, or one adopted)."""
        self.pose, self.world = pose, None

    def adopt(self, pose: Pose) -> None:
        """A pose solved elsewhere shown (Rig.pose = ...): the next solve writes its own again."""
        self.show(pose)
        self.settled = None

    def restart(self, pose: Pose) -> None:
        """Back to `pose` (the animated one), every warm start forgotten (Rig.reset)."""
        self.states = {}
        self.body.forget_start()
        self.show(pose)
        self.forget_frame()

    def world_positions(self, skeleton: Skeleton) -> np.ndarray:
        """The shown pose's joints' world positions (n, 3); the cached array, not a copy."""
        if self.world is None:
            self.world = skeleton.fk_matrices(self.pose)[0]
        return self.world

    @property
    def states(self) -> dict[str, ChainState]:
        frame = self.frame
        if frame is not None and frame.ahead:
            self._states = frame.unpack()
            frame.ahead = False
        return self._states

    @states.setter
    def states(self, value: dict[str, ChainState]) -> None:
        self._states, self.frame = value, None

    def drop_packed(self) -> dict[str, ChainState]:
        """The ChainStates, to change in place: the packed arrays are let go."""
        states = self.states
        self.frame = None
        return states

    def packed(self, tables: FrameTables) -> FrameState:
        """The chains' last solves packed for `tables`."""
        frame = self.frame
        if frame is not None and frame.tables is tables:
            return frame
        frame = FrameState(tables)
        frame.pack(self.drop_packed())
        self.frame = frame
        return frame

    def forget_frame(self) -> None:
        """What chains read has changed (structure, pose, saved states): the next solve is
        a full pass, warm-started from the states."""
        self.settled = None

    def forget_animation(self) -> None:
        """The clip or ground changed: the animated pose is read afresh too."""
        self.anim = self.settled = None

    def drop(self, name: str) -> None:
        self.drop_packed().pop(name, None)

    def copy(self) -> "RigState":
        """The pose and the warm starts (states are never changed in place), nothing about
        the last frame but the full-body solve's (shared: its parts are replaced, never
        changed)."""
        return RigState(pose=self.pose.copy(), _states=dict(self.states), body=replace(self.body))

    def report_idle(self) -> dict[str, ChainReport]:
        """The settled frame's reports as a solve that ran no pass gives them."""
        return {name: _idle(r) for name, r in self.settled.reports.items()}


def _idle(r: ChainReport) -> ChainReport:
    return r if r.iterations == 0 else ChainReport(r.name, r.error, 0, r.reached)  # no passes, no errors
