"""The timeline: per-chain keyed curves that drive the rig over time.

Each chain may have a track: a blend-weight curve (IK eases in as a foot plants, out as it
lifts) and target and pole position curves. `Timeline.apply(rig, t)` writes the curves'
values at time t into the rig, only for curves that have keys, and sets the rig's time so a
loaded clip's animated pose follows; the caller then solves.

Tracks are immutable and every edit method returns the chain's previous track, so an undo
command is just "put the previous track back" (`set_track`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from .curve import Curve, Key, position_curve, weight_curve

KINDS = ("weight", "target", "pole")

# The range an ease-in or ease-out ramp may take, in seconds. Below 50 ms the weight snaps
# as visibly as with no ramp at 24-30 fps (one or two frames); above 1 s the limb visibly
# floats between the animated and the solved pose. 0.15 s suits a foot plant or a hand grab.
EASE_MIN_S = 0.05
EASE_MAX_S = 1.0
EASE_DEFAULT_S = 0.15


@dataclass(frozen=True)
class Track:
    weight: Curve = field(default_factory=weight_curve)
    target: Curve = field(default_factory=position_curve)
    pole: Curve = field(default_factory=position_curve)

    def curve(self, kind: str) -> Curve:
        _check_kind(kind)
        return getattr(self, kind)

    def with_curve(self, kind: str, curve: Curve) -> "Track":
        _check_kind(kind)
        if curve.is_vector != getattr(self, kind).is_vector:
            raise ValueError(f"a {kind} curve must hold {'positions' if kind != 'weight' else 'weights'}")
        return replace(self, **{kind: curve})

    @property
    def is_empty(self) -> bool:
        return not (len(self.weight) or len(self.target) or len(self.pole))


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"curve kind must be one of {', '.join(KINDS)}, got {kind!r}")


def ease_in_keys(curve: Curve, time: float, start: float) -> Curve:
    """A 0 -> 1 ramp with ease in-out from `start` to `time`; keys inside it are dropped."""
    return _ramp(curve, start, time, 0.0, 1.0)


def ease_out_keys(curve: Curve, time: float, end: float) -> Curve:
    """A 1 -> 0 ramp with ease in-out from `time` to `end`; keys inside it are dropped."""
    return _ramp(curve, time, end, 1.0, 0.0)


def _ramp(curve: Curve, t0: float, t1: float, v0: float, v1: float) -> Curve:
    if not t0 < t1:
        raise ValueError(f"a ramp must end after it starts, got {t0} .. {t1} s")
    inside = [k for k in curve.keys if not (t0 < k.time < t1)]
    return Curve(inside, default=curve.default, bounds=curve.bounds).with_key(t0, v0, "ease").with_key(t1, v1)


class Timeline:
    def __init__(
        self,
        frame_rate: float = 30.0,
        start: float = 0.0,
        end: float = 2.0,
        tracks: Mapping[str, Track] | None = None,
    ) -> None:
        self.set_range(start, end)
        self.frame_rate = frame_rate
        self._tracks: dict[str, Track] = {}
        for name, track in (tracks or {}).items():
            self.set_track(name, track)

    # -- frame rate, range and frames -------------------------------------------------------

    @property
    def frame_rate(self) -> float:
        return self._frame_rate

    @frame_rate.setter
    def frame_rate(self, fps: float) -> None:
        fps = float(fps)
        if not (math.isfinite(fps) and fps > 0):
            raise ValueError(f"frame rate must be a positive number of frames per second, got {fps}")
        self._frame_rate = fps

    @property
    def start(self) -> float:
        return self._start

    @property
    def end(self) -> float:
        return self._end

    def set_range(self, start: float, end: float) -> None:
        start, end = float(start), float(end)
        if not (math.isfinite(start) and math.isfinite(end) and start < end):
            raise ValueError(f"timeline range must be finite with start < end, got {start} .. {end} s")
        self._start, self._end = start, end

    @property
    def duration(self) -> float:
        return self._end - self._start

    def frame_at(self, time: float) -> int:
        """The nearest frame number (frame 0 is at 0 s; half a frame rounds up)."""
        return math.floor(float(time) * self._frame_rate + 0.5)

    def time_of_frame(self, frame: int) -> float:
        return frame / self._frame_rate

    def snap(self, time: float) -> float:
        return self.time_of_frame(self.frame_at(time))

    @property
    def first_frame(self) -> int:
        return math.ceil(self._start * self._frame_rate - 1e-9)

    @property
    def last_frame(self) -> int:
        return math.floor(self._end * self._frame_rate + 1e-9)

    def next_frame_time(self, time: float, step: int = 1) -> float:
        """The time `step` frames on from `time`'s frame, looping within the range."""
        first, last = self.first_frame, self.last_frame
        f = self.frame_at(time) + step
        span = last - first + 1
        return self.time_of_frame(first + (f - first) % span)

    # -- tracks -----------------------------------------------------------------------------

    @property
    def tracks(self) -> dict[str, Track]:
        return dict(self._tracks)

    def track(self, chain: str) -> Track:
        return self._tracks.get(chain) or Track()

    def set_track(self, chain: str, track: Track) -> Track:
        """Replace a chain's track; returns the previous one (the undo of this edit)."""
        if not isinstance(track, Track):
            raise TypeError(f"expected a Track, got {type(track).__name__}")
        previous = self.track(chain)
        if track.is_empty:
            self._tracks.pop(chain, None)
        else:
            self._tracks[chain] = track
        return previous

    def curve(self, chain: str, kind: str = "weight") -> Curve:
        return self.track(chain).curve(kind)

    def set_curve(self, chain: str, kind: str, curve: Curve) -> Track:
        return self.set_track(chain, self.track(chain).with_curve(kind, curve))

    # -- key edits: each returns the chain's previous track ---------------------------------

    def add_key(self, chain: str, kind: str, time: float, value, interpolation: str | None = None) -> Track:
        return self.set_curve(chain, kind, self.curve(chain, kind).with_key(time, value, interpolation))

    def move_key(self, chain: str, kind: str, index: int, time: float, value=None) -> Track:
        curve, _ = self.curve(chain, kind).moved_key(index, time, value)
        return self.set_curve(chain, kind, curve)

    def delete_key(self, chain: str, kind: str, index: int) -> Track:
        return self.set_curve(chain, kind, self.curve(chain, kind).without_key(index))

    def set_interpolation(self, chain: str, kind: str, index: int, interpolation: str) -> Track:
        return self.set_curve(chain, kind, self.curve(chain, kind).with_interpolation(index, interpolation))

    def ease_in(self, chain: str, time: float, duration: float = EASE_DEFAULT_S) -> Track:
        """IK reaches full weight at `time`, ramping up with ease in-out over `duration`
        before it (a foot planting at `time`)."""
        start = self._ramp_other_end(time, -_check_duration(duration))
        return self.set_curve(chain, "weight", ease_in_keys(self.curve(chain), time, start))

    def ease_out(self, chain: str, time: float, duration: float = EASE_DEFAULT_S) -> Track:
        """IK leaves full weight at `time`, ramping down with ease in-out over `duration`
        after it (a foot lifting at `time`)."""
        end = self._ramp_other_end(time, _check_duration(duration))
        return self.set_curve(chain, "weight", ease_out_keys(self.curve(chain), time, end))

    def _ramp_other_end(self, time: float, signed_duration: float) -> float:
        # The far end lands on a frame so its key can be dragged like any other key; the ramp
        # is a whole number of frames (half a frame rounds up) and never less than one.
        frames = max(1, math.floor(abs(signed_duration) * self._frame_rate + 0.5 + 1e-9))
        return self.time_of_frame(self.frame_at(time) + int(math.copysign(frames, signed_duration)))

    def key_target(self, chain: str, time: float, position: Sequence[float]) -> Track:
        return self.add_key(chain, "target", time, tuple(position))

    def key_pole(self, chain: str, time: float, position: Sequence[float]) -> Track:
        return self.add_key(chain, "pole", time, tuple(position))

    # -- driving a rig ----------------------------------------------------------------------

    def values_at(self, time: float) -> dict[str, dict[str, object]]:
        """Chain name -> {"weight": float, "target": (x, y, z), "pole": (x, y, z)}, holding
        only the settings whose curves have keys."""
        out: dict[str, dict[str, object]] = {}
        for name, track in self._tracks.items():
            values: dict[str, object] = {}
            if len(track.weight):
                values["weight"] = track.weight.at(time)
            for kind in ("target", "pole"):
                curve = track.curve(kind)
                if len(curve):
                    values[kind] = tuple(float(v) for v in curve.at(time))
            out[name] = values
        return out

    def apply(self, rig, time: float) -> None:
        """Set the rig's time and each keyed chain's weight, target and pole at `time`."""
        time = float(time)
        rig.time = time
        for name, values in self.values_at(time).items():
            ch = rig.chain(name)
            for field_name, value in values.items():
                setattr(ch, field_name, value)

    # -- value semantics --------------------------------------------------------------------

    def copy(self) -> "Timeline":
        return Timeline(self._frame_rate, self._start, self._end, self._tracks)

    def __deepcopy__(self, memo) -> "Timeline":
        return self.copy()  # tracks are immutable values: sharing them is safe

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Timeline):
            return NotImplemented
        return (self._frame_rate, self._start, self._end, self._tracks) == (
            other._frame_rate,
            other._start,
            other._end,
            other._tracks,
        )

    def __repr__(self) -> str:
        return f"Timeline({self._frame_rate:g} fps, {self._start:g}..{self._end:g} s, chains={sorted(self._tracks)})"


def _check_duration(duration: float) -> float:
    d = float(duration)
    if not EASE_MIN_S <= d <= EASE_MAX_S:
        raise ValueError(f"ease duration must be between {EASE_MIN_S:g} and {EASE_MAX_S:g} s, got {d:g}")
    return d


__all__ = [
    "Curve",
    "EASE_DEFAULT_S",
    "EASE_MAX_S",
    "EASE_MIN_S",
    "KINDS",
    "Key",
    "Timeline",
    "Track",
    "ease_in_keys",
    "ease_out_keys",
    "position_curve",
    "weight_curve",
]
