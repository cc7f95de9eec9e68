"""The JSON preset format as pydantic models: the validation and the published schema.

Version 2 is version 1 plus the solved `pose`; version 3 adds `clip_file` (a clip saved in a
file beside the preset, io/clip_file.py) and a clip's `source`; version 4 adds `pose_layer`
(io/pose_layer_model.py).

The models check the file's shape (types, list lengths, names that must exist); a chain's
values are checked once, by the core (ChainSettings.checked, the chain setters' own
validators), from ChainModel's model validator, so a chain setter and a file word the same
problem the same way. Model validators raise `At(relative path, problem)`, so the message
can point at the exact JSON field. The bounds in the published schema document those checks.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from rigedit.core import chain_checks as checks
from rigedit.core.chain_settings import ChainSettings
from rigedit.core import chain_uses as uses
from rigedit.core.curve import Key
from rigedit.core.field_error import FieldError
from rigedit.core.ik import registry
from rigedit.core.ik.limits import ConeLimit, HingeLimit  # noqa: F401 (annotations)

from . import formats
from .model_fields import vector
from .pose_layer_model import PoseLayerModel
from .pose_model import PoseModel
from .timeline_model import PositionCurveModel, TimelineSlot

FORMAT = "rigedit.preset"
VERSION = 4


class At(ValueError):
    """A problem found by a model validator, at `where` (keys and indices) below that model."""

    def __init__(self, where: tuple, problem: str) -> None:
        super().__init__(problem)
        self.where = where


def _name(v: str) -> str:
    if not v.strip():
        raise ValueError("must not be empty")
    return v


def _nonzero_quat(v: list[float]) -> list[float]:
    if sum(x * x for x in v) <= 1e-18:
        raise ValueError("must be a rotation (x, y, z, w), got a zero quaternion")
    return v


def _bounded(lo: float, hi: float | None = None, *, exclusive_lo: bool = False):
    """A number whose range the core checks (ChainModel's validator); the schema says it."""
    extra: dict[str, Any] = {"exclusiveMinimum" if exclusive_lo else "minimum": lo}
    if hi is not None:
        extra["maximum"] = hi
    return Annotated[float, Field(json_schema_extra=extra)]


Name = Annotated[str, AfterValidator(_name), Field(min_length=1)]
Vec3 = vector(3, "[x, y, z]")
Quat = Annotated[vector(4, "[x, y, z, w]"), AfterValidator(_nonzero_quat)]
Axis = Vec3  # not zero: the core checks it
Angle = _bounded(-180.0, 180.0)
ConeAngle = _bounded(0.0, 180.0)
Weight = _bounded(0.0, 1.0)
Tolerance = _bounded(0.0, exclusive_lo=True)
MaxIterations = Annotated[int, Field(json_schema_extra={"minimum": 1, "maximum": checks.MAX_ITERATIONS_CAP})]
Solver = Annotated[str, Field(json_schema_extra={"enum": list(checks.SOLVERS)})]


class _Model(BaseModel):
    # strict: "1.5" is not a number and 10.0 is not an iteration count; extra keys are
    # typos far more often than intent, so they are refused rather than silently dropped.
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


class JointModel(_Model):
    name: Name
    parent: Name | None = Field(description="the parent joint's name; null for a root")
    offset: Vec3 = Field(description="rest translation from the parent, metres")
    rest_rotation: Quat = Field(default=[0.0, 0.0, 0.0, 1.0], description="rest local rotation (x, y, z, w)")


class HingeLimitModel(_Model):
    type: Literal["hinge"]
    axis: Axis = Field(description="hinge axis in the parent bone's frame")
    min_deg: Angle
    max_deg: Angle

    def limit(self) -> HingeLimit:
        return checks.check_hinge(tuple(self.axis), self.min_deg, self.max_deg)


class ConeLimitModel(_Model):
    type: Literal["cone"]
    max_deg: ConeAngle

    def limit(self) -> ConeLimit:
        return checks.check_cone(self.max_deg)


LimitModel = Annotated[Union[HingeLimitModel, ConeLimitModel], Field(discriminator="type")]


ReachClamp = _bounded(0.5, 1.0)
Softness = _bounded(0.0, uses.MAX_SOFTNESS)
ShareWeight = _bounded(0.0, uses.MAX_SHARE)


class LookAtModel(_Model):
    """How a look_at chain aims (issue 8)."""

    weights: list[ShareWeight] | None = Field(
        default=None, description="each joint's share of the turn, root to aiming joint; null: equal shares"
    )
    forward_axis: Axis = Field(default=[0.0, 0.0, 1.0], description="the aiming joint's forward, in its local frame")
    up_axis: Axis = Field(default=[0.0, 1.0, 0.0], description="the aiming joint's up, in its local frame")
    max_angle_deg: ConeAngle = Field(default=uses.DEFAULT_LOOK_MAX_ANGLE_DEG, description="cone around the rest forward")
    max_twist_deg: ConeAngle | None = Field(default=None, description="limit on roll away from level; null: free")

    def settings(self) -> uses.LookAtSettings:
        weights = None if self.weights is None else tuple(self.weights)
        return uses.LookAtSettings(weights, tuple(self.forward_axis), tuple(self.up_axis), self.max_angle_deg, self.max_twist_deg)


def _offset_keys(curve: PositionCurveModel | None) -> tuple:
    if curve is None:
        return ()
    return tuple(Key(k.time, tuple(k.value), k.interpolation) for k in curve.keys)


class ChainModel(_Model):
    name: Name
    solver: Solver
    joints: list[Name] = Field(description="joint names, root to tip, each the child of the one before")
    target: Vec3 = Field(description="world position the tip reaches for, metres")
    pole: Vec3 | None = Field(default=None, description="world point the mid joint bends toward (two_bone)")
    tolerance: Tolerance = checks.DEFAULT_TOLERANCE
    max_iterations: MaxIterations = checks.DEFAULT_MAX_ITERATIONS
    weight: Weight = 1.0
    limits: dict[str, LimitModel] = Field(default_factory=dict, description="joint name -> limit")
    reach_clamp: ReachClamp = Field(
        default=uses.DEFAULT_REACH_CLAMP, description="fraction of full length a target may ask for; 1 = off"
    )
    softness: Softness = Field(default=uses.DEFAULT_SOFTNESS, description="metres of reach eased by soft IK; 0 = off")
    look_at: LookAtModel | None = Field(default=None, description="solver 'look_at' only: how it aims")
    ground_feet: bool = Field(default=False, description="the target follows the ground under the animated tip")
    follow_clip: bool = Field(
        default=False,
        description="issue 14: the goal is the clip's animated tip plus offset_keys, the pole is placed from the "
        "animated bend; target and pole then hold the goal and pole where they were saved (without a clip, as before)",
    )
    offset_keys: PositionCurveModel | None = Field(
        default=None, description="follow_clip: the goal's offset from the animated tip over time, metres"
    )
    pull: Weight | None = Field(
        default=None,
        description="issue 16, full_body: how much this chain's goal may move the body (0: an anchor); "
        "null: by the chain's role (legs 0, arms and head 0.4, the spine 0.01)",
    )

    _settings: ChainSettings | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _consistent(self):
        limits = []
        for name, m in self.limits.items():
            try:
                limits.append((name, m.limit()))
            except FieldError as e:
                raise At(("limits", name) + e.where, e.problem) from None
        try:
            self._settings = ChainSettings(
                solver=self.solver,
                target=tuple(self.target),
                pole=None if self.pole is None else tuple(self.pole),
                tolerance=self.tolerance,
                max_iterations=self.max_iterations,
                weight=self.weight,
                limits=tuple(limits),
                reach_clamp=self.reach_clamp,
                softness=self.softness,
                look_at=uses.LookAtSettings() if self.look_at is None else self.look_at.settings(),
                ground_feet=self.ground_feet,
                follow_clip=self.follow_clip,
                offset_keys=_offset_keys(self.offset_keys),
                pull=self.pull,
            ).checked(self.joints)
        except FieldError as e:  # the core's check, the one every chain's settings pass
            raise At(e.where, e.problem) from None
        if self.look_at is not None and registry.get(self.solver).reaches:
            aiming = " or ".join(repr(k.name) for k in registry.aiming())
            raise At(("look_at",), f"is for solver {aiming} only, this chain's solver is {self.solver!r}")
        return self

    @property
    def settings(self) -> ChainSettings:
        """The chain's settings as the core checked them."""
        return self._settings


class SkeletonModel(_Model):
    joints: list[JointModel] = Field(description="in any order; parents are found by name")

    @model_validator(mode="after")
    def _a_forest(self):
        if not self.joints:
            raise At(("joints",), "needs at least one joint")
        index: dict[str, int] = {}
        for i, j in enumerate(self.joints):
            if j.name in index:
                raise At(("joints", i, "name"), f"duplicate joint name {j.name!r} (also joints[{index[j.name]}])")
            index[j.name] = i
        for i, j in enumerate(self.joints):
            if j.parent is not None and j.parent not in index:
                raise At(("joints", i, "parent"), f"no joint named {j.parent!r}")
        rooted: set[str] = set()  # joints already known to reach a root: walks stop there
        for i in range(len(self.joints)):
            cycle = _cycle_from(i, self.joints, index, rooted)
            if cycle:
                raise At(("joints", i, "parent"), "parent cycle: " + " -> ".join(cycle))
        return self


def _cycle_from(i: int, joints: list[JointModel], index: dict[str, int], rooted: set[str]) -> list[str] | None:
    """The parent cycle through joint i (names, closed), or None if i reaches a root."""
    seen: list[str] = []
    while True:
        name = joints[i].name
        if name in rooted:
            break
        if name in seen:
            # A cycle, but joint i may only lead into it; its own members report it.
            return seen[seen.index(name):] + [name] if seen[0] == name else None
        seen.append(name)
        parent = joints[i].parent
        if parent is None:
            break
        i = index[parent]
    rooted.update(seen)
    return None


class HeightFieldModel(_Model):
    """A ground given in full: heights[iz][ix] at x = origin[0] + ix * spacing, z = origin[1] + iz * spacing."""

    heights: list[list[Annotated[float, Field(ge=-checks.MAX_COORD, le=checks.MAX_COORD)]]]
    spacing: Annotated[float, Field(gt=0.0, le=checks.MAX_COORD)] = Field(description="metres between grid points")
    origin: Annotated[list[float], Field(min_length=2, max_length=2)] = Field(default=[0.0, 0.0], description="x, z")

    @model_validator(mode="after")
    def _grid(self):
        if len(self.heights) < 2:
            raise At(("heights",), f"needs at least 2 rows, got {len(self.heights)}")
        for i, row in enumerate(self.heights):
            if len(row) != len(self.heights[0]) or len(row) < 2:
                raise At(("heights", i), f"rows must all have the same length (at least 2), got {len(row)} and {len(self.heights[0])}")
        return self


BvhChannel = Literal["Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"]


class BvhLayoutModel(_Model):
    """How a BVH file was laid out, so a bake of the rig is written the same way."""

    channels: dict[Name, Annotated[list[BvhChannel], Field(max_length=6)]] = Field(
        description="joint name -> its channels in file order"
    )
    end_sites: list[Name] = Field(default_factory=list, description="joints that were End Sites")
    scale: Annotated[float, Field(gt=0.0)] = Field(description="metres per file unit")
    up: Literal["+x", "+y", "+z", "-x", "-y", "-z"] = Field(description="the file's up axis, turned to +Y on import")


class ClipSourceModel(_Model):
    """Where a clip was imported from, for summaries: the data is in the preset or its clip file."""

    file: Name = Field(description="the imported file's name (BVH or glTF), without its folder")
    up_axis: str | None = Field(default=None, description="the file's up axis as read, e.g. '+y' or '+z'")
    scale: Annotated[float, Field(gt=0.0)] | None = Field(default=None, description="metres per file unit")
    animation: str | None = Field(default=None, description="which of the file's animations (glTF)")
    bvh: BvhLayoutModel | None = Field(default=None, description="a BVH file's layout, for writing bakes the same way")


MAX_CLIP_FRAMES = 10_000_000  # ~23 hours at 120 fps: beyond any take, far below a count that overflows


UP_AXES = ("auto", "+x", "-x", "+y", "-y", "+z", "-z")


class CharacterModel(_Model):
    """The glTF character the skeleton was imported from (its mesh is drawn and exports keep
    its document); the rig opens without the mesh when the file is gone."""

    file: Annotated[str, Field(min_length=1, max_length=4096)] = Field(
        description=f"the {formats.listing(formats.CHARACTERS, 'or')} file, relative to the preset's folder (or absolute)"
    )
    up_axis: Literal[UP_AXES] = Field(default="auto", description="the up axis it was imported with")

    @field_validator("file")
    @classmethod
    def _gltf_file(cls, v: str) -> str:
        if formats.of(v, formats.CHARACTERS) is None or "\x00" in v:
            raise ValueError(f"must name a {formats.listing(formats.CHARACTERS, 'or')} file, got {v!r}")
        return v


class ClipFileModel(_Model):
    """An animation under the IK saved in a file beside the preset (NAME.clip.npz, float64:
    rotations and translations of every joint), named relative to the preset so the two can
    move together. The frame count and frame time are repeated here, and the SHA-256 of the
    file's arrays, so a clip file from another save is refused rather than played."""

    file: Name = Field(description="the clip file, relative to the preset's folder (written as a bare name: the same folder)")
    frames: Annotated[int, Field(ge=1, le=MAX_CLIP_FRAMES)] = Field(description="frames in the clip")
    frame_time: Annotated[float, Field(gt=0.0, le=10.0)] = Field(description="seconds per frame")
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] = Field(description="SHA-256 of the clip file's arrays (io/clip_file.py digest)")
    source: ClipSourceModel | None = Field(default=None, description="where the clip was imported from")


