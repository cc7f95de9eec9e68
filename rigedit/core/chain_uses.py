"""The settings a chain carries for the typical uses (issue 8): reach clamp, soft IK, look-at.

Kept apart from chain.py so the core chain settings stay readable; the validators follow the
same style (return the cleaned value or raise ValueError with the bare problem).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .field_error import FieldError
from .ik.soft import DEFAULT_REACH_CLAMP

# Soft IK distances past a few metres ease a limb from near its root: a typo, not intent.
MAX_SOFTNESS = 100.0
DEFAULT_SOFTNESS = 0.0
DEFAULT_LOOK_MAX_ANGLE_DEG = 80.0  # about what a neck and head turn together
# A look-at joint's share of the turn: shares are relative, and past this a sum of them
# could overflow.
MAX_SHARE = 1e6

__all__ = ["DEFAULT_REACH_CLAMP", "DEFAULT_SOFTNESS", "LookAtSettings", "check_reach_clamp", "check_softness", "check_look_at"]


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise ValueError(f"must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"must be a finite number, got {v!r}")
    return v


def check_reach_clamp(value: Any) -> float:
    """A fraction of the chain's full length, in (0, 1]; 1 switches the clamp off."""
    v = _number(value)
    if not 0.5 <= v <= 1.0:
        raise ValueError(f"must be between 0.5 and 1 (a fraction of the chain's length; 1 = off), got {v!r}")
    return v


def check_softness(value: Any) -> float:
    """Metres of reach eased by soft IK; 0 switches it off."""
    v = _number(value)
    if not 0.0 <= v <= MAX_SOFTNESS:
        raise ValueError(f"must be between 0 and {MAX_SOFTNESS:g} metres (0 = off), got {v!r}")
    return v


@dataclass(frozen=True)
class LookAtSettings:
    """How a look_at chain aims: each joint's share of the turn (None: equal shares), the
    aiming joint's forward and up axes in its local frame, the cone around its rest forward
    and an optional limit on its roll away from level (None: free)."""

    weights: tuple[float, ...] | None = None
    forward_axis: tuple[float, float, float] = (0.0, 0.0, 1.0)
    up_axis: tuple[float, float, float] = (0.0, 1.0, 0.0)
    max_angle_deg: float = DEFAULT_LOOK_MAX_ANGLE_DEG
    max_twist_deg: float | None = None


def _axis(value: Any, field: str) -> tuple[float, float, float]:
    try:
        items = [float(v) for v in value]
    except (TypeError, ValueError):
        raise FieldError((field,), f"must be 3 numbers [x, y, z], got {value!r}") from None
    if len(items) != 3 or not all(math.isfinite(v) for v in items):
        raise FieldError((field,), f"must be 3 finite numbers [x, y, z], got {value!r}")
    if math.hypot(*items) <= 1e-9:
        raise FieldError((field,), "must not be zero")
    return (items[0], items[1], items[2])


def check_look_at(value: Any, n_joints: int) -> LookAtSettings:
    """FieldError names the field of the look-at settings (("weights",), ("up_axis",))."""
    if value is None:
        return LookAtSettings()
    if not isinstance(value, LookAtSettings):
        raise ValueError(f"must be LookAtSettings, got {type(value).__name__}")
    weights = value.weights
    if weights is not None:
        try:
            weights = tuple(_number(w) for w in weights)
        except ValueError as e:
            raise FieldError(("weights",), str(e)) from None
        if len(weights) != n_joints:
            raise FieldError(("weights",), f"must give one share per joint ({n_joints}), got {len(weights)}")
        if not all(0.0 <= w <= MAX_SHARE for w in weights):
            raise FieldError(("weights",), f"must each be between 0 and {MAX_SHARE:g}, got {list(weights)}")
        if sum(weights) <= 0.0:
            raise FieldError(("weights",), "must not all be 0 (no joint would turn)")
    fwd = _axis(value.forward_axis, "forward_axis")
    up = _axis(value.up_axis, "up_axis")
    cos = abs(sum(a * b for a, b in zip(fwd, up))) / (math.hypot(*fwd) * math.hypot(*up))
    if cos > 1.0 - 1e-6:
        raise FieldError(("up_axis",), "must not be parallel to forward_axis")
    angle = _angle(value.max_angle_deg, "max_angle_deg", "")
    twist = value.max_twist_deg
    if twist is not None:
        twist = _angle(twist, "max_twist_deg", " (or null for free)")
    return LookAtSettings(weights, fwd, up, angle, twist)


def _angle(value: Any, field: str, free: str) -> float:
    try:
        angle = _number(value)
    except ValueError as e:
        raise FieldError((field,), str(e)) from None
    if not 0.0 <= angle <= 180.0:
        raise FieldError((field,), f"must be between 0 and 180{free}, got {angle!r}")
    return angle
