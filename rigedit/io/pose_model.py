"""The `pose` section of a JSON preset (version 2): each chain's last solution, so that
opening a rig shows the pose that was saved (rigedit.core.rig_pose).

    "pose": {
      "time": 0.0,
      "chains": {
        "left_arm": {"rotations": [[0.0, 0.0, 0.1, 0.995], ...], "error": 0.0, "reached": true, "settled": true},
        "tail": {"rotations": [...], "error": 0.04, "reached": false, "settled": true,
                 "limited": {"points": [...], "frames": [...], "dirs": [...], "axes": [...]}}
      }
    }

`rotations` are the chain's IK local rotations (x, y, z, w), one per joint but the tip;
`limited` is a limited FABRIK chain's next warm start; `base` the world position and
rotation of the chain root's parent it was solved on; `"current": false` says it was solved
with other settings than the file's (a chain edited since): it is then only the start of
the next solve, as it was for the rig that saved it. A rig saved with full_body on keeps
the whole body's solution instead, in `full_body`: every joint's rotation, the root's
translation and each chain's tip error (an older file without it is solved again). A pose that no longer fits its chain
(a target or bone edited by hand) is dropped when the rig is built and that chain is solved
afresh; one that cannot be a pose at all (a rotation that is not unit, a wrong count) is an
error naming its field.
"""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from rigedit.core import chain_checks as checks
from rigedit.core.ik import registry

from .model_fields import vector

# Saved rotations are unit to round-off (~1e-16); a hand-written one to six decimals is
# still a rotation (the reader normalises it), a vector of any other length is a mistake.
UNIT_TOLERANCE = 1e-6


def _unit(v: list[float]) -> list[float]:
    norm = sum(x * x for x in v) ** 0.5
    if abs(norm - 1.0) > UNIT_TOLERANCE:
        raise ValueError(f"must be a unit quaternion (x, y, z, w), got one of length {norm!r}")
    return v


Vec3 = vector(3, "[x, y, z]")
UnitQuat = Annotated[vector(4, "[x, y, z, w]"), AfterValidator(_unit)]
def _unit_tail(v: list[float]) -> list[float]:
    _unit(v[3:])
    return v


Base = Annotated[vector(7, "[x, y, z, qx, qy, qz, qw]"), AfterValidator(_unit_tail)]
Metres = Annotated[float, Field(ge=0.0, le=checks.MAX_COORD)]
Seconds = Annotated[float, Field(ge=-1e9, le=1e9)]


class _Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


class LimitedStartModel(_Model):
    """A limited FABRIK chain's warm start as its last solve left it."""

    points: list[Vec3] = Field(description="the solved joint positions, root to tip, metres")
    frames: list[UnitQuat] = Field(description="each bone's world rotation there")
    dirs: list[Vec3] = Field(description="each bone's limit reference direction there")
    axes: list[Vec3] = Field(description="each bone's hinge axis in world space there (zero for none)")
    lengths: list[Metres] | None = Field(default=None, description="the bone lengths its limits were prepared with")

    @model_validator(mode="after")
    def _counts(self):
        m = len(self.frames)
        if len(self.points) != m + 1:
            raise _at(("points",), f"must give one point per joint ({m + 1}, one more than frames), got {len(self.points)}")
        for name in ("dirs", "axes") + (("lengths",) if self.lengths is not None else ()):
            if len(getattr(self, name)) != m:
                raise _at((name,), f"must give one per bone ({m}, as frames), got {len(getattr(self, name))}")
        return self


class ChainPoseModel(_Model):
    rotations: list[UnitQuat] = Field(description="IK local rotations (x, y, z, w), one per joint but the tip")
    error: Metres = Field(description="the tip's distance from the target, metres")
    reached: bool
    settled: bool = Field(default=True, description="false: FABRIK was still closing in; the next solve goes on")
    limited: LimitedStartModel | None = Field(default=None, description="a limited FABRIK chain's warm start")
    base: Base | None = Field(
        default=None, description="[x, y, z, qx, qy, qz, qw]: where the chain's root's parent was when it was solved"
    )
    current: bool = Field(default=True, description="false: solved with other settings; only the next solve's start")


class FullBodyPoseModel(_Model):
    """The full-body solve's last result (issue 16; rigedit.core.rig_full_body)."""

    rotations: list[UnitQuat] = Field(description="every joint's local rotation (x, y, z, w), in skeleton order")
    root: Vec3 = Field(description="the root joint's translation, metres")
    errors: dict[str, Metres] = Field(description="chain name -> its tip's distance from its target then, metres")
    current: bool = Field(default=True, description="false: solved for other goals or settings; only the next solve's start")
    warm_start: bool = Field(default=True, description="false: solved for other chains or limits; not even the next solve's start")
    anim_root: Base | None = Field(default=None, description="[x, y, z, qx, qy, qz, qw]: the animated root it was solved over")


class PoseModel(_Model):
    time: Seconds = Field(default=0.0, description="the animation time the pose was solved at, seconds")
    chains: dict[str, ChainPoseModel] = Field(default_factory=dict, description="chain name -> its last solution")
    full_body: FullBodyPoseModel | None = Field(
        default=None, description="issue 16: the whole body's last solution, for a rig saved with full_body on"
    )

    def check_fits(self, chains, joints: int | None = None) -> None:
        """Each solution names a chain and has its shape (checked with the chains, by the preset)."""
        by_name = {c.name: c for c in chains}
        body = self.full_body
        if body is not None:
            if joints is not None and len(body.rotations) != joints:
                raise _at(("pose", "full_body", "rotations"),
                          f"must give {joints} rotations, one per joint of the skeleton, got {len(body.rotations)}"
                          " (delete the pose to solve the rig afresh)")
            for name in body.errors:
                if name not in by_name:
                    raise _at(("pose", "full_body", "errors", name), f"no chain named {name!r}")
        for name, p in self.chains.items():
            c = by_name.get(name)
            if c is None:
                raise _at(("pose", "chains", name), f"no chain named {name!r}")
            if not registry.get(c.solver).reaches:
                raise _at(("pose", "chains", name), f"a {c.solver} chain keeps no pose: it is aimed afresh every frame")
            m = len(c.joints) - 1
            if len(p.rotations) != m:
                raise _at(
                    ("pose", "chains", name, "rotations"),
                    f"must give {m} rotations, one per joint of chain {name!r} but its tip, got {len(p.rotations)}"
                    " (delete the pose to solve the rig afresh)",
                )
            if p.limited is not None and len(p.limited.points) != m + 1:
                raise _at(
                    ("pose", "chains", name, "limited", "points"),
                    f"must give {m + 1} points, one per joint of chain {name!r}, got {len(p.limited.points)}",
                )


def _at(where: tuple, problem: str) -> ValueError:
    from .preset_model import At  # preset_model imports this module

    return At(where, problem)
