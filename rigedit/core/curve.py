"""Keyed curves: values at key times, interpolated between them.

A curve is an immutable value: every edit returns a new curve. That is what makes each key
edit in the editor one undo step for free (keep the old curve, put it back), and lets the
solver thread read a curve while the GUI builds the next one.

A key's interpolation governs the segment that *leaves* it, up to the next key (as in most
animation tools): "linear", "ease" (smoothstep, zero slope at both ends, so a blend weight
eases in and out instead of snapping) or "constant" (hold, then jump at the next key).
Before the first key and after the last the curve holds flat; an empty curve gives its
default. Values are scalars (blend weights) or 3-vectors (target and pole positions),
interpolated per component.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

INTERPOLATIONS = ("linear", "ease", "constant")
DEFAULT_INTERPOLATION = "ease"


@dataclass(frozen=True)
class Key:
    time: float  # seconds
    value: float | tuple[float, ...]
    interpolation: str = DEFAULT_INTERPOLATION


def shape_weight(interpolation: str, u: float) -> float:
    """How far (0..1) along the segment's value change we are at fraction u of its time."""
    return shape(INTERPOLATIONS.index(interpolation), u)


def shape(code: int, u: float) -> float:
    """shape_weight of INTERPOLATIONS[code] (a compiled kernel's form: pose_kernel.py)."""
    if code == 0:
        return u
    if code == 1:
        return u * u * (3.0 - 2.0 * u)
    return 0.0


def _lerp_within(v0: float, v1: float, w: float) -> float:
    v = v0 + (v1 - v0) * w
    return min(max(v, min(v0, v1)), max(v0, v1))


