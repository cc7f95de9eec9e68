"""The `timeline` section of a JSON preset: its pydantic model and conversion to and from
`rigedit.core.timeline.Timeline`.

    "timeline": {
      "frame_rate": 30.0,
      "range": [0.0, 2.0],
      "tracks": {
        "left_leg": {
          "weight": {"keys": [{"time": 0.8, "value": 0.0, "interpolation": "ease"},
                              {"time": 1.0, "value": 1.0, "interpolation": "ease"}]},
          "target": {"keys": [{"time": 1.0, "value": [0.1, 0.0, 0.2], "interpolation": "linear"}]}
        }
      }
    }

Times are seconds. A key's interpolation shapes the segment from it to the next key. Keys may
be listed in any order; they are saved sorted by time. The rules follow preset_model.py
(strict types, unknown fields refused) and word problems as the core does, so the preset
reader can print `FILE: timeline.tracks.left_leg.weight.keys[3].value: must be between 0
and 1, got 1.2`.
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo

from rigedit.core import chain_checks as checks
from rigedit.core.curve import INTERPOLATIONS, Key, position_curve, weight_curve
from rigedit.core.timeline import KINDS, Timeline, Track

Interpolation = Literal["linear", "ease", "constant"]
assert set(Interpolation.__args__) == set(INTERPOLATIONS)  # one list of names, two spellings


def _at(where: tuple, problem: str) -> ValueError:
    # preset_model imports this module for its `timeline` slot, so its At (a problem at a
    # sub-path) is fetched when a check runs, not when this module loads.
    from .preset_model import At

    return At(where, problem)


def _list_of(n: int, shape: str):
    def check(v: list[float]) -> list[float]:
        if len(v) != n:
            raise ValueError(f"must be {n} numbers {shape}, got {len(v)}: {v}")
        return v

    return Annotated[list[float], AfterValidator(check), Field(json_schema_extra={"minItems": n, "maxItems": n})]


Weight = Annotated[float, AfterValidator(checks.check_weight), Field(json_schema_extra={"minimum": 0.0, "maximum": 1.0})]
Position = _list_of(3, "[x, y, z]")


def _ordered_range(v: list[float]) -> list[float]:
    if not v[0] < v[1]:
        raise ValueError(f"start must be before end, got [{v[0]!r}, {v[1]!r}]")
    return v


Range = Annotated[_list_of(2, "[start, end]"), AfterValidator(_ordered_range)]


def _positive(v: float) -> float:
    if not v > 0:
        raise ValueError(f"must be greater than 0, got {v!r}")
    return v


FrameRate = Annotated[float, AfterValidator(_positive), Field(json_schema_extra={"exclusiveMinimum": 0.0})]


class _Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


class WeightKeyModel(_Model):
    time: float = Field(description="seconds")
    value: Weight = Field(description="blend weight: 0 is the animated pose, 1 is full IK")
    interpolation: Interpolation = Field("ease", description="shape of the segment to the next key")


class PositionKeyModel(_Model):
    time: float = Field(description="seconds")
    value: Position = Field(description="world position [x, y, z], metres")
    interpolation: Interpolation = Field("ease", description="shape of the segment to the next key")


def _distinct_times(keys: list) -> list:
    seen: dict[float, int] = {}
    for i, k in enumerate(keys):
        if k.time in seen:
            raise _at((i, "time"), f"{k.time!r} s is already the time of keys[{seen[k.time]}]")
        seen[k.time] = i
    return keys


class WeightCurveModel(_Model):
    keys: Annotated[list[WeightKeyModel], AfterValidator(_distinct_times)] = Field(default_factory=list)


class PositionCurveModel(_Model):
    keys: Annotated[list[PositionKeyModel], AfterValidator(_distinct_times)] = Field(default_factory=list)


class TrackModel(_Model):
    """One chain's curves. A curve without keys leaves that setting of the chain alone."""

    weight: WeightCurveModel | None = None
    target: PositionCurveModel | None = None
    pole: PositionCurveModel | None = None


class TimelineModel(_Model):
    frame_rate: FrameRate = Field(30.0, description="frames per second")
    range: Range = Field([0.0, 2.0], description="[start, end], seconds")
    tracks: dict[str, TrackModel] = Field(default_factory=dict, description="chain name -> its curves")


def _tracks_name_chains(timeline: TimelineModel | None, info: ValidationInfo) -> TimelineModel | None:
    # The preset's chains are validated before its timeline (field order), so they are here
    # unless they failed, in which case that failure is the one to report.
    chains = info.data.get("chains")
    if timeline is not None and chains is not None:
        names = [c.name for c in chains]
        for name in timeline.tracks:
            if name not in names:
                raise _at(("tracks", name), f"no chain named {name!r} (chains: {', '.join(names) or 'none'})")
    return timeline


# The type of PresetModel.timeline.
TimelineSlot = Annotated[TimelineModel | None, AfterValidator(_tracks_name_chains)]


def timeline_from_model(model: TimelineModel | None) -> Timeline:
    """The core Timeline for a preset's section (an empty one when the preset has none)."""
    if model is None:
        return Timeline()
    tracks = {
        name: Track(weight=weight_curve(_keys(tm.weight)), target=position_curve(_keys(tm.target)), pole=position_curve(_keys(tm.pole)))
        for name, tm in model.tracks.items()
    }
    return Timeline(model.frame_rate, model.range[0], model.range[1], tracks)


def _keys(curve: WeightCurveModel | PositionCurveModel | None) -> list[Key]:
    return [] if curve is None else [Key(k.time, tuple(k.value) if isinstance(k.value, list) else k.value, k.interpolation) for k in curve.keys]


def timeline_document(timeline: Timeline) -> dict | None:
    """The JSON section for a rig's timeline; None for an untouched empty one, so presets
    that never used the timeline stay as they were."""
    if timeline is None or timeline == Timeline():
        return None
    tracks = {}
    for name, track in timeline.tracks.items():
        tracks[name] = {
            kind: {"keys": [{"time": k.time, "value": _json_value(k.value), "interpolation": k.interpolation} for k in track.curve(kind).keys]}
            for kind in KINDS
            if len(track.curve(kind))
        }
    return {"frame_rate": timeline.frame_rate, "range": [timeline.start, timeline.end], "tracks": tracks}


def _json_value(value):
    return list(value) if isinstance(value, tuple) else value
