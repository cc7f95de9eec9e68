"""An IK chain's settings, validated on every set, and the per-chain solve report.

The validators return the cleaned value or raise ValueError with the bare problem ("must be
between 0 and 1, got 1.5"), so the chain (which names the chain and field) and the preset
reader (which names the file and JSON path) phrase the same problem the same way.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from .chain_uses import DEFAULT_REACH_CLAMP, DEFAULT_SOFTNESS, LookAtSettings, check_look_at, check_reach_clamp, check_softness
from .field_error import FieldError, under
from .ik import registry
from .ik.limits import ConeLimit, HingeLimit, Limit

SOLVERS = registry.NAMES  # the names; the solvers' properties are registry.SOLVERS'

# 1 mm: far below what anyone sees on a character-sized rig, far above float round-off, and
# DESIGN.md's fabrik default, so a chain and a bare fabrik() call agree out of the box.
DEFAULT_TOLERANCE = 1e-3
DEFAULT_MAX_ITERATIONS = 10
MAX_ITERATIONS_CAP = 10_000  # a typo guard: more passes never help a chain converge
# Coordinates (metres) beyond this are refused: 1000 km is past any rig, and keeping well
# inside float64's range means squares and cross products of them never overflow.
MAX_COORD = 1e6


def fmt(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ", ".join(fmt(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)) + "]"
    return repr(value)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def check_finite(value: Any) -> float:
    if not _is_number(value):
        raise ValueError(f"must be a number, got {fmt(value)}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"must be a finite number, got {fmt(v)}")
    return v


def check_vec3(value: Any) -> tuple[float, float, float]:
    # Targets are set on every dragged frame: plain floats take a short path.
    if type(value) in (tuple, list) and len(value) == 3:
        x, y, z = value
        if type(x) is float and type(y) is float and type(z) is float and abs(x) + abs(y) + abs(z) <= MAX_COORD:
            return (x, y, z)
    if isinstance(value, np.ndarray):
        items = value.tolist() if value.shape == (3,) else None
    elif isinstance(value, (list, tuple)):
        items = list(value) if len(value) == 3 else None
    else:
        items = None
    if items is None or not all(_is_number(v) for v in items):
        raise ValueError(f"must be 3 numbers [x, y, z], got {fmt(value)}")
    out = (float(items[0]), float(items[1]), float(items[2]))
    if not all(math.isfinite(v) for v in out):
        raise ValueError(f"must be 3 finite numbers, got {fmt(out)}")
    check_coords(out)
    return out


def check_coords(values) -> None:
    if any(abs(v) > MAX_COORD for v in values):
        raise ValueError(f"must be within -{MAX_COORD:g} and {MAX_COORD:g}, got {fmt(list(values))}")


def check_between(value: Any, lo: float, hi: float) -> float:
    v = check_finite(value)
    if not lo <= v <= hi:
        raise ValueError(f"must be between {lo:g} and {hi:g}, got {fmt(v)}")
    return v


def check_weight(value: Any) -> float:
    return check_between(value, 0.0, 1.0)


def check_tolerance(value: Any) -> float:
    v = check_finite(value)
    if not v > 0.0:
        raise ValueError(f"must be greater than 0, got {fmt(v)}")
    return v


def check_max_iterations(value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"must be a whole number, got {fmt(value)}")
    v = int(value)
    if not 1 <= v <= MAX_ITERATIONS_CAP:
        raise ValueError(f"must be between 1 and {MAX_ITERATIONS_CAP}, got {v}")
    return v


def check_solver(value: Any) -> str:
    if registry.find(value) is None:
        raise ValueError(f"unknown solver {fmt(value)} (expected {registry.expected()})")
    return value


def check_solver_fits(solver: str, n_joints: int) -> None:
    problem = registry.get(solver).fit_problem(n_joints)
    if problem is not None:
        raise ValueError(problem)


def check_limit(limit: Any) -> Limit:
    """FieldError names the limit's field (("min_deg",), ("axis",))."""
    if isinstance(limit, HingeLimit):
        return check_hinge(limit.axis, limit.min_deg, limit.max_deg)
    if isinstance(limit, ConeLimit):
        return check_cone(limit.max_deg)
    raise ValueError(f"must be a HingeLimit or a ConeLimit, got {type(limit).__name__}")


def check_hinge(axis: Any, min_deg: Any, max_deg: Any) -> HingeLimit:
    """A HingeLimit from its fields (a preset's, or a limit's own), checked field by field."""
    axis = _field("axis", check_vec3, axis)
    if math.hypot(*axis) <= 1e-12:
        raise FieldError(("axis",), "must not be zero")
    lo = _field("min_deg", check_between, min_deg, -180.0, 180.0)
    hi = _field("max_deg", check_between, max_deg, -180.0, 180.0)
    if lo > hi:
        raise FieldError(("min_deg",), f"must not exceed max_deg ({fmt(hi)}), got {fmt(lo)}")
    return HingeLimit(axis, lo, hi)


