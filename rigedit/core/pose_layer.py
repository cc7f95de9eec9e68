"""The pose layer (issue 25): keyed local rotations over the clip, under the IK.

What a rig shows is: the clip (or the rest pose) at the rig's time -> this layer -> the IK
chains blended by weight. The layer is additive, per joint, in local space: shown_local =
base_local * delta, so a tweak over mocap keeps the mocap's motion; the root joints' local
translations get an additive offset vector (one for every root).

Each joint has a `Channel`: keys (time, value, interpolation) and an unkeyed value held as
in Blender. A channel without keys holds its value at every time (a static pose); on a
keyed channel an unkeyed edit holds only at the time it was made (`held_time`), and once
the time changes the keys rule again. A key's interpolation governs the segment leaving
it, as in core/curve.py: "linear" (slerp; lerp for the offset), "ease" (smoothstep on the
slerp parameter, the default) or "constant"; before the first key and after the last the
channel holds its end value.

`PoseLayer` is an immutable value: every edit returns a new layer, so undo is "keep the old
one, put it back". Its plain-data form (presets, undo, the editor) is pose_layer_data.py's.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

import numpy as np

from .curve import DEFAULT_INTERPOLATION, INTERPOLATIONS, shape_weight
from .transforms import quat_slerp

TIME_EPS = 1e-9  # seconds: two key times closer than this are the same key time
IDENTITY = (0.0, 0.0, 0.0, 1.0)
NO_OFFSET = (0.0, 0.0, 0.0)


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

    @property
    def is_empty(self) -> bool:
        return not self.keys and self.held is None

    def segment(self, time: float):
        """(v0, v1, w): the value at `time` is v0 mixed toward v1 by w; None when empty."""
        if self.held is not None and (self.held_time is None or abs(time - self.held_time) <= TIME_EPS):
            return self.held, self.held, 0.0
        keys = self.keys
        if not keys:
            return None
        if time <= keys[0].time:
            return keys[0].value, keys[0].value, 0.0
        if time >= keys[-1].time:
            return keys[-1].value, keys[-1].value, 0.0
        i = bisect.bisect_right([k.time for k in keys], time) - 1
        k0, k1 = keys[i], keys[i + 1]
        return k0.value, k1.value, shape_weight(k0.interpolation, (time - k0.time) / (k1.time - k0.time))

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

    def settled(self, time: float) -> "Channel":
        """Without an unkeyed value made at another time than `time` (the time has moved)."""
        if self.held_time is None or abs(self.held_time - time) <= TIME_EPS:
            return self
        return Channel(self.keys)


def _sorted(keys: list[PoseKey]) -> tuple[PoseKey, ...]:
    return tuple(sorted(keys, key=lambda k: k.time))


@dataclass(frozen=True)
class PoseLayer:
    """Joint name -> Channel of delta quaternions, and the roots' offset Channel (3-vectors).
    Names are checked against a skeleton by the rig (Rig.pose_layer) and by from_data."""

    joints: Mapping[str, Channel] = field(default_factory=dict)
    root: Channel = Channel()

    def __post_init__(self) -> None:
        object.__setattr__(self, "joints", {n: c for n, c in self.joints.items() if not c.is_empty})

    # -- reading -----------------------------------------------------------------------------

    @property
    def is_empty(self) -> bool:
        return not self.joints and self.root.is_empty

    @property
    def is_animated(self) -> bool:
        """Whether what it shows depends on the time (it has keys)."""
        return bool(self.root.keys) or any(c.keys for c in self.joints.values())

    @property
    def has_pending(self) -> bool:
        """Whether an unkeyed edit of a keyed joint holds only at the time it was made."""
        return any(c.held_time is not None for c in self._channels())

    @property
    def key_times(self) -> tuple[float, ...]:
        """Every key time of every channel, sorted, those within TIME_EPS taken once."""
        times = sorted(k.time for c in self._channels() for k in c.keys)
        out: list[float] = []
        for t in times:
            if not out or t - out[-1] > TIME_EPS:
                out.append(t)
        return tuple(out)

    def _channels(self) -> Iterable[Channel]:
        yield from self.joints.values()
        yield self.root

    def rotations_at(self, time: float) -> dict[str, np.ndarray]:
        """Joint name -> its delta quaternion at `time` (every joint with a channel), slerped
        in one vectorised call."""
        names, v0, v1, w = [], [], [], []
        for name, ch in self.joints.items():
            a, b, u = ch.segment(time)
            names.append(name)
            v0.append(a)
            v1.append(b)
            w.append(u)
        if not names:
            return {}
        mixed = quat_slerp(np.array(v0), np.array(v1), np.array(w))
        return dict(zip(names, mixed))

    def rotation_at(self, name: str, time: float) -> np.ndarray:
        """One joint's delta at `time` (identity without a channel)."""
        ch = self.joints.get(name)
        got = None if ch is None else ch.segment(time)
        if got is None:
            return np.array(IDENTITY)
        return quat_slerp(np.array(got[0]), np.array(got[1]), got[2])

    def offset_at(self, time: float) -> np.ndarray:
        """The roots' translation offset at `time` (zero without one)."""
        got = self.root.segment(time)
        if got is None:
            return np.zeros(3)
        a, b = np.array(got[0]), np.array(got[1])
        return a + (b - a) * got[2]

    # -- edits (each returns a new layer) ------------------------------------------------------

    def with_rotation(self, name: str, delta, time: float) -> "PoseLayer":
        """An unkeyed edit of one joint's delta at `time` (held as the module docstring says)."""
        value = _quat(delta)
        return replace(self, joints={**self.joints, name: self.joints.get(name, Channel()).with_held(value, time)})

    def with_offset(self, offset, time: float) -> "PoseLayer":
        value = tuple(float(v) for v in offset)
        return replace(self, root=self.root.with_held(value, time))

    def keyed(self, time: float, names: Iterable[str], root: bool) -> "PoseLayer":
        """The values shown at `time` keyed there for the joints `names` (an identity delta
        for one the layer does not move) and, if `root`, the roots' offset."""
        deltas = self.rotations_at(time)
        joints = dict(self.joints)
        for name in names:
            value = _quat(deltas.get(name, IDENTITY))
            joints[name] = joints.get(name, Channel()).with_key(time, value)
        out = self.root.with_key(time, tuple(float(v) for v in self.offset_at(time))) if root else self.root
        return PoseLayer(joints, out)

    def _map(self, edit) -> "PoseLayer":
        return PoseLayer({n: edit(c) for n, c in self.joints.items()}, edit(self.root))

    def without_key(self, time: float) -> "PoseLayer":
        return self._map(lambda c: c.without_key(time))

    def moved_key(self, time: float, new_time: float) -> "PoseLayer":
        return self._map(lambda c: c.edited_key(time, new_time=new_time))

    def with_interpolation(self, time: float, interpolation: str) -> "PoseLayer":
        if interpolation not in INTERPOLATIONS:
            raise ValueError(f"interpolation must be one of {', '.join(INTERPOLATIONS)}, got {interpolation!r}")
        return self._map(lambda c: c.edited_key(time, interpolation=interpolation))

    def settled(self, time: float) -> "PoseLayer":
        """Unkeyed edits of keyed joints made at another time dropped (the time has moved)."""
        return self._map(lambda c: c.settled(time))

    def only(self, names: Iterable[str]) -> "PoseLayer":
        keep = set(names)
        return PoseLayer({n: c for n, c in self.joints.items() if n in keep}, self.root)

    def unknown_joints(self, known: Iterable[str]) -> list[str]:
        names = set(known)
        return [n for n in self.joints if n not in names]


def _quat(q) -> tuple:
    a = np.asarray(q, dtype=np.float64).reshape(-1)
    n = float(np.linalg.norm(a)) if a.shape == (4,) else 0.0
    if not (np.isfinite(n) and n > 1e-12):
        raise ValueError(f"a rotation must be a non-zero finite quaternion (x, y, z, w), got {q!r}")
    return tuple(float(v) for v in a / n)
