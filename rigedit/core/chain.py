"""An IK chain of a rig: its joints and its settings, each validated on set.

The settings as one value, their checks and the solve report are chain_settings.py's; how
a setting is declared (a validated property) chain_fields.py's; where the chain aims (its
own goal, or the clip's) chain_goal.py's. The rig that holds a chain joins it (`join`): that
gives the chain the checks that need the skeleton, where follow-clip goals come from and its
role's pull; `leave` undoes it.
"""
from __future__ import annotations

from operator import attrgetter
from types import MappingProxyType
from typing import Callable, Iterable, Mapping

from .chain_checks import (
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_TOLERANCE,
    _pairs,
    check_bool,
    check_joints,
    check_limits,
    check_max_iterations,
    check_solver,
    check_solver_fits,
    check_tolerance,
    check_weight,
    fmt,
)
from .chain_settings import ChainReport, ChainSettings, LimitFitError  # noqa: F401 (rigedit.core.chain's API)
from .chain_fields import STAMPS, optional, setting
from .chain_goal import ChainGoal
from .clip_goals import offset_curve
from .chain_uses import DEFAULT_REACH_CLAMP, DEFAULT_SOFTNESS, LookAtSettings, check_look_at, check_reach_clamp, check_softness
from .field_error import FieldError
from .ik import registry
from .ik.frame_codes import input_row
from .ik.limits import Limit


