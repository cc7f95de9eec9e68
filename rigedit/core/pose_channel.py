"""One joint's track on the pose layer (core/pose_layer.py): keys and an unkeyed value.

A channel's keys are (time, value, interpolation), sorted, at least TIME_EPS apart; the
value is a delta quaternion (x, y, z, w) for a joint or an offset (x, y, z) for the roots.
The unkeyed value (`held`) holds at every time on a channel without keys (a static pose),
and only at `held_time` on a keyed one: once the time moves the keys rule again (Blender's
rule for an edit that was not keyed). The layer evaluates every channel at once, compiled
(pose_kernel.py: slerp for the joints, lerp for the roots' offset).

`to_data` / `from_data` are the channel's plain JSON-able form; from_data raises
FieldError naming the field (("keys", 2, "time"), ...) for the caller to put its path before.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from .curve import DEFAULT_INTERPOLATION, INTERPOLATIONS
from .field_error import FieldError

TIME_EPS = 1e-9  # seconds: two key times closer than this are the same key time


@dataclass(frozen=True, slots=True)
class PoseKey:
    time: float
    value: tuple  # a delta quaternion (x, y, z, w), or the root's offset (x, y, z) in metres
    interpolation: str = DEFAULT_INTERPOLATION


@dataclass(frozen=True, slots=True)
class Channel:
    """One joint's keys (sorted by time, at least TIME_EPS apart) and its unkeyed value:
    `held` at every time when there are no keys, else only at `held_time`."""

    keys: tuple[PoseKey, ...] = ()
    held: tuple | None = None
    held_time: float | None = None
    # The keys as the compiled evaluation reads them (`packed`), made once: an edit of one
    # joint makes one new channel, and a layer packs its channels' arrays together.
    _packed: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def is_empty(self) -> bool:
        return not self.keys and self.held is None

    def packed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The keys' times (k,), interpolations (k,) as curve.INTERPOLATIONS indexes them,
        and values (k, 4) (an offset's fourth column 0), for pose_kernel.PackedLayer."""
        if self._packed is None:
            keys = self.keys
            values = np.zeros((len(keys), 4))
            if keys:
                values[:, :len(keys[0].value)] = [k.value for k in keys]
            out = (np.array([k.time for k in keys], dtype=np.float64),
                   np.array([INTERPOLATIONS.index(k.interpolation) for k in keys], dtype=np.int64), values)
            object.__setattr__(self, "_packed", out)
        return self._packed

    def index_at(self, time: float) -> int | None:
        for i, k in enumerate(self.keys):
            if abs(k.time - time) <= TIME_EPS:
                return i
        return None

    def with_held(self, value: tuple, time: float) -> "Channel":
        return Channel(self.keys, value, time if self.keys else None)

    def with_key(self, time: float, value: tuple) -> "Channel":
        """`value` keyed at `time` (a key there keeps its interpolation); the unkeyed value
        is dropped: it is what was keyed, or the keys rule again."""
        i = self.index_at(time)
        interp = DEFAULT_INTERPOLATION if i is None else self.keys[i].interpolation
        rest = [k for j, k in enumerate(self.keys) if j != i]
        return Channel(_sorted(rest + [PoseKey(float(time), value, interp)]))

    def edited_key(self, time: float, new_time: float | None = None, interpolation: str | None = None) -> "Channel":
        """The key at `time` moved to `new_time` (replacing one there) or given another
        interpolation; the channel as it is without a key at `time`."""
        i = self.index_at(time)
        if i is None:
            return self
        k = self.keys[i]
        t = k.time if new_time is None else float(new_time)
        rest = [o for j, o in enumerate(self.keys) if j != i and abs(o.time - t) > TIME_EPS]
        moved = PoseKey(t, k.value, k.interpolation if interpolation is None else interpolation)
        return replace(self, keys=_sorted(rest + [moved]))

    def without_key(self, time: float) -> "Channel":
        i = self.index_at(time)
        if i is None:
            return self
        keys = self.keys[:i] + self.keys[i + 1:]
        return replace(self, keys=keys) if keys else Channel()  # no keys: nothing of it is shown

    def to_data(self) -> dict:
        out: dict = {"keys": [{"time": k.time, "value": list(k.value), "interpolation": k.interpolation} for k in self.keys]}
        if self.held is not None:
            out["held"] = list(self.held)
            if self.held_time is not None:
                out["held_time"] = self.held_time
        return out

    @classmethod
    def from_data(cls, data, size: int) -> "Channel":
        """A channel from its to_data form; `size`: 4 (a joint's quaternions) or 3 (offsets)."""
        _fields(data, (), {"keys", "held", "held_time"})
        keys_in = data.get("keys", [])
        if not isinstance(keys_in, list):
            raise FieldError(("keys",), f"must be a list of keys, got {type(keys_in).__name__}")
        keys = []
        for i, k in enumerate(keys_in):
            _fields(k, ("keys", i), {"time", "value", "interpolation"}, required=("time", "value"))
            interp = k.get("interpolation", DEFAULT_INTERPOLATION)
            if interp not in INTERPOLATIONS:
                raise FieldError(("keys", i, "interpolation"), f"must be one of {', '.join(INTERPOLATIONS)}, got {interp!r}")
            keys.append(PoseKey(_time(k["time"], ("keys", i, "time")), _value(k["value"], size, ("keys", i, "value")), interp))
        keys.sort(key=lambda k: k.time)
        for a, b in zip(keys, keys[1:]):
            if b.time - a.time <= TIME_EPS:
                raise FieldError(("keys",), f"two keys at the same time {a.time!r} s")
        held = None if data.get("held") is None else _value(data["held"], size, ("held",))
        held_time = None if data.get("held_time") is None else _time(data["held_time"], ("held_time",))
        if held is not None and bool(keys) != (held_time is not None):
            problem = "is needed with keys (an unkeyed edit holds at its time)" if keys else "is only for a channel with keys"
            raise FieldError(("held_time",), problem)
        return cls(tuple(keys), held, held_time if held is not None else None)

    def settled(self, time: float) -> "Channel":
        """Without an unkeyed value made at another time than `time` (the time has moved)."""
        if self.held_time is None or abs(self.held_time - time) <= TIME_EPS:
            return self
        return Channel(self.keys)