class ClipModel(_Model):
    """An animation under the IK, carried by the preset: per-frame rotations of the joints
    that move (the others keep their rest rotation) and the root's translations."""

    frame_time: Annotated[float, Field(gt=0.0, le=10.0)] = Field(description="seconds per frame")
    root_translations: list[Vec3] | None = Field(default=None, description="the root joint's local translation per frame")
    rotations: dict[str, list[Quat]] = Field(default_factory=dict, description="joint name -> local rotation per frame")
    source: ClipSourceModel | None = Field(default=None, description="where the clip was imported from")

    @model_validator(mode="after")
    def _frames(self):
        counts = {name: len(v) for name, v in self.rotations.items()}
        if self.root_translations is not None:
            counts["<root>"] = len(self.root_translations)
        if not counts:
            raise At((), "needs root_translations or rotations (an empty clip animates nothing)")
        n = max(counts.values())
        for name, c in counts.items():
            if c != n or c == 0:
                where = ("root_translations",) if name == "<root>" else ("rotations", name)
                raise At(where, f"has {c} frames, the clip has {n}")
        return self


GroundSpec = Union[Literal["flat", "slope"], HeightFieldModel]


class GaitModel(_Model):
    """Procedural legs: these chains step as the body (the root joint) moves."""

    legs: list[Name] = Field(description="leg chain names; each foot's rest spot is its tip at rest")
    step_length: Annotated[float, Field(gt=0.0, le=100.0)] = Field(default=0.12, description="metres")
    step_time: Annotated[float, Field(gt=0.0, le=100.0)] = Field(default=0.2, description="seconds")
    step_height: Annotated[float, Field(ge=0.0, le=100.0)] = Field(default=0.05, description="metres")