class Chain(ChainGoal):
    """An IK chain of a rig: joint names root to tip plus validated solver settings.

    Every setter validates and raises ValueError naming the chain and the field, and leaves
    the old value in place; arrays handed out are read-only copies, so no NaN can sneak in.
    """

    # The settings (apply), a new number whenever one the rig's compiled frame packs changes
    # (`_stamp`: rig_frame.py compares it rather than every setting, every frame), and what
    # the rig that holds the chain gives it (join): the checks that need its skeleton
    # (rig_plan.LimitFit), where follow-clip goals come from (clip_goals.ClipGoals) and the
    # pull of its role (rig_full_body.default_pull). `_frame`: what the compiled frame's
    # walk reads of the chain every frame, made again by every setter (_changed), which
    # also writes it into the rig's FrameBoard at the chain's place (`_seat`: board, index).
    __slots__ = (
        "_name", "_joints", "_solver", "_kind", "_target", "_pole", "_tolerance", "_max_iterations", "_weight",
        "_limits", "_limit_key", "_reach_clamp", "_softness", "_look_at", "_ground_feet", "_follow_clip",
        "_offset_keys", "_offsets", "_pull", "_stamp", "_goals", "_fit", "_role_pull", "_frame", "_seat",
    )  # fmt: skip

    def __init__(self, name: str, joints: Iterable[str], *, target, solver: str = "fabrik", pole=None,
                 tolerance: float = DEFAULT_TOLERANCE, max_iterations: int = DEFAULT_MAX_ITERATIONS, weight: float = 1.0,
                 limits: Mapping[str, Limit] | None = None, reach_clamp: float = DEFAULT_REACH_CLAMP,
                 softness: float = DEFAULT_SOFTNESS, look_at: LookAtSettings | None = None, ground_feet: bool = False,
                 follow_clip: bool = False, offset_keys=(), pull: float | None = None) -> None:  # fmt: skip
        if not isinstance(name, str) or not name:
            raise ValueError(f"chain name must be a non-empty string, got {fmt(name)}")
        self._name = name
        try:
            self._joints = check_joints(joints)
        except FieldError as e:
            raise ValueError(f"chain {name!r}: {e.problem}") from None
        for slot in Chain.__slots__[2:]:  # the settings, set by apply; the rig's part, by join
            setattr(self, slot, None)
        self._stamp = 0
        self.apply(ChainSettings(
            solver=solver, target=target, pole=pole, tolerance=tolerance, max_iterations=max_iterations, weight=weight,
            limits=tuple((limits or {}).items()), reach_clamp=reach_clamp, softness=softness,
            look_at=look_at if look_at is not None else LookAtSettings(), ground_feet=ground_feet,
            follow_clip=follow_clip, offset_keys=offset_keys, pull=pull,
        ))  # fmt: skip

    # --- in a rig ------------------------------------------------------------------------

    def join(self, fit: Callable[[str, Mapping[str, Limit]], None], goals, role_pull: Callable[[str], float],
             *, checked: bool = False) -> None:  # fmt: skip
        """Taken into a rig: `fit` checks a solver and limits against its skeleton (raising
        LimitFitError), `goals` places follow-clip goals, `role_pull` gives its role's pull.
        The current settings are checked by `fit` first (unless `checked`: a copy of a chain
        that passed it); if they fail, nothing is joined."""
        if not checked:
            self._check_fit(self._solver, self._limits, fit)
        self._fit, self._goals, self._role_pull = fit, goals, role_pull

    def leave(self) -> None:
        """Out of its rig: its goal is absolute from now on, the one it had there."""
        self._seat = None
        if self._following():
            self._target, self._pole = self._goal(), self._pole_now()
            self._changed(False)
        self._fit = self._goals = self._role_pull = None

    @property
    def in_rig(self) -> bool:
        """Whether a rig holds this chain now (seated on its FrameBoard): one rig at a time,
        as a chain's setters keep only that rig's board (RigChains.insert refuses another)."""
        return self._seat is not None

    def seat(self, board, i: int) -> None:
        """Keep entry `i` of the rig's FrameBoard (frame_board.py) as this chain's, now and
        from every setter on (RigChains seats its chains whenever their order changes)."""
        self._seat = (board, i)
        board.put(i, self._stamp, self._frame[2])

    def _fail(self, field: str, err: ValueError) -> ValueError:
        return ValueError(f"chain {self._name!r}: {field} {err}")

    def _check_fit(self, solver: str, limits: Mapping[str, Limit], fit=None) -> None:
        fit = fit or self._fit
        if fit is not None:
            try:
                fit(solver, limits)
            except LimitFitError as e:
                raise LimitFitError(e.joint, e.problem, prefix=f"chain {self._name!r}: ") from None

    # --- what the rig's solve reads ------------------------------------------------------

    name = property(attrgetter("_name"))
    joints = property(attrgetter("_joints"), doc="Joint names, root to tip.")
    kind = property(attrgetter("_kind"), doc="The solver's registry entry (ik/registry.py): what the rig asks of it.")
    limit_key = property(attrgetter("_limit_key"), doc="The limits as a value (sorted (joint, Limit) pairs): "
                         "what the rig keys a chain's warm start and limit plan on.")
    stamp = property(attrgetter("_stamp"), doc="A new number whenever a setting the compiled frame packs changes.")
    frame_inputs = property(attrgetter("_frame"), doc="(stamp, name, input row, own pole, weight): what the rig's "
                            "compiled frame reads of the chain every frame (rig_frame.py) in one read; the input row "
                            "is own_target, own_pole and weight laid out as ik/frame_codes.input_row lays them.")
    own_target = property(attrgetter("_target"), doc="The goal as set (a float tuple); in a frame, a grounded or "
                          "follow-clip goal placed by the rig (rig_goals.py) stands in for it.")
    own_pole = property(attrgetter("_pole"), doc="The pole as set (a float tuple or None), as own_target.")
    own_pull = property(attrgetter("_pull"), doc="The pull as set; None: the role's default (see pull).")

    # --- settings ------------------------------------------------------------------------

    @property
    def solver(self) -> str:
        return self._solver

    @solver.setter
    def solver(self, value: str) -> None:
        try:
            value = check_solver(value)
            check_solver_fits(value, len(self._joints))
        except ValueError as e:  # the messages name the solver themselves
            raise ValueError(f"chain {self._name!r}: {e}") from None
        self._check_fit(value, self._limits)
        self._solver, self._kind = value, registry.get(value)
        self._changed(True)  # a packed setting changed (rig_frame.py)

    follow_clip = setting("follow_clip", check_bool, packed=True)
    ground_feet = setting("ground_feet", check_bool, packed=True)
    tolerance = setting("tolerance", check_tolerance, packed=True)
    max_iterations = setting("max_iterations", check_max_iterations, packed=True)
    weight = setting("weight", check_weight, packed=False)
    reach_clamp = setting("reach_clamp", check_reach_clamp, packed=True)
    softness = setting("softness", check_softness, packed=True)

    @property
    def limits(self) -> Mapping[str, Limit]:
        """Read-only view; assign a whole new mapping to change limits."""
        return MappingProxyType(self._limits)

    @limits.setter
    def limits(self, value: Mapping[str, Limit] | None) -> None:
        try:
            limits = check_limits(value or {}, self._joints)
        except ValueError as e:
            raise ValueError(f"chain {self._name!r}: {e}") from None
        self._check_fit(self._solver, limits)
        self._limits, self._limit_key = limits, tuple(sorted(limits.items()))
        self._changed(True)  # a packed setting changed (rig_frame.py)

    @property
    def look_at(self) -> LookAtSettings:
        return self._look_at

    @look_at.setter
    def look_at(self, value: LookAtSettings | None) -> None:
        try:
            self._look_at = check_look_at(value, len(self._joints))
            self._changed(True)  # a packed setting changed (rig_frame.py)
        except ValueError as e:
            raise self._fail("look_at", e) from None

    def _pull_now(self) -> float:
        if self._pull is not None:
            return self._pull
        return 0.4 if self._role_pull is None else self._role_pull(self._name)

    pull = setting("pull", optional(check_weight), packed=False, get=_pull_now, doc="How much this chain's goal "
                    "may move the body with rig.full_body on (0: an anchor); None (set) or until set: the role's "
                    "default (legs 0, arms and head 0.4, the spine 0.01: rig_full_body).")  # fmt: skip

    @property
    def pull_is_default(self) -> bool:
        return self._pull is None

    def settings(self) -> ChainSettings:
        return ChainSettings(
            solver=self._solver, target=self._goal(), pole=self._pole_now(), tolerance=self._tolerance,
            max_iterations=self._max_iterations, weight=self._weight, limits=self._limit_key,
            reach_clamp=self._reach_clamp, softness=self._softness, look_at=self._look_at,
            ground_feet=self._ground_feet, follow_clip=self._follow_clip, offset_keys=self._offset_keys, pull=self._pull,
        )  # fmt: skip

    def apply(self, settings: ChainSettings) -> None:
        """Take every setting at once; if any is invalid, none is taken."""
        if self._kind is not None and settings == self.settings():
            return  # nothing changes: the editor hands every chain's settings over with each goal
        try:
            checked = settings.checked(self._joints)  # the one check, the preset reader's too
        except FieldError as e:
            raise ValueError(f"chain {self._name!r}: {e}") from None
        by_name = dict(checked.limits)
        limits = {name: by_name[name] for name, _ in _pairs(settings.limits)}  # in the order given (a file's)
        current = self._limits
        if current is not None and checked.solver == self._solver and limits == current:
            # The same limits, already checked: keep them (the rig compares them by value,
            # and the same objects let that compare stop at `is`).
            limits, key = current, self._limit_key
        else:
            self._check_fit(checked.solver, limits)
            key = tuple(sorted(limits.items()))
        old_keys = self._offset_keys
        packed = self._packed()
        self._solver, self._kind = checked.solver, registry.get(checked.solver)
        self._target, self._pole = checked.target, checked.pole
        self._tolerance, self._max_iterations, self._weight = checked.tolerance, checked.max_iterations, checked.weight
        self._limits, self._limit_key = limits, key
        self._reach_clamp, self._softness, self._look_at = checked.reach_clamp, checked.softness, checked.look_at
        self._ground_feet, self._follow_clip = checked.ground_feet, checked.follow_clip
        self._offset_keys, self._pull = checked.offset_keys, checked.pull
        self._changed(packed != self._packed())
        if self._offsets is None or old_keys != checked.offset_keys:
            self._offsets = offset_curve(checked.offset_keys)

    def _changed(self, packed: bool) -> None:
        """A setting was set: a new stamp if the compiled frame packs it, and the frame's
        read of the chain (frame_inputs) made again from the settings now."""
        if packed:
            self._stamp = next(STAMPS)
        pole, weight = self._pole, self._weight
        self._frame = (self._stamp, self._name, input_row(self._target, pole, weight), pole, weight)
        if self._seat is not None:
            board, i = self._seat
            board.put(i, self._stamp, self._frame[2])

    def _packed(self) -> tuple:
        """The settings the compiled frame packs (frame_pack.FrameTables)."""
        return (self._joints, self._solver, self._limits, self._limit_key, self._tolerance, self._max_iterations,
                self._reach_clamp, self._softness, self._follow_clip, self._look_at, self._ground_feet)  # fmt: skip

    def copy(self) -> "Chain":
        """The same chain, its rig's as this one is. Every member is an immutable value or,
        for limits, a dict that is replaced and never changed in place, so sharing is safe."""
        other = object.__new__(Chain)
        for slot in Chain.__slots__:
            setattr(other, slot, getattr(self, slot))
        other._seat = None  # the rig that takes the copy seats it on its own board
        return other

    def detached(self) -> "Chain":
        """A copy in no rig: it aims at its own target, clip or not (the bake's loose copy)."""
        other = self.copy()
        other._fit = other._goals = other._role_pull = None
        return other

    def __repr__(self) -> str:
        return f"Chain({self._name!r}, {list(self._joints)}, solver={self._solver!r}, weight={self._weight:g})"