def _sorted(keys: list[PoseKey]) -> tuple[PoseKey, ...]:
    return tuple(sorted(keys, key=lambda k: k.time))


def _fields(data, where: tuple, allowed: set, required: tuple = ()) -> None:
    if not isinstance(data, dict):
        raise FieldError(where, f"must be an object, got {type(data).__name__}")
    for name in data:
        if name not in allowed:
            raise FieldError(where + (name,), f"is not a field (fields: {', '.join(sorted(allowed))})")
    for name in required:
        if name not in data:
            raise FieldError(where + (name,), "is required")


def _number(v, where: tuple) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise FieldError(where, f"must be a finite number, got {v!r}")
    return float(v)


def _time(v, where: tuple) -> float:
    t = _number(v, where)
    if abs(t) > 1e9:
        raise FieldError(where, f"must be within 1e9 s, got {t!r}")
    return t


def _value(v, size: int, where: tuple) -> tuple:
    shape = "[x, y, z, w]" if size == 4 else "[x, y, z]"
    if not isinstance(v, (list, tuple)) or len(v) != size:
        raise FieldError(where, f"must be {size} numbers {shape}, got {v!r}")
    out = tuple(_number(x, where + (i,)) for i, x in enumerate(v))
    if size != 4:
        return out
    n = math.sqrt(sum(x * x for x in out))
    if n < 1e-9:
        raise FieldError(where, f"must be a rotation (x, y, z, w), got a zero quaternion {list(out)}")
    return tuple(x / n for x in out)
