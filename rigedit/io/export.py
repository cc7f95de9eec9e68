"""Export a rig's result: what `rigedit export` and File > Export do, headless.

The result is the rig's IK over its clip (core/bake.py), at the clip's frame rate, or the
rig's current pose as one frame when it has no clip. The output's suffix picks the format:
.glb/.gltf (export_gltf), .usd/.usda/.usdc (export_usd, needs usd-core), .bvh (bvh.write_bvh).

What the rig came from (`ExportSource`) lets each writer keep more of it: a glTF source's
document (meshes, skins, materials, its own animations), a BVH source's hierarchy, channel
orders, units, axes and Euler angles.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from rigedit.core.bake import bake
from rigedit.core.clip import Clip
from rigedit.core.rig import Rig

from .bvh import DEFAULT_FRAME_TIME, BvhLayout, read_bvh, write_bvh
from .bvh_format import ROTATION_CHANNELS, parse_bvh
from .clip_source import bvh_layout
from .export_gltf import GLTF_SUFFIXES, GltfSource, write_gltf
from .export_usd import USD_SUFFIXES  # pxr itself is imported only when a USD file is written
from .gltf import GltfImport, read_gltf

BVH_SUFFIXES = (".bvh",)
PRESET_SUFFIXES = (".json",)
FORMATS = {s: "glTF" for s in GLTF_SUFFIXES} | {s: "USD" for s in USD_SUFFIXES} | {s: "BVH" for s in BVH_SUFFIXES}
# Progress: (steps done, steps in all); returning False cancels (core.bake.BakeCancelled).
Progress = Callable[[int, int], "bool | None"]


@dataclass
class ExportSource:
    """What a rig was read from, beyond its skeleton and clip."""

    path: str | None = None
    gltf: GltfSource | None = None
    bvh_layout: BvhLayout | None = None
    bvh_angles: dict[str, np.ndarray] | None = None  # per joint, the file's rotation channels (frames, 3), degrees
    warnings: list[str] = field(default_factory=list)


@dataclass
class ExportReport:
    path: str
    format: str
    frames: int
    frame_rate: float

    def summary(self) -> str:
        return f"wrote {self.path}: {self.format}, {self.frames} frame{'' if self.frames == 1 else 's'} at {self.frame_rate:.4g} fps"


def format_of(path: str | os.PathLike) -> str:
    """"glTF", "USD" or "BVH" by suffix; ValueError naming the suffixes for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"{path}: cannot tell the format from {suffix or 'no suffix'!r}; use one of {', '.join(FORMATS)}")
    return FORMATS[suffix]


def load_for_export(path: str | os.PathLike, *, animation: str | None = None) -> tuple[Rig, ExportSource]:
    """A rig and its source from a preset (.json), a .bvh or a .glb/.gltf, read as the editor
    opens them. A file that is not a preset gives a rig with no chains: its clip as recorded.
    `animation` names a glTF animation (default: the first)."""
    path = os.fspath(path)
    suffix = Path(path).suffix.lower()
    if suffix in PRESET_SUFFIXES:
        from .preset import load_preset

        if animation is not None:
            raise ValueError(f"{path}: --animation picks a glTF file's animation; a preset has one clip")
        rig = load_preset(path)
        return rig, preset_source(rig, path)
    if suffix in BVH_SUFFIXES:
        if animation is not None:
            raise ValueError(f"{path}: --animation picks a glTF file's animation; a BVH file has one clip")
        imp = read_bvh(path)
        return Rig(imp.skeleton, clip=imp.clip, name=Path(path).stem), bvh_source(path, imp.layout, imp.warnings)
    if suffix in GLTF_SUFFIXES:
        return _load_gltf(path, animation)
    raise ValueError(f"{path}: rigedit exports from a preset (.json), a .bvh, .glb or .gltf file")


def _load_gltf(path: str, animation: str | None) -> tuple[Rig, ExportSource]:
    index = 0
    if animation is not None:
        import pygltflib  # the names only; read_gltf reads the file properly below

        names = [a.name for a in (pygltflib.GLTF2().load(path).animations or [])]
        if animation not in names:
            raise ValueError(f"{path}: no animation named {animation!r}; the file has {names or 'none'}")
        index = names.index(animation)
    imp, gltf = read_gltf_source(path, animation=index)
    return Rig(imp.skeleton, clip=imp.clip, name=Path(path).stem), ExportSource(path, gltf=gltf, warnings=list(imp.warnings))