def check_cone(max_deg: Any) -> ConeLimit:
    return ConeLimit(_field("max_deg", check_between, max_deg, 0.0, 180.0))


def check_limits(limits: Mapping[str, Any], joints: Iterable[str]) -> dict[str, Limit]:
    """FieldError names the field (("limits", joint, ...))."""
    if not isinstance(limits, Mapping):
        raise FieldError(("limits",), f"must be a mapping joint name -> limit, got {type(limits).__name__}")
    joints = list(joints)
    out = {}
    for name, limit in limits.items():
        if name not in joints:
            raise FieldError(("limits", name), f"{fmt(name)} is not a joint of this chain {fmt(joints)}")
        try:
            out[name] = check_limit(limit)
        except ValueError as e:
            raise under("limits", under(name, e)) from None
    return out


def check_joints(joints: Iterable[str]) -> tuple[str, ...]:
    joints = tuple(joints)
    if len(joints) < 2:
        raise FieldError(("joints",), f"needs at least 2 joints, got {len(joints)}")
    for i, name in enumerate(joints):
        if name in joints[:i]:
            raise FieldError(("joints", i), f"{fmt(name)} is listed twice (also joints[{joints.index(name)}])")
    return joints


def _pairs(limits: Any):
    return limits.items() if isinstance(limits, Mapping) else limits


def _mapping(limits: Any) -> Any:
    """ChainSettings.limits as a mapping (its pairs, or a mapping given as is)."""
    if isinstance(limits, Mapping):
        return limits
    try:
        return dict(limits)
    except (TypeError, ValueError):
        return limits  # check_limits names what it is


def _field(field: str, check: Callable, *args):
    try:
        return check(*args)
    except ValueError as e:
        raise under(field, e) from None


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
        )
        if not isinstance(self.ground_feet, (bool, np.bool_)):
            raise FieldError(("ground_feet",), f"must be true or false, got {fmt(self.ground_feet)}")
        return checked


@dataclass(frozen=True)
class ChainReport:
    """What one solve did for one chain. `error` is the IK solution's tip distance to the
    target (before blending); `reached` is error <= the chain's tolerance, and only `reached`
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
            )
        )

    # Set by the rig that holds the chain: the checks that need its skeleton (rig._LimitFit).
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
        self._kind = registry.get(value)  # the solver's registry entry: what the rig asks of it

    @property
    def target(self) -> np.ndarray:
        return _frozen(self._target)

    @target.setter
    def target(self, value) -> None:
        try:
            self._target = check_vec3(value)
        except ValueError as e:
            raise self._fail("target", e) from None

    @property
    def pole(self) -> np.ndarray | None:
        return None if self._pole is None else _frozen(self._pole)

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
        except ValueError as e:
            raise self._fail("tolerance", e) from None

    @property
    def max_iterations(self) -> int:
        return self._max_iterations

    @max_iterations.setter
    def max_iterations(self, value: int) -> None:
        try:
            self._max_iterations = check_max_iterations(value)
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

    @property
    def reach_clamp(self) -> float:
        return self._reach_clamp

    @reach_clamp.setter
    def reach_clamp(self, value: float) -> None:
        try:
            self._reach_clamp = check_reach_clamp(value)
        except ValueError as e:
            raise self._fail("reach_clamp", e) from None

    @property
    def softness(self) -> float:
        return self._softness

    @softness.setter
    def softness(self, value: float) -> None:
        try:
            self._softness = check_softness(value)
        except ValueError as e:
            raise self._fail("softness", e) from None

    @property
    def look_at(self) -> LookAtSettings:
        return self._look_at

    @look_at.setter
    def look_at(self, value: LookAtSettings | None) -> None:
        try:
            self._look_at = check_look_at(value, len(self._joints))
        except ValueError as e:
            raise ValueError(f"chain {self._name!r}: look_at {e}") from None

    @property
    def ground_feet(self) -> bool:
        return self._ground_feet

    @ground_feet.setter
    def ground_feet(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"chain {self._name!r}: ground_feet must be true or false, got {fmt(value)}")
        self._ground_feet = bool(value)

    def settings(self) -> ChainSettings:
        return ChainSettings(
            solver=self._solver,
            target=self._target,
            pole=self._pole,
            tolerance=self._tolerance,
            max_iterations=self._max_iterations,
            weight=self._weight,
            limits=self._limit_key,
            reach_clamp=self._reach_clamp,
            softness=self._softness,
            look_at=self._look_at,
            ground_feet=self._ground_feet,
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
        )

    def copy(self) -> "Chain":
        other = object.__new__(Chain)
        # Every member is an immutable value or, for limits, a dict that is replaced and never
        # changed in place, so sharing is safe.
        other.__dict__.update(self.__dict__)
        return other

    def __repr__(self) -> str:
        return f"Chain({self._name!r}, {list(self._joints)}, solver={self._solver!r}, weight={self._weight:g})"


def _frozen(v: tuple[float, ...]) -> np.ndarray:
    a = np.array(v, dtype=np.float64)
    a.flags.writeable = False
    return a