class Curve:
    """Keys sorted by time; scalar curves when `default` is a number, vector curves when it is
    a sequence. `bounds` (lo, hi), if given, is enforced on every key value (blend weights use
    (0, 1)); interpolation never leaves the range of the two keys it runs between, so a
    bounded curve stays bounded at every time."""

    __slots__ = ("_times", "_values", "_interps", "_default", "_bounds", "_dim", "_tlist", "_vlist")

    def __init__(
        self,
        keys: Iterable[Key | tuple] = (),
        *,
        default: float | Sequence[float] = 0.0,
        bounds: tuple[float, float] | None = None,
    ) -> None:
        default_arr = np.asarray(default, dtype=np.float64)
        if default_arr.ndim > 1 or not np.all(np.isfinite(default_arr)):
            raise ValueError(f"curve default must be a finite number or vector, got {default!r}")
        self._dim = 0 if default_arr.ndim == 0 else default_arr.shape[0]
        self._default = float(default_arr) if self._dim == 0 else tuple(float(x) for x in default_arr)
        self._bounds = None if bounds is None else (float(bounds[0]), float(bounds[1]))
        parsed = sorted((self._parse(k) for k in keys), key=lambda k: k.time)
        for a, b in zip(parsed, parsed[1:]):
            if a.time == b.time:
                raise ValueError(f"two keys at the same time {a.time} s")
        self._times = np.array([k.time for k in parsed], dtype=np.float64)
        shape = (len(parsed),) if self._dim == 0 else (len(parsed), self._dim)
        self._values = np.array([k.value for k in parsed], dtype=np.float64).reshape(shape)
        self._interps = tuple(k.interpolation for k in parsed)
        self._times.flags.writeable = False
        # Plain-float copies for `at`: one evaluation is a bisect and a few float operations,
        # where numpy scalars would cost several times more (the dock and apply() call it per frame).
        self._tlist = self._times.tolist()
        self._vlist = self._values.tolist()
        self._values.flags.writeable = False

    def _parse(self, key: Key | tuple) -> Key:
        if not isinstance(key, Key):
            key = Key(*key)
        time = float(key.time)
        if not math.isfinite(time):
            raise ValueError(f"key time must be finite, got {key.time!r}")
        if key.interpolation not in INTERPOLATIONS:
            raise ValueError(f"interpolation must be one of {', '.join(INTERPOLATIONS)}, got {key.interpolation!r}")
        value = np.asarray(key.value, dtype=np.float64)
        expected = () if self._dim == 0 else (self._dim,)
        if value.shape != expected:
            raise ValueError(f"key value must have shape {expected}, got {value.shape}")
        if not np.all(np.isfinite(value)):
            raise ValueError(f"key value must be finite, got {key.value!r}")
        if self._bounds is not None:
            lo, hi = self._bounds
            if np.any(value < lo) or np.any(value > hi):
                raise ValueError(f"must be between {lo:g} and {hi:g}, got {key.value!r}")
        v = float(value) if self._dim == 0 else tuple(float(x) for x in value)
        return Key(time, v, key.interpolation)

    # -- reading ---------------------------------------------------------------------------

    @property
    def keys(self) -> tuple[Key, ...]:
        return tuple(self.key(i) for i in range(len(self)))

    def key(self, index: int) -> Key:
        v = self._values[index]
        value = float(v) if self._dim == 0 else tuple(float(x) for x in v)
        return Key(float(self._times[index]), value, self._interps[index])

    @property
    def times(self) -> np.ndarray:
        return self._times

    @property
    def values(self) -> np.ndarray:
        return self._values

    @property
    def default(self):
        return self._default

    @property
    def bounds(self) -> tuple[float, float] | None:
        return self._bounds

    @property
    def is_vector(self) -> bool:
        return self._dim != 0

    def __len__(self) -> int:
        return len(self._times)

    def __bool__(self) -> bool:
        return True  # an empty curve is still a curve; ask len() for keys

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Curve):
            return NotImplemented
        return (
            self._default == other._default
            and self._bounds == other._bounds
            and self._interps == other._interps
            and np.array_equal(self._times, other._times)
            and np.array_equal(self._values, other._values)
        )

    def __copy__(self) -> "Curve":
        return self  # immutable: a copy would be the same value

    def __deepcopy__(self, memo) -> "Curve":
        return self

    def __repr__(self) -> str:
        return f"Curve({list(self.keys)!r}, default={self._default!r})"

    def index_at(self, time: float) -> int | None:
        """The index of the key exactly at `time`, or None."""
        i = bisect.bisect_left(self._tlist, float(time))
        return i if i < len(self) and self._times[i] == time else None

    # -- evaluation ------------------------------------------------------------------------

    def at(self, time: float):
        """The value at one time: a float, or a (dim,) array for a vector curve."""
        t = float(time)
        if not math.isfinite(t):
            raise ValueError(f"time must be finite, got {time!r}")
        n = len(self)
        if n == 0:
            return self._default if self._dim == 0 else np.array(self._default)
        times, values = self._tlist, self._vlist
        if t <= times[0]:
            return self._value_out(values[0])
        if t >= times[-1]:
            return self._value_out(values[-1])
        i = bisect.bisect_right(times, t) - 1
        t0, t1 = times[i], times[i + 1]
        w = shape_weight(self._interps[i], (t - t0) / (t1 - t0))
        # The same float operations, in the same order, as `sample`, so the two agree exactly.
        # Round-off must never push a blend weight past 1 (or a value past its neighbours).
        if self._dim == 0:
            return _lerp_within(values[i], values[i + 1], w)
        return np.array([_lerp_within(a, b, w) for a, b in zip(values[i], values[i + 1])])

    def _value_out(self, v):
        return float(v) if self._dim == 0 else np.array(v, dtype=np.float64)

    def sample(self, times) -> np.ndarray:
        """Values at many times at once: (m,) for a scalar curve, (m, dim) for a vector one.
        Equal, value for value, to calling `at` for each time."""
        t = np.asarray(times, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(t)):
            raise ValueError("times must be finite")
        n = len(self)
        out_shape = t.shape if self._dim == 0 else t.shape + (self._dim,)
        if n == 0:
            return np.broadcast_to(np.asarray(self._default), out_shape).copy()
        if n == 1:
            return np.broadcast_to(self._values[0], out_shape).copy()
        i = np.clip(np.searchsorted(self._times, t, side="right") - 1, 0, n - 2)
        t0, t1 = self._times[i], self._times[i + 1]
        u = np.clip((t - t0) / (t1 - t0), 0.0, 1.0)
        codes = np.array([INTERPOLATIONS.index(s) for s in self._interps[:-1]])[i]
        w = np.where(codes == 0, u, np.where(codes == 1, u * u * (3.0 - 2.0 * u), 0.0))
        # Times on or past the last key take its value exactly, as `at` does.
        w = np.where(t >= self._times[-1], 1.0, w)
        v0, v1 = self._values[i], self._values[i + 1]
        if self._dim:
            w = w[:, None]
        v = v0 + (v1 - v0) * w
        v = np.minimum(np.maximum(v, np.minimum(v0, v1)), np.maximum(v0, v1))
        return np.where(np.reshape(t >= self._times[-1], (-1,) + (1,) * (v.ndim - 1)), v1, v)

    # -- edits (each returns a new curve) --------------------------------------------------

    def _with_keys(self, keys: Iterable[Key]) -> "Curve":
        return Curve(keys, default=self._default, bounds=self._bounds)

    def with_key(self, time: float, value, interpolation: str | None = None) -> "Curve":
        """A key added at `time`, replacing one already there (keeping its interpolation
        unless another is given)."""
        keys = list(self.keys)
        j = self.index_at(time)
        if j is not None:
            interp = interpolation or keys[j].interpolation
            del keys[j]
        else:
            interp = interpolation or DEFAULT_INTERPOLATION
        return self._with_keys(keys + [Key(time, value, interp)])

    def without_key(self, index: int) -> "Curve":
        keys = list(self.keys)
        del keys[self._check_index(index)]
        return self._with_keys(keys)

    def moved_key(self, index: int, time: float, value=None) -> tuple["Curve", int]:
        """Key `index` moved to `time` (and `value`, if given). A key already at the new time
        is replaced: the key that is dropped wins. Returns the curve and the key's new index."""
        old = self.key(self._check_index(index))
        rest = [k for j, k in enumerate(self.keys) if j != index and k.time != float(time)]
        moved = Key(time, old.value if value is None else value, old.interpolation)
        curve = self._with_keys(rest + [moved])
        return curve, curve.index_at(float(time))

    def with_interpolation(self, index: int, interpolation: str) -> "Curve":
        keys = list(self.keys)
        k = keys[self._check_index(index)]
        keys[index] = Key(k.time, k.value, interpolation)
        return self._with_keys(keys)

    def without_keys_between(self, start: float, end: float) -> "Curve":
        """Keys with start <= time <= end removed."""
        return self._with_keys(k for k in self.keys if not (start <= k.time <= end))

    def _check_index(self, index: int) -> int:
        if not 0 <= index < len(self):
            raise IndexError(f"no key {index}: the curve has {len(self)}")
        return index


def weight_curve(keys: Iterable[Key | tuple] = ()) -> Curve:
    """A blend-weight curve: values in [0, 1]; with no keys, IK is fully on."""
    return Curve(keys, default=1.0, bounds=(0.0, 1.0))


def position_curve(keys: Iterable[Key | tuple] = ()) -> Curve:
    """A target or pole curve: world positions in metres."""
    return Curve(keys, default=(0.0, 0.0, 0.0))
