"""An IK chain's settings, validated on every set, and the per-chain solve report.

A chain's settings are one value, ChainSettings, checked by ChainSettings.checked with the
validators of chain_checks.py: Chain.apply and the preset reader both take settings through
it, so the chain (which names the chain and field) and the preset reader (which names the
file and JSON path) phrase the same problem the same way.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Iterable, Mapping

import numpy as np

from .chain_checks import (  # noqa: F401 (the validators are this module's API too)
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_TOLERANCE,
    MAX_COORD,
    MAX_ITERATIONS_CAP,
    SOLVERS,
    _field,
    _mapping,
    _pairs,
    check_between,
    check_cone,
    check_coords,
    check_finite,
    check_hinge,
    check_joints,
    check_limit,
    check_limits,
    check_max_iterations,
    check_solver,
    check_solver_fits,
    check_tolerance,
    check_vec3,
    check_weight,
    fmt,
)
from .clip_goals import check_offset_keys, keyed_offset, offset_curve
from .chain_uses import DEFAULT_REACH_CLAMP, DEFAULT_SOFTNESS, LookAtSettings, check_look_at, check_reach_clamp, check_softness
from .field_error import FieldError
from .ik import registry
from .ik.limits import Limit

class LimitFitError(ValueError):
    """A limit the chain cannot take on that joint (its tip, the root of a two-bone chain, a
    hinge axis along the bone); `joint` names the joint, `problem` says why."""

    def __init__(self, joint: str, problem: str, prefix: str = "") -> None:
        super().__init__(f"{prefix}limit on {joint!r}: {problem}")
        self.joint, self.problem = joint, problem


@dataclass(frozen=True)
class ChainSettings:
    """Everything editable about a chain, as one immutable value (for undo and the solver thread)."""

    solver: str
    target: tuple[float, float, float]
    pole: tuple[float, float, float] | None
    tolerance: float
    max_iterations: int
    weight: float
    limits: tuple[tuple[str, Limit], ...]  # sorted by joint name, so equal settings compare equal
    reach_clamp: float = DEFAULT_REACH_CLAMP  # fraction of full length a target may ask for; 1 = off
    softness: float = DEFAULT_SOFTNESS  # metres of reach eased by soft IK; 0 = off
    look_at: LookAtSettings = LookAtSettings()  # used by the look_at solver only
    ground_feet: bool = False  # the target follows the rig's ground under the animated tip
    # Issue 14 (clip_goals.py): the goal is the animated tip plus `offset_keys` (a vector
    # curve's keys, metres) and the pole is placed from the animated bend; `target` and
    # `pole` then report that goal and pole at the rig's time and are not taken by apply.
    follow_clip: bool = False
    offset_keys: tuple = ()
    # Issue 16 (rig_full_body.py): how much this chain's goal may move the body with
    # rig.full_body on, 0..1; None takes the default of the chain's role (legs 0).
    pull: float | None = None

    def checked(self, joints: Iterable[str]) -> "ChainSettings":
        """These settings checked for a chain of `joints` (names, root to tip) as the
        chain's setters check them, cleaned; FieldError names the field below the chain and
        the bare problem (what the preset reader turns into a JSON path)."""
        joints = _field("joints", check_joints, joints)
        solver = _field("solver", check_solver, self.solver)
        _field("joints", check_solver_fits, solver, len(joints))
        checked = ChainSettings(
            solver=solver,
            target=_field("target", check_vec3, self.target),
            pole=None if self.pole is None else _field("pole", check_vec3, self.pole),
            tolerance=_field("tolerance", check_tolerance, self.tolerance),
            max_iterations=_field("max_iterations", check_max_iterations, self.max_iterations),
            weight=_field("weight", check_weight, self.weight),
            limits=tuple(sorted(check_limits(_mapping(self.limits), joints).items())),
            reach_clamp=_field("reach_clamp", check_reach_clamp, self.reach_clamp),
            softness=_field("softness", check_softness, self.softness),
            look_at=_field("look_at", check_look_at, self.look_at, len(joints)),
            ground_feet=bool(self.ground_feet),
            follow_clip=bool(self.follow_clip),
            offset_keys=_field("offset_keys", check_offset_keys, self.offset_keys),
            pull=None if self.pull is None else _field("pull", check_weight, self.pull),
        )
        if not isinstance(self.ground_feet, (bool, np.bool_)):
            raise FieldError(("ground_feet",), f"must be true or false, got {fmt(self.ground_feet)}")
        if not isinstance(self.follow_clip, (bool, np.bool_)):
            raise FieldError(("follow_clip",), f"must be true or false, got {fmt(self.follow_clip)}")
        return checked


@dataclass(frozen=True)
class ChainReport:
    """What one solve did for one chain. `error` is the IK solution's tip distance to the
    target (before blending: at a weight below 1 the blended pose misses by more, and
    the editor's status line measures that pose's tip, app/status.py); `reached` is error <= the chain's tolerance, and only `reached`
    says a chain is within tolerance; `iterations` is the FABRIK passes run, and 0 does not
    mean within tolerance (0 for the closed-form two-bone solver, for a chain not solved again
    because nothing changed, or that stalled short of its target, and for an unlimited
    FABRIK chain out of reach); `errors` is the tip error after each of those passes."""

    name: str
    error: float
    iterations: int
    reached: bool
    errors: tuple[float, ...] = ()


class Chain:
    """An IK chain of a rig: joint names root to tip plus validated solver settings.

    Every setter validates and raises ValueError naming the chain and the field, and leaves
    the old value in place; arrays handed out are read-only copies, so no NaN can sneak in.
    """

    def __init__(
        self,
        name: str,
        joints: Iterable[str],
        *,
        target,
        solver: str = "fabrik",
        pole=None,
        tolerance: float = DEFAULT_TOLERANCE,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
        weight: float = 1.0,
        limits: Mapping[str, Limit] | None = None,
        reach_clamp: float = DEFAULT_REACH_CLAMP,
        softness: float = DEFAULT_SOFTNESS,
        look_at: LookAtSettings | None = None,
        ground_feet: bool = False,
        follow_clip: bool = False,
        offset_keys=(),
        pull: float | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"chain name must be a non-empty string, got {fmt(name)}")
        self._name = name
        try:
            self._joints = check_joints(joints)
        except FieldError as e:
            raise ValueError(f"chain {name!r}: {e.problem}") from None
        self.apply(
            ChainSettings(
                solver=solver,
                target=target,
                pole=pole,
                tolerance=tolerance,
                max_iterations=max_iterations,
                weight=weight,
                limits=tuple((limits or {}).items()),
                reach_clamp=reach_clamp,
                softness=softness,
                look_at=look_at if look_at is not None else LookAtSettings(),
                ground_feet=ground_feet,
                follow_clip=follow_clip,
                offset_keys=offset_keys,
                pull=pull,
            )
        )

    # Set by the rig that holds the chain: where follow-clip goals come from (clip_goals.ClipGoals).
    _goals = None

    # A new number whenever a setting the rig's compiled frame packs changes (rig_frame.py
    # compares these rather than every setting, every frame): each such setter takes one.
    _stamp = 0

    # Set by the rig that holds the chain: the checks that need its skeleton (rig_plan.LimitFit).
    _fit: Callable[[str, Mapping[str, Limit]], None] | None = None

    def _fail(self, field: str, err: ValueError) -> ValueError:
        return ValueError(f"chain {self._name!r}: {field} {err}")

    def _check_fit(self, solver: str, limits: Mapping[str, Limit]) -> None:
        if self._fit is not None:
            try:
                self._fit(solver, limits)
            except LimitFitError as e:
                raise LimitFitError(e.joint, e.problem, prefix=f"chain {self._name!r}: ") from None

    @property
    def name(self) -> str:
        return self._name

    @property
    def joints(self) -> tuple[str, ...]:
        return self._joints

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
        if hasattr(self, "_limits"):
            self._check_fit(value, self._limits)
        self._solver = value
        self._stamp = next(_STAMPS)  # a packed setting changed (rig_frame.py)
        self._kind = registry.get(value)  # the solver's registry entry: what the rig asks of it

    @property
    def target(self) -> np.ndarray:
        """The world goal at the rig's time: for a chain following the clip, the animated
        tip plus the offset curve there; setting it then keys the offset at that time."""
        return _frozen(self._goal())

    @target.setter
    def target(self, value) -> None:
        try:
            value = check_vec3(value)
        except ValueError as e:
            raise self._fail("target", e) from None
        if self._following():
            self.offset_keys = self.keys_for_goal(value)
        else:
            self._target = value

    @property
    def following(self) -> bool:
        """Whether the goal follows a clip now: follow_clip on, in a rig with a clip."""
        return self._following()

    def _following(self) -> bool:
        return self._follow_clip and self._goals is not None and self._kind.reaches and self._goals.active(self)

    def _goal(self) -> tuple:
        return self._goals.goal(self) if self._following() else self._target

    def _pole_now(self):
        return self._goals.pole(self) if self._following() and self._pole is not None else self._pole

    def keys_for_goal(self, goal) -> tuple:
        """The offset keys that put this follow-clip chain's goal at `goal` (world, metres)
        at the rig's current time: an offset keyed there, eased in and out."""
        if not self._following():
            raise ValueError(f"chain {self._name!r}: does not follow a clip (follow_clip is off, or it is in no rig)")
        g = self._goals
        offset = np.asarray(check_vec3(goal)) - g.tip(self)
        return keyed_offset(self._offset_keys, g.time(), offset, g.frame_rate())

    @property
    def follow_clip(self) -> bool:
        return self._follow_clip

    @follow_clip.setter
    def follow_clip(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"chain {self._name!r}: follow_clip must be true or false, got {fmt(value)}")
        self._follow_clip = bool(value)
        self._stamp = next(_STAMPS)  # a packed setting changed (rig_frame.py)

    @property
    def offset_keys(self) -> tuple:
        return self._offset_keys

    @offset_keys.setter
    def offset_keys(self, value) -> None:
        try:
            keys = check_offset_keys(value)
        except ValueError as e:
            raise self._fail("offset_keys", e) from None
        self._offset_keys, self._offsets = keys, offset_curve(keys)

    @property
    def offsets(self):
        """The offset keys as a Curve (the goal minus the animated tip, over time)."""
        return self._offsets

    @property
    def pole(self) -> np.ndarray | None:
        pole = self._pole_now()
        return None if pole is None else _frozen(pole)

    @pole.setter
    def pole(self, value) -> None:
        try:
            self._pole = None if value is None else check_vec3(value)
        except ValueError as e:
            raise self._fail("pole", e) from None

    @property
    def tolerance(self) -> float:
        return self._tolerance

    @tolerance.setter
    def tolerance(self, value: float) -> None:
        try:
            self._tolerance = check_tolerance(value)
            self._stamp = next(_STAMPS)  # a packed setting changed (rig_frame.py)
        except ValueError as e:
            raise self._fail("tolerance", e) from None

    @property
    def max_iterations(self) -> int:
        return self._max_iterations

    @max_iterations.setter
    def max_iterations(self, value: int) -> None:
        try:
            self._max_iterations = check_max_iterations(value)
            self._stamp = next(_STAMPS)  # a packed setting changed (rig_frame.py)
        except ValueError as e:
            raise self._fail("max_iterations", e) from None

    @property
    def weight(self) -> float:
        return self._weight

    @weight.setter
    def weight(self, value: float) -> None:
        try:
            self._weight = check_weight(value)
        except ValueError as e:
            raise self._fail("weight", e) from None

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
        self._limits = limits
        # The limits as a value (sorted (joint, Limit) pairs, hashable): what the rig keys a
        # chain's warm start and limit plan on.
        self._limit_key = tuple(sorted(limits.items()))
        self._stamp = next(_STAMPS)  # a packed setting changed (rig_frame.py)

    @property
    def reach_clamp(self) -> float:
        return self._reach_clamp

    @reach_clamp.setter
    def reach_clamp(self, value: float) -> None:
        try:
            self._reach_clamp = check_reach_clamp(value)
            self._stamp = next(_STAMPS)  # a packed setting changed (rig_frame.py)
        except ValueError as e:
            raise self._fail("reach_clamp", e) from None

    @property
    def softness(self) -> float:
        return self._softness

    @softness.setter
    def softness(self, value: float) -> None:
        try:
            self._softness = check_softness(value)
            self._stamp = next(_STAMPS)  # a packed setting changed (rig_frame.py)
        except ValueError as e:
            raise self._fail("softness", e) from None

    @property
    def look_at(self) -> LookAtSettings:
        return self._look_at

    @look_at.setter
    def look_at(self, value: LookAtSettings | None) -> None:
        try:
            self._look_at = check_look_at(value, len(self._joints))
            self._stamp = next(_STAMPS)  # a packed setting changed (rig_frame.py)
        except ValueError as e:
            raise ValueError(f"chain {self._name!r}: look_at {e}") from None

    # Set by the rig that holds the chain: the pull of its role (rig_full_body.default_pull).
    _role_pull: Callable[[str], float] | None = None

    @property
    def pull(self) -> float:
        """How much this chain's goal may move the body with rig.full_body on (0: an anchor);
        the role's default (legs 0, arms and head 0.4, the spine 0.01: rig_full_body) until set."""
        if self._pull is not None:
            return self._pull
        if self._role_pull is None:
            return 0.4
        return self._role_pull(self._name)

    @pull.setter
    def pull(self, value: float | None) -> None:
        if value is None:
            self._pull = None
            return
        try:
            self._pull = check_weight(value)
        except ValueError as e:
            raise ValueError(f"chain {self._name!r}: pull {e}") from None

    @property
    def pull_is_default(self) -> bool:
        return self._pull is None

    @property
    def ground_feet(self) -> bool:
        return self._ground_feet

    @ground_feet.setter
    def ground_feet(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"chain {self._name!r}: ground_feet must be true or false, got {fmt(value)}")
        self._ground_feet = bool(value)
        self._stamp = next(_STAMPS)  # a packed setting changed (rig_frame.py)

    def settings(self) -> ChainSettings:
        return ChainSettings(
            solver=self._solver,
            target=self._goal(),
            pole=self._pole_now(),
            tolerance=self._tolerance,
            max_iterations=self._max_iterations,
            weight=self._weight,
            limits=self._limit_key,
            reach_clamp=self._reach_clamp,
            softness=self._softness,
            look_at=self._look_at,
            ground_feet=self._ground_feet,
            follow_clip=self._follow_clip,
            offset_keys=self._offset_keys,
            pull=self._pull,
        )

    def apply(self, settings: ChainSettings) -> None:
        """Take every setting at once; if any is invalid, none is taken."""
        if "_limits" in self.__dict__ and settings == self.settings():
            return  # nothing changes: the editor hands every chain's settings over with each goal
        try:
            checked = settings.checked(self._joints)  # the one check, the preset reader's too
        except FieldError as e:
            raise ValueError(f"chain {self._name!r}: {e}") from None
        by_name = dict(checked.limits)
        limits = {name: by_name[name] for name, _ in _pairs(settings.limits)}  # in the order given (a file's)
        current = self.__dict__.get("_limits")
        if current is not None and checked.solver == self.__dict__.get("_solver") and limits == current:
            # The same limits, already checked: keep them (the rig compares them by value,
            # and the same objects let that compare stop at `is`).
            limits, key = current, self._limit_key
        else:
            self._check_fit(checked.solver, limits)
            key = tuple(sorted(limits.items()))
        old_keys = self.__dict__.get("_offset_keys")
        packed = [self.__dict__.get(k) for k in _PACKED]
        self.__dict__.update(
            _solver=checked.solver,
            _kind=registry.get(checked.solver),  # the solver's registry entry: what the rig asks of it
            _target=checked.target,
            _pole=checked.pole,
            _tolerance=checked.tolerance,
            _max_iterations=checked.max_iterations,
            _weight=checked.weight,
            _limits=limits,
            _limit_key=key,
            _reach_clamp=checked.reach_clamp,
            _softness=checked.softness,
            _look_at=checked.look_at,
            _ground_feet=checked.ground_feet,
            _follow_clip=checked.follow_clip,
            _offset_keys=checked.offset_keys,
            _pull=checked.pull,
        )
        if packed != [self.__dict__.get(k) for k in _PACKED]:
            self._stamp = next(_STAMPS)
        if "_offsets" not in self.__dict__ or old_keys != checked.offset_keys:
            self._offsets = offset_curve(checked.offset_keys)

    def copy(self) -> "Chain":
        other = object.__new__(Chain)
        # Every member is an immutable value or, for limits, a dict that is replaced and never
        # changed in place, so sharing is safe.
        other.__dict__.update(self.__dict__)
        return other

    def __repr__(self) -> str:
        return f"Chain({self._name!r}, {list(self._joints)}, solver={self._solver!r}, weight={self._weight:g})"


# The settings the compiled frame packs (frame_pack.FrameTables), and the stamps they get.
_PACKED = ("_joints", "_solver", "_kind", "_limits", "_limit_key", "_tolerance", "_max_iterations", "_reach_clamp",
           "_softness", "_follow_clip", "_look_at", "_ground_feet")  # fmt: skip
_STAMPS = itertools.count(1)


def _frozen(v: tuple[float, ...]) -> np.ndarray:
    a = np.array(v, dtype=np.float64)
    a.flags.writeable = False
    return a
