"""The `pose_layer` section of a JSON preset (version 4): the pose layer over the clip
(rigedit.core.pose_layer), in the form PoseLayer.to_data gives.

    "pose_layer": {
      "joints": {
        "LeftForeArm": {"keys": [{"time": 0.0, "value": [0.0, 0.0, 0.0, 1.0], "interpolation": "ease"},
                                 {"time": 1.0, "value": [0.38, 0.0, 0.0, 0.92]}]},
        "Head": {"keys": [], "held": [0.0, 0.2, 0.0, 0.98]}
      },
      "root": {"keys": [{"time": 0.0, "value": [0.0, 0.0, 0.0]}]}
    }

A joint's values are delta quaternions (x, y, z, w) in its local frame: the shown rotation
is the clip's (or the rest pose's) times the delta. `root` holds the roots' translation
offset in metres. `held` is an edit that was not keyed: without keys it holds at every time,
with keys only at `held_time`. The models check the shape for the published schema; the
core (PoseLayer.from_data) checks the rest (joint names, distinct key times) and the reader
puts its FieldError at this section's path.
"""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .model_fields import vector
from .timeline_model import Interpolation

Seconds = Annotated[float, Field(ge=-1e9, le=1e9)]


def _nonzero(v: list[float]) -> list[float]:
    if sum(x * x for x in v) <= 1e-18:
        raise ValueError("must be a rotation (x, y, z, w), got a zero quaternion")
    return v


Quat = Annotated[vector(4, "[x, y, z, w]"), AfterValidator(_nonzero)]
Vec3 = vector(3, "[x, y, z]")


class _Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


class RotationKeyModel(_Model):
    time: Seconds = Field(description="seconds")
    value: Quat = Field(description="the delta rotation (x, y, z, w) on the clip's local rotation")
    interpolation: Interpolation = Field("ease", description="shape of the segment to the next key (slerp)")


class OffsetKeyModel(_Model):
    time: Seconds = Field(description="seconds")
    value: Vec3 = Field(description="the roots' translation offset [x, y, z], metres")
    interpolation: Interpolation = Field("ease", description="shape of the segment to the next key")


class RotationChannelModel(_Model):
    keys: list[RotationKeyModel] = Field(default_factory=list, description="at distinct times")
    held: Quat | None = Field(default=None, description="an unkeyed edit: at every time without keys, else at held_time")
    held_time: Seconds | None = Field(default=None, description="with keys: the time the unkeyed edit holds at")


class OffsetChannelModel(_Model):
    keys: list[OffsetKeyModel] = Field(default_factory=list, description="at distinct times")
    held: Vec3 | None = Field(default=None, description="an unkeyed edit: at every time without keys, else at held_time")
    held_time: Seconds | None = Field(default=None, description="with keys: the time the unkeyed edit holds at")


class PoseLayerModel(_Model):
    """Keyed local rotations (and a root offset) over the clip, under the IK (issue 25)."""

    joints: dict[str, RotationChannelModel] = Field(default_factory=dict, description="joint name -> its channel")
    root: OffsetChannelModel | None = Field(default=None, description="the root joints' translation offset")
