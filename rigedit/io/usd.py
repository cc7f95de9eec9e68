"""Import a UsdSkel Skeleton and its SkelAnimation (.usd, .usda, .usdc) as a Skeleton and a Clip.

USD's entry in the format table (io/formats.py); needs usd-core (`pip install 'rigedit[usd]'`).
The first Skeleton prim on the stage is read: its joint paths give the hierarchy ("Hips/Spine":
Spine hangs from Hips), `jointNames` (or else each path's last element) the names, and
`restTransforms` (else `bindTransforms`, made local) the rest pose. Its animation source (else
the first SkelAnimation under it) gives the clip: per time sample, each animated joint's
translation and rotation (joints it does not animate keep their rest transform), one frame
per sample at the stage's timeCodesPerSecond. Lengths come in at the stage's metersPerUnit
(or `scale`), a Z-up stage is turned to rigedit's +Y up, and the Skeleton prim's own transform
(and its parents') is carried by the roots. Scales in the animation have no place in a rigedit
clip: they are left out, with a warning when they are not 1.

Anything that cannot be read (no Skeleton, arrays of the wrong length, a joint listed before
its parent, NaN or infinite values) is a UsdError naming the file, the prim or attribute and
the problem. The animation's samples are read in io/usd_animation.py; io/export_usd.py
writes what this reads.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_from_matrix, quat_mul, quat_normalize, quat_rotate

from . import formats
from .bvh_axes import UP_TO_Y, parse_up, turned
from .bvh_units import parse_scale
from .clip_source import remember_source
from .loaded import ExportSource, Loaded
from .usd_animation import AnimationReader

class UsdError(ValueError):
    def __init__(self, path: str, where: str | None, problem: str) -> None:
        super().__init__(f"{path}: {where}: {problem}" if where else f"{path}: {problem}")


@dataclass
class UsdImport:
    path: str
    skeleton: Skeleton
    clip: Clip | None
    prim: str  # the Skeleton prim's path
    scale: float  # metres per stage unit
    file_up_axis: str  # "+y" or "+z" as the stage says, or the axis given
    warnings: list[str] = field(default_factory=list)
    animation: str | None = None  # the SkelAnimation prim read

    def summary(self) -> str:
        anim = "no animation" if self.clip is None else (
            f"{self.clip.n_frames} frames at {self.clip.frame_rate:.4g} fps from {self.animation}")
        return f"{len(self.skeleton)} joints from {self.prim}; {anim}; scale {self.scale:.6g} m/unit; file up axis {self.file_up_axis}"


def load_usd(path: str, *, up: str | None = "auto", scale=None, **_) -> Loaded:
    """USD's reader in the format table: read_usd as a Loaded."""
    imp = read_usd(path, up_axis=up, scale=scale)
    remember_source(imp)
    source = ExportSource(path, warnings=list(imp.warnings))
    turned_note = [] if imp.file_up_axis == "+y" else [f"turned from {imp.file_up_axis} up to +Y up"]
    return Loaded(path, formats.USD, imp.skeleton, imp.clip, source, imp.summary(), list(imp.warnings), turned_note)


def read_usd(path: str | os.PathLike, *, up_axis: str | None = None, scale: float | str | None = None) -> UsdImport:
    """Read the first UsdSkel Skeleton of a USD file and its animation. up_axis None or "auto":
    the stage's upAxis; an axis declares it. scale None: the stage's metersPerUnit; a number
    (metres per unit) or unit name overrides it. UsdError (a ValueError) names what is wrong."""
    path = os.fspath(path)
    formats.USD.require("import")
    from pxr import Tf, Usd, UsdGeom, UsdSkel  # usd-core is an optional extra: checked just above

    try:
        stage = Usd.Stage.Open(path)
    except Tf.ErrorException as e:
        raise UsdError(path, None, f"USD cannot open it: {_first_line(e)}") from None
    if stage is None:
        raise UsdError(path, None, "USD cannot open it")
    skels = [UsdSkel.Skeleton(p) for p in stage.Traverse() if p.IsA(UsdSkel.Skeleton)]
    if not skels:
        raise UsdError(path, None, "no UsdSkel Skeleton prim on the stage, so no joints to import")
    skel = skels[0]
    reading = _Reading(path, stage, skel, Usd)
    if len(skels) > 1:
        reading.warnings.append(f"{len(skels)} Skeleton prims; the first, {skel.GetPath()}, is read")
    try:
        meters, unit_note = _meters(path, stage, scale, UsdGeom)
        up = _up(path, stage, up_axis, UsdGeom)
        skeleton, clip, anim = reading.skeleton_and_clip(UsdSkel)
        skeleton, clip = _placed(skeleton, clip, reading.prim_xform(UsdGeom, Usd), meters, reading.warnings)
        if up != "+y":
            skeleton, clip = turned(skeleton, clip, UP_TO_Y[up])
    except Tf.ErrorException as e:
        raise UsdError(path, str(skel.GetPath()), f"USD cannot read it: {_first_line(e)}") from None
    if unit_note:
        reading.warnings.append(unit_note)
    return UsdImport(path, skeleton, clip, str(skel.GetPath()), meters, up, reading.warnings, anim)