def read_gltf_source(path: str | os.PathLike, *, animation: int | str | None = 0, up: str = "auto") -> tuple[GltfImport, GltfSource]:
    """read_gltf as the editor's import calls it (up "auto": a figure lying along +Z or -Z is
    stood up), and where its joints are in the document: the turn is kept, so that the glTF
    writer can take it back off the copied document."""
    path = os.fspath(path)
    imp = read_gltf(path, animation=animation, up_axis=up)
    turned_by = None if np.array_equal(imp.turn, (0.0, 0.0, 0.0, 1.0)) else tuple(float(v) for v in imp.turn)
    return imp, GltfSource(path, tuple(imp.nodes), turned_by)


def preset_source(rig: Rig, path: str) -> ExportSource:
    """What an export of an opened preset keeps: its character's glTF document (mesh, skin,
    materials) when the file is still there and still its skeleton, else a BVH clip's layout."""
    ref = rig.character
    if ref is not None and os.path.isfile(ref.path):
        imp, gltf = read_gltf_source(ref.path, up=ref.up_axis, animation=None)
        if list(imp.skeleton.names) == list(rig.skeleton.names):
            return ExportSource(path, gltf=gltf)
        return ExportSource(path, warnings=[f"{ref.path}: its joints are no longer the rig's; exported without its mesh"])
    warnings = [] if ref is None else [f"{ref.path}: not there any more; exported without its mesh"]
    layout = bvh_layout(rig.clip.source) if rig.clip is not None else None
    return ExportSource(path, bvh_layout=layout, warnings=warnings)


def bvh_source(path: str | os.PathLike, layout: BvhLayout, warnings=()) -> ExportSource:
    """What a BVH import keeps for writing the file back: its layout and its own angles."""
    path = os.fspath(path)
    return ExportSource(path, bvh_layout=layout, bvh_angles=bvh_angles(path), warnings=list(warnings))


def bvh_angles(path: str) -> dict[str, np.ndarray]:
    """The rotation channels of a BVH file as written, per joint (frames, 3) in channel order."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8-sig", errors="replace")
    raw = parse_bvh(text, path)
    out = {}
    for joint, cols in zip(raw.joints, raw.channel_columns()):
        rot = [c for ch, c in zip(joint.channels, cols) if ch in ROTATION_CHANNELS]
        if rot:
            out[joint.name] = raw.motion[:, rot]
    return out


def result_clip(rig: Rig, progress: Progress | None = None) -> Clip:
    """The rig's result over its clip, or its current pose as one frame."""
    if rig.clip is None:
        pose = rig.pose
        if progress is not None:
            progress(1, 1)
        return Clip(pose.rotations[None].copy(), pose.translations[None].copy(), DEFAULT_FRAME_TIME)
    return bake(rig, progress=progress).clip


def export_rig(
    rig: Rig,
    out: str | os.PathLike,
    source: ExportSource | None = None,
    *,
    only_result: bool = False,
    progress: Progress | None = None,
) -> ExportReport:
    """Bake `rig` and write the result to `out` in the format its suffix names."""
    out = os.fspath(out)
    kind = format_of(out)
    source = source or ExportSource()
    if kind == "USD":
        from .export_usd import require_usd

        require_usd()  # before baking: a missing extra is said at once
    seen = [1]

    def baking(done: int, total: int):
        seen[0] = max(total, 1)
        return None if progress is None else progress(done, seen[0])

    clip = result_clip(rig, baking)
    if kind == "glTF":
        gltf = source.gltf
        if gltf is not None and len(gltf.nodes) != len(rig.skeleton):
            gltf = None  # the rig's joints were changed since: write its own skeleton
        write_gltf(out, rig.skeleton, clip, source=gltf, only_result=only_result, animation_name=_anim_name(rig))
    elif kind == "USD":
        from .export_usd import write_usd

        meshes, bind = [], None
        if source.gltf is not None and len(source.gltf.nodes) == len(rig.skeleton):
            from .usd_skin import skinned_meshes

            meshes, bind = skinned_meshes(source.gltf, rig.skeleton, source.warnings)
        write_usd(out, rig.skeleton, clip, name=rig.name or "rig", meshes=meshes, bind=bind)
    else:
        angles = source.bvh_angles if source.bvh_layout is not None else None
        write_bvh(out, rig.skeleton, clip, source.bvh_layout, reference_angles=angles)
    if progress is not None:
        progress(seen[0], seen[0])  # written: the bar ends full
    return ExportReport(out, kind, clip.n_frames, clip.frame_rate)


def _anim_name(rig: Rig) -> str:
    return f"{rig.name} (rigedit)" if rig.name else "rigedit"