class PresetModel(_Model):
    """A rigedit rig preset: skeleton, IK chains and (optional) timeline."""

    model_config = ConfigDict(title="rigedit preset")

    format: Literal["rigedit.preset"]
    version: Literal[4]
    name: str = ""
    skeleton: SkeletonModel
    chains: list[ChainModel] = Field(default_factory=list, description="solved in this order")
    timeline: TimelineSlot = None
    ground: GroundSpec | None = Field(default=None, description="'flat', 'slope' or a height field; ground-feet chains stand on it")
    clip: ClipModel | None = Field(default=None, description="an animation under the IK, carried by the preset")
    clip_file: ClipFileModel | None = Field(
        default=None, description="an animation under the IK, saved in a file beside the preset (not with 'clip')"
    )
    gait: GaitModel | None = Field(default=None, description="procedural legs stepping as the body moves")
    full_body: bool = Field(
        default=False, description="issue 16: every chain solved together, the hips and spine moving as the chains' pull lets them"
    )
    character: CharacterModel | None = Field(default=None, description="the glTF character the skeleton came from")
    pose_layer: PoseLayerModel | None = Field(
        default=None, description="issue 25: keyed local rotations (and a root offset) over the clip, under the IK"
    )
    pose: PoseModel | None = Field(
        default=None, description="the solved pose: each chain's last solution, so opening shows what was saved"
    )

    @model_validator(mode="after")
    def _chains_fit_skeleton(self):
        parent = {j.name: j.parent for j in self.skeleton.joints}
        names: dict[str, int] = {}
        for c, ch in enumerate(self.chains):
            if ch.name in names:
                raise At(("chains", c, "name"), f"duplicate chain name {ch.name!r} (also chains[{names[ch.name]}])")
            names[ch.name] = c
            for k, j in enumerate(ch.joints):
                if j not in parent:
                    raise At(("chains", c, "joints", k), f"no joint named {j!r} in the skeleton")
                if k and parent[j] != ch.joints[k - 1]:
                    raise At(
                        ("chains", c, "joints", k),
                        f"joints must form a connected chain: {j!r} is not a child of {ch.joints[k - 1]!r}",
                    )
        if self.gait is not None:
            for k, leg in enumerate(self.gait.legs):
                if leg not in names:
                    raise At(("gait", "legs", k), f"no chain named {leg!r}")
        if self.pose is not None:
            self.pose.check_fits(self.chains, len(self.skeleton.joints))
        if self.clip is not None and self.clip_file is not None:
            raise At(("clip_file",), "a preset has one clip: 'clip' (in the preset) or 'clip_file' (beside it), not both")
        if self.clip is not None:
            for name in self.clip.rotations:
                if name not in parent:
                    raise At(("clip", "rotations", name), f"no joint named {name!r} in the skeleton")
        if self.pose_layer is not None:
            for name in self.pose_layer.joints:
                if name not in parent:
                    raise At(("pose_layer", "joints", name), f"no joint named {name!r} in the skeleton")
        return self
