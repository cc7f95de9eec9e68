"""Joint limits: the data types shared by the solvers, the rig and the preset format, and the
clamp that enforces one limit on one bone.

A limit belongs to a joint and constrains the bone that leaves it (joint -> next joint in the
chain) relative to the bone that enters it (previous joint -> joint), i.e. "the parent bone".
Angles are measured from the parent bone's direction: 0 means the bone carries straight on.

`clamp_bone(limit, parent_dir, parent_frame, bone_dir)` is the whole contract for a solver:
it returns the allowed direction nearest `bone_dir`. FABRIK calls its float core after every
forward step; the two-bone solver can call it on the skeleton's frames.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._floats import IDENTITY, TINY, cross, dot, norm, perpendicular, qnormalize, qrot, unit_or

# A hinge axis within this angle (radians) of its parent bone leaves no plane to bend in:
# the bone could only twist. Such a limit is refused rather than solved noisily.
MIN_AXIS_SINE = 1e-6


@dataclass(frozen=True)
class HingeLimit:
    """The bone turns only about `axis` (given in the parent bone's frame), within
    [min_deg, max_deg] measured from the parent bone's direction: a knee bends one way.

    The angle is signed by the right-hand rule about the axis; -180 <= min_deg <= max_deg <= 180.
    """

    axis: tuple[float, float, float] = (1.0, 0.0, 0.0)
    min_deg: float = 0.0
    max_deg: float = 150.0

    def __post_init__(self) -> None:
        axis = _finite_tuple(self.axis, 3, "hinge axis")
        if norm(axis) <= TINY:
            raise ValueError("hinge axis must not be zero")
        lo, hi = float(self.min_deg), float(self.max_deg)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(f"hinge angles must be finite, got min_deg={lo}, max_deg={hi}")
        if not -180.0 <= lo <= hi <= 180.0:
            raise ValueError(f"hinge needs -180 <= min_deg <= max_deg <= 180, got {lo} and {hi}")
        object.__setattr__(self, "axis", axis)
        object.__setattr__(self, "min_deg", lo)
        object.__setattr__(self, "max_deg", hi)


@dataclass(frozen=True)
class ConeLimit:
    """The bone stays within `max_deg` of the parent bone's direction (a tail, a spine)."""

    max_deg: float = 30.0

    def __post_init__(self) -> None:
        m = float(self.max_deg)
        if not (math.isfinite(m) and 0.0 <= m <= 180.0):
            raise ValueError(f"cone max_deg must be within [0, 180], got {self.max_deg}")
        object.__setattr__(self, "max_deg", m)


Limit = HingeLimit | ConeLimit


def clamp_bone(limit: Limit, parent_dir, parent_frame, bone_dir) -> np.ndarray:
    """The direction nearest `bone_dir` that `limit` allows, as a unit (3,) float64 array.

    parent_dir: world direction of the parent bone (any length but zero).
    parent_frame: world rotation (x, y, z, w) of the parent bone's frame, in which a hinge's
    axis is given; None means identity (the axis is in world coordinates). Cones ignore it.
    bone_dir: the direction the solver would like (any length; zero reads as "straight on").

    A hinge first drops the part of bone_dir along its axis, then clamps the angle to the
    nearer end of its range. A hinge axis parallel to the parent bone raises ValueError.
    """
    parent = unit_or(_finite_tuple(parent_dir, 3, "parent_dir"), None)
    if parent is None:
        raise ValueError("parent_dir must not be zero: the parent bone has no direction")
    d = _finite_tuple(bone_dir, 3, "bone_dir")
    if isinstance(limit, ConeLimit):
        return np.array(clamp_cone(cone_params(limit), parent, d))
    if isinstance(limit, HingeLimit):
        frame = IDENTITY if parent_frame is None else qnormalize(_finite_tuple(parent_frame, 4, "parent_frame"))
        axis = hinge_axis(qrot(frame, unit_or(limit.axis, None)), parent)
        if axis is None:
            raise ValueError("hinge axis is parallel to the parent bone: there is no plane to bend in")
        return np.array(clamp_hinge(hinge_params(limit), parent, axis, d))
    raise ValueError(f"a limit must be a HingeLimit or a ConeLimit, got {type(limit).__name__}")


def limit_error_deg(limit: Limit, parent_dir, parent_frame, bone_dir) -> float:
    """How far (degrees) bone_dir is from what the limit allows; 0 when it is allowed."""
    d = _finite_tuple(bone_dir, 3, "bone_dir")
    if norm(d) <= TINY:
        return 0.0
    c = clamp_bone(limit, parent_dir, parent_frame, d)
    u = unit_or(d, None)
    return math.degrees(math.atan2(norm(cross(u, c)), dot(u, c)))


# The float core. Parameters are prepared once per solve, so the per-pass work is flops only.


def cone_params(limit: ConeLimit):
    """(cos, sin) of the cone's half angle; None when the cone allows every direction."""
    if limit.max_deg >= 180.0:
        return None
    a = math.radians(limit.max_deg)
    return (math.cos(a), math.sin(a))


def hinge_params(limit: HingeLimit):
    return (math.radians(limit.min_deg), math.radians(limit.max_deg))


def hinge_axis(axis_world, parent):
    """The hinge axis made exactly perpendicular to the (unit) parent direction, or None."""
    found, axis = hinge_axis_found(axis_world, parent)
    return axis if found else None


def hinge_axis_found(axis_world, parent):
    """(found, axis): hinge_axis without None, so compiled code can call it too (numba
    cannot index a value that may be None)."""
    a = dot(axis_world, parent)
    v = (axis_world[0] - a * parent[0], axis_world[1] - a * parent[1], axis_world[2] - a * parent[2])
    n = norm(v)
    if n <= MIN_AXIS_SINE * norm(axis_world):
        return False, v
    return True, (v[0] / n, v[1] / n, v[2] / n)


def clamp_cone(params, parent, d):
    """Unit direction within the cone about unit `parent` nearest d (zero d -> parent)."""
    u = unit_or(d, parent)
    if params is None:
        return u
    cos_max, sin_max = params
    c = dot(u, parent)
    if c >= cos_max:
        return u
    w = (u[0] - c * parent[0], u[1] - c * parent[1], u[2] - c * parent[2])
    # Straight back along the parent bone every side is equally near: pick one
    # deterministically. (unit_or written out: compiled code cannot take its None.)
    n = norm(w)
    w = perpendicular(parent) if n <= TINY else (w[0] / n, w[1] / n, w[2] / n)
    return (
        cos_max * parent[0] + sin_max * w[0],
        cos_max * parent[1] + sin_max * w[1],
        cos_max * parent[2] + sin_max * w[2],
    )


def clamp_hinge(params, parent, axis, d):
    """Unit direction in the hinge plane, at an allowed angle, nearest d.

    parent and axis are unit and perpendicular (see hinge_axis). A d with nothing in the
    plane (zero, or along the axis) reads as angle 0, then clamped.
    """
    lo, hi = params
    b = cross(axis, parent)  # parent turned +90 degrees about the axis
    th = math.atan2(dot(d, b), dot(d, parent))
    if th < lo or th > hi:
        th = lo if _circular_gap(th, lo) <= _circular_gap(th, hi) else hi
    c, s = math.cos(th), math.sin(th)
    return (c * parent[0] + s * b[0], c * parent[1] + s * b[1], c * parent[2] + s * b[2])


def _circular_gap(a: float, b: float) -> float:
    g = abs(a - b) % (2.0 * math.pi)
    return min(g, 2.0 * math.pi - g)


def _finite_tuple(v, size: int, what: str) -> tuple:
    try:
        arr = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be {size} numbers, got {v!r}") from None
    if arr.shape != (size,):
        raise ValueError(f"{what} must be {size} numbers, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} must be finite, got {arr.tolist()}")
    return tuple(arr.tolist())