class _Reading:
    """One Skeleton prim's joints, rest pose and animation, checked as they are read."""

    def __init__(self, path: str, stage, skel, Usd) -> None:
        self.path, self.stage, self.skel, self.Usd = path, stage, skel, Usd
        self.where = str(skel.GetPath())
        self.warnings: list[str] = []

    def fail(self, attr: str | None, problem: str) -> UsdError:
        return UsdError(self.path, f"{self.where}.{attr}" if attr else self.where, problem)

    def error(self, where: str, problem: str) -> UsdError:
        return UsdError(self.path, where, problem)

    def skeleton_and_clip(self, UsdSkel) -> tuple[Skeleton, Clip | None, str | None]:
        joints = [str(j) for j in (self.skel.GetJointsAttr().Get() or [])]
        if not joints:
            raise self.fail("joints", "the Skeleton lists no joints")
        parents = self._parents(joints)
        names = self._names(joints)
        rest_r, rest_t = self._rest(joints, parents)
        skeleton = Skeleton(names, parents, rest_t, rest_r)
        anim = self._animation(UsdSkel)
        if anim is None:
            return skeleton, None, None
        return skeleton, AnimationReader(self, anim, joints, rest_r, rest_t).clip(), str(anim.GetPath())

    def _parents(self, joints: list[str]) -> np.ndarray:
        index: dict[str, int] = {}
        for i, j in enumerate(joints):
            if j in index:
                raise self.fail("joints", f"joint path {j!r} is listed twice (entries {index[j]} and {i})")
            index[j] = i
        parents = np.full(len(joints), -1, dtype=np.int64)
        for i, j in enumerate(joints):
            parts = j.split("/")
            for k in range(len(parts) - 1, 0, -1):  # the nearest listed ancestor, as UsdSkel does
                p = index.get("/".join(parts[:k]))
                if p is not None:
                    if p > i:
                        raise self.fail("joints", f"joint {j!r} (entry {i}) comes before its parent {joints[p]!r} (entry {p})")
                    parents[i] = p
                    break
        return parents

    def _names(self, joints: list[str]) -> list[str]:
        given = self.skel.GetJointNamesAttr().Get()
        if given is not None and len(given) == len(joints):
            base = [str(n) for n in given]
        else:
            if given is not None and len(given):
                self.warnings.append(f"{self.where}.jointNames has {len(given)} names for {len(joints)} joints; the joint paths name them")
            base = [j.rsplit("/", 1)[-1] for j in joints]
        names: list[str] = []
        taken: set[str] = set()
        for i, n in enumerate(base):
            name, k = n or f"joint{i}", 2
            while name in taken:  # "L/Hand" and "R/Hand" are both "Hand": the second is "Hand_2"
                name, k = f"{n}_{k}", k + 1
            taken.add(name)
            names.append(name)
        return names

    def _rest(self, joints: list[str], parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rest = self.skel.GetRestTransformsAttr().Get()
        attr = "restTransforms"
        if rest is None or len(rest) == 0:
            bind = self.skel.GetBindTransformsAttr().Get()
            if bind is None or len(bind) == 0:
                raise self.fail("restTransforms", "neither restTransforms nor bindTransforms is authored, so there is no rest pose")
            attr, world = "bindTransforms", self._matrices(bind, "bindTransforms", len(joints))
            local = world.copy()
            for i, p in enumerate(parents):
                if p >= 0:
                    local[i] = world[i] @ np.linalg.inv(world[p])  # row vectors: child = local * parent
            matrices = local
        else:
            matrices = self._matrices(rest, attr, len(joints))
        rot, trans, scaled = _decompose(matrices)
        if scaled:
            self.warnings.append(f"{self.where}.{attr}: scale or shear in {scaled} joint(s) left out (rigedit joints are rigid)")
        return rot, trans

    def _matrices(self, value, attr: str, n: int) -> np.ndarray:
        m = np.array(value, dtype=np.float64).reshape(-1, 4, 4)
        if len(m) != n:
            raise self.fail(attr, f"{len(m)} transforms for {n} joints")
        bad = np.flatnonzero(~np.isfinite(m).all(axis=(1, 2)))
        if len(bad):
            raise self.fail(attr, f"entry {int(bad[0])} is not finite (NaN or infinite)")
        return m

    def _animation(self, UsdSkel):
        targets = UsdSkel.BindingAPI(self.skel.GetPrim()).GetAnimationSourceRel().GetTargets()
        if targets:
            prim = self.stage.GetPrimAtPath(targets[0])
            if not (prim and prim.IsA(UsdSkel.Animation)):
                raise self.fail("skel:animationSource", f"{targets[0]} is not a SkelAnimation")
            return UsdSkel.Animation(prim)
        # Unbound: an animation beneath the Skeleton (where rigedit's export puts it) is its own.
        found = [p for p in self.stage.Traverse() if p.IsA(UsdSkel.Animation) and p.GetPath().HasPrefix(self.skel.GetPath())]
        return UsdSkel.Animation(found[0]) if found else None

    def prim_xform(self, UsdGeom, Usd) -> np.ndarray:
        m = np.array(UsdGeom.Xformable(self.skel.GetPrim()).ComputeLocalToWorldTransform(Usd.TimeCode.Default()))
        if not np.isfinite(m).all():
            raise self.fail("xformOp", "the Skeleton prim's transform is not finite")
        return m


def _decompose(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(rotations (n, 4), translations (n, 3), joints with scale or shear) of row-vector matrices."""
    lin = np.swapaxes(m[:, :3, :3], -1, -2)  # column-vector convention, as rigedit's
    u, s, vt = np.linalg.svd(lin)
    d = np.sign(np.linalg.det(u @ vt))
    u[:, :, 2] *= d[:, None]
    rot = quat_normalize(quat_from_matrix(u @ vt))
    scaled = int((np.abs(s - 1.0) > 1e-6).any(axis=1).sum())
    return rot, m[:, 3, :3].copy(), scaled


def _placed(skeleton: Skeleton, clip: Clip | None, world: np.ndarray, meters: float, warnings: list[str]):
    """The skeleton and clip in metres, with the Skeleton prim's world transform on its roots."""
    r, t, scaled = _decompose(world[None])
    s = float(np.cbrt(abs(np.linalg.det(world[:3, :3])))) or 1.0
    if scaled and not np.allclose(np.linalg.svd(world[:3, :3], compute_uv=False), s, rtol=1e-6):
        warnings.append("the Skeleton prim's transform scales unevenly; read with its average scale")
    unit = meters * s
    roots = skeleton.parents < 0
    offsets = skeleton.offsets * unit
    rest = skeleton.rest_rotations.copy()
    offsets[roots] = quat_rotate(r[0], offsets[roots]) + t[0] * meters
    rest[roots] = quat_mul(r[0], rest[roots])
    out = Skeleton(skeleton.names, skeleton.parents, offsets, rest)
    if clip is None:
        return out, None
    trans = clip.translations * unit
    rot = clip.rotations.copy()
    trans[:, roots] = quat_rotate(r[0], trans[:, roots]) + t[0] * meters
    rot[:, roots] = quat_mul(r[0], rot[:, roots])
    return out, Clip(rot, trans, clip.frame_time)


def _meters(path: str, stage, scale, UsdGeom) -> tuple[float, str]:
    if scale is not None:
        try:
            value, _ = parse_scale(_number_or_name(scale))
        except ValueError as e:
            raise UsdError(path, None, f"scale: {e}") from None
        return value, ""
    meters = float(UsdGeom.GetStageMetersPerUnit(stage))
    if not (np.isfinite(meters) and meters > 0):
        raise UsdError(path, "metersPerUnit", f"must be a positive number, got {meters}")
    note = "" if UsdGeom.StageHasAuthoredMetersPerUnit(stage) else f"the stage states no metersPerUnit: read in USD's default, {meters:g} m per unit"
    return meters, note


def _up(path: str, stage, up_axis, UsdGeom) -> str:
    try:
        up = parse_up(up_axis)
    except ValueError as e:
        raise UsdError(path, None, f"up_axis: {e}") from None
    if up == "auto":
        return "+z" if str(UsdGeom.GetStageUpAxis(stage)) == "Z" else "+y"
    return up


def _number_or_name(scale):
    if isinstance(scale, str):
        try:
            return float(scale)
        except ValueError:
            return scale
    return scale


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
