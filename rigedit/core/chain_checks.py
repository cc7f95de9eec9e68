"""A chain's field validators: each returns the cleaned value or raises ValueError with the
bare problem ("must be between 0 and 1, got 1.5"); FieldError (field_error.py) names a field
below the value checked (a limit's min_deg, a look-at's up_axis). The chain (which names the
chain and field) and the preset reader (which names the file and JSON path) phrase the same
problem the same way: both check a chain's settings through ChainSettings.checked (chain.py).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from .field_error import FieldError, under
from .ik import registry
from .ik.limits import ConeLimit, HingeLimit, Limit

SOLVERS = registry.NAMES  # the names; the solvers' properties are registry.SOLVERS'

# 1 mm: far below what anyone sees on a character-sized rig, far above float round-off, and
# fabrik()'s default (docs/ARCHITECTURE.md, Contracts), so a chain and a bare fabrik() call agree out of the box.
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


_FLOAT64 = np.dtype(np.float64)


def check_vec3(value: Any) -> tuple[float, float, float]:
    # Targets are set on every dragged frame: plain floats take a short path.
    if type(value) in (tuple, list) and len(value) == 3:
        x, y, z = value
        if type(x) is float and type(y) is float and type(z) is float and abs(x) + abs(y) + abs(z) <= MAX_COORD:
            return (x, y, z)
    elif type(value) is np.ndarray and value.shape == (3,) and value.dtype is _FLOAT64:  # a gizmo's drag
        x, y, z = value.tolist()
        if abs(x) + abs(y) + abs(z) <= MAX_COORD:  # (False for NaN and inf: the long path names them)
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


def check_bool(value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"must be true or false, got {fmt(value)}")
    return bool(value)


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
