"""The pose layer (issue 25): keyed local rotations over the clip, under the IK.

What a rig shows is: the clip (or the rest pose) at the rig's time -> this layer -> the IK
chains blended by weight. The layer is additive, per joint, in local space: shown_local =
base_local * delta, so a tweak over mocap keeps the mocap's motion; the root joints' local
translations get an additive offset vector (one for every root).

Each joint has a `Channel` (pose_channel.py): keys (time, value, interpolation) and an
unkeyed value held as in Blender. A channel without keys holds its value at every time (a
static pose); on a keyed channel an unkeyed edit holds only at the time it was made
(`held_time`), and once the time changes the keys rule again. A key's interpolation governs the segment leaving
it, as in core/curve.py: "linear" (slerp; lerp for the offset), "ease" (smoothstep on the
slerp parameter, the default) or "constant"; before the first key and after the last the
channel holds its end value.

`PoseLayer` is an immutable value: every edit returns a new layer, so undo is "keep the old
one, put it back", and its channels are packed once for the compiled evaluation
(`packed`, pose_kernel.py: every frame of a drag, playback, the onion skin, the motion
trails and a bake evaluates the layer). `to_data` / `from_data` are its plain JSON-able form (presets, the editor).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Iterable, Mapping

import numpy as np

from .curve import INTERPOLATIONS
from .field_error import FieldError
from .pose_channel import TIME_EPS, Channel, PoseKey
from .pose_kernel import PackedLayer

__all__ = ["Channel", "IDENTITY", "PoseKey", "PoseLayer", "TIME_EPS"]

IDENTITY = (0.0, 0.0, 0.0, 1.0)


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
        if self.root.keys:
            return True
        for c in self.joints.values():  # a loop, not any() over a generator: asked every solve
            if c.keys:
                return True
        return False

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

    @cached_property
    def packed(self) -> PackedLayer:
        """The channels as the compiled kernels read them (pose_kernel.py), made once."""
        return PackedLayer(self.joints, self.root)

    def rotations_at(self, time: float) -> dict[str, np.ndarray]:
        """Joint name -> its delta quaternion at `time` (every joint with a channel)."""
        packed = self.packed
        return dict(zip(packed.names, packed.values_at(np.array([time]))[0]))

    def rotation_at(self, name: str, time: float) -> np.ndarray:
        """One joint's delta at `time` (identity without a channel)."""
        return self.rotations_at(time).get(name, np.array(IDENTITY))

    def offset_at(self, time: float) -> np.ndarray:
        """The roots' translation offset at `time` (zero without one)."""
        return self.packed.values_at(np.array([time]))[0, -1, :3]

    # -- edits (each returns a new layer) ------------------------------------------------------

    def with_rotation(self, name: str, delta, time: float) -> "PoseLayer":
        """An unkeyed edit of one joint's delta at `time` (held as the module docstring says)."""
        value = _quat(delta)
        return replace(self, joints={**self.joints, name: self.joints.get(name, Channel()).with_held(value, time)})

    def with_offset(self, offset, time: float) -> "PoseLayer":
        value = tuple(float(v) for v in offset)
        return replace(self, root=self.root.with_held(value, time))

    def keyed(self, time: float, names: Iterable[str], root: bool, now: float | None = None) -> "PoseLayer":
        """The values shown at `now` (default: `time`) keyed at `time` for the joints
        `names` (an identity delta for one the layer does not move) and, if `root`, the
        roots' offset."""
        now = time if now is None else now
        deltas = self.rotations_at(now)
        joints = dict(self.joints)
        for name in names:
            value = _quat(deltas.get(name, IDENTITY))
            joints[name] = joints.get(name, Channel()).with_key(time, value)
        out = self.root.with_key(time, tuple(float(v) for v in self.offset_at(now))) if root else self.root
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

    def unknown_joints(self, known: Iterable[str]) -> list[str]:
        names = set(known)
        return [n for n in self.joints if n not in names]

    # -- plain data (presets, undo, the clipboard) ----------------------------------------------

    def to_data(self) -> dict:
        """{"joints": {name: channel}, "root": channel (absent when empty)}; a channel is
        {"keys": [{"time", "value", "interpolation"}], "held", "held_time"} (pose_channel.py)."""
        out: dict = {"joints": {name: ch.to_data() for name, ch in self.joints.items()}}
        if not self.root.is_empty:
            out["root"] = self.root.to_data()
        return out

    @classmethod
    def from_data(cls, data, skeleton) -> "PoseLayer":
        """The layer to_data gave, its joints checked against `skeleton`'s names; a bad
        field raises FieldError naming its path (("joints", "Head", "keys", 0, "time"), ...)."""
        if not isinstance(data, dict):
            raise FieldError((), f"a pose layer must be an object, got {type(data).__name__}")
        for name in data:
            if name not in ("joints", "root"):
                raise FieldError((name,), "is not a field (fields: joints, root)")
        joints = data.get("joints", {})
        if not isinstance(joints, dict):
            raise FieldError(("joints",), f"must be an object (joint name -> channel), got {type(joints).__name__}")
        known = set(skeleton.names)
        channels = {}
        for name, ch in joints.items():
            if name not in known:
                raise FieldError(("joints", name), f"no joint named {name!r} in the skeleton")
            channels[name] = _channel(ch, 4, ("joints", name))
        root = _channel(data["root"], 3, ("root",)) if data.get("root") is not None else Channel()
        return cls(channels, root)


def _channel(data, size: int, where: tuple) -> Channel:
    try:
        return Channel.from_data(data, size)
    except FieldError as e:
        raise FieldError(where + e.where, e.problem) from None


def _quat(q) -> tuple:
    a = np.asarray(q, dtype=np.float64).reshape(-1)
    n = float(np.linalg.norm(a)) if a.shape == (4,) else 0.0
    if not (np.isfinite(n) and n > 1e-12):
        raise ValueError(f"a rotation must be a non-zero finite quaternion (x, y, z, w), got {q!r}")
    return tuple(float(v) for v in a / n)
