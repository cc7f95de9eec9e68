"""Export a rig's result: what `rigedit export` and File > Export do, headless.

The result is the rig's IK over its clip (core/bake.py), at the clip's frame rate, or the
rig's current pose as one frame when it has no clip. The output's suffix picks the format's
writer in the table (io/formats.py): glTF (export_gltf), USD (export_usd, needs usd-core),
BVH (bvh.write_bvh); the writers are the three *_result functions below.

What the rig came from (`ExportSource`) lets each writer keep more of it: a glTF source's
document (meshes, skins, materials, its own animations), a BVH source's hierarchy, channel
orders, units, axes and Euler angles.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rigedit.core.bake import bake
from rigedit.core.clip import Clip
from rigedit.core.rig import Rig

from . import formats
from .bvh import DEFAULT_FRAME_TIME, write_bvh
from .clip_source import bvh_layout
from .export_gltf import write_gltf
from .export_usd import write_usd  # pxr itself is imported only when a USD file is written
from .loaded import ExportSource, bvh_angles, bvh_source, load, read_gltf_source  # noqa: F401 (their old home)
from .usd_skin import skinned_meshes

# Progress: (steps done, steps in all); returning False cancels (core.bake.BakeCancelled).
Progress = Callable[[int, int], "bool | None"]


@dataclass
class ExportReport:
    path: str
    format: str
    frames: int
    frame_rate: float

    def summary(self) -> str:
        return f"wrote {self.path}: {self.format}, {self.frames} frame{'' if self.frames == 1 else 's'} at {self.frame_rate:.4g} fps"


def format_of(path: str | os.PathLike) -> str:
    """"glTF", "USD" or "BVH" by suffix (io/formats.py); ValueError naming the suffixes for anything else."""
    return formats.for_export(path).name


def load_for_export(path: str | os.PathLike, *, animation: str | None = None) -> tuple[Rig, ExportSource]:
    """A rig and its source from a preset (.json) or any file rigedit imports, read as the
    editor opens them. A file that is not a preset gives a rig with no chains: its clip as
    recorded. `animation` names one of a file's animations (default: the first)."""
    path = os.fspath(path)
    if formats.PRESET.matches(path):
        from .preset import load_preset

        if animation is not None:
            raise ValueError(f"{path}: --animation picks a {formats.names(f for f in formats.IMPORTS if f.animations)} file's animation; a preset has one clip")
        rig = load_preset(path)
        return rig, preset_source(rig, path)
    if not formats.importable(path):
        raise ValueError(f"{path}: rigedit exports from a preset (.json) or a {formats.listing(formats.IMPORTS, 'or')} file")
    loaded = load(path, animation=animation)
    return Rig(loaded.skeleton, clip=loaded.clip, name=Path(path).stem), loaded.source


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


def result_clip(rig: Rig, progress: Progress | None = None) -> Clip:
    """The rig's result over its clip (or, with pose-layer keys and no clip, over the
    timeline's range), else its current pose as one frame."""
    if rig.clip is None and not rig.pose_layer.is_animated:
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
    fmt = formats.for_export(out)
    source = source or ExportSource()
    fmt.require("export")  # before baking: a missing extra is said at once
    fmt.check_fits(out, rig.skeleton)  # and so is a rig the format cannot hold (several skeletons in a BVH)
    seen = [1]

    def baking(done: int, total: int):
        seen[0] = max(total, 1)
        return None if progress is None else progress(done, seen[0])

    clip = result_clip(rig, baking)
    fmt.writer()(out, rig.skeleton, clip, source, name=rig.name or "rig", animation_name=_anim_name(rig), only_result=only_result)
    if progress is not None:
        progress(seen[0], seen[0])  # written: the bar ends full
    return ExportReport(out, fmt.name, clip.n_frames, clip.frame_rate)


# The table's writers (io/formats.py): the result `clip` on `skeleton` to `out`, keeping what
# `source` (the file the rig came from) lets each format keep.


def write_gltf_result(out, skeleton, clip, source: ExportSource, *, name: str, animation_name: str, only_result: bool = False) -> None:
    gltf = source.gltf
    if gltf is not None and len(gltf.nodes) != len(skeleton):
        gltf = None  # the rig's joints were changed since: write its own skeleton
    write_gltf(out, skeleton, clip, source=gltf, only_result=only_result, animation_name=animation_name)


def write_usd_result(out, skeleton, clip, source: ExportSource, *, name: str, **_) -> None:
    meshes, bind = [], None
    if source.gltf is not None and len(source.gltf.nodes) == len(skeleton):
        meshes, bind = skinned_meshes(source.gltf, skeleton, source.warnings)
    write_usd(out, skeleton, clip, name=name, meshes=meshes, bind=bind)


def write_bvh_result(out, skeleton, clip, source: ExportSource, **_) -> None:
    angles = source.bvh_angles if source.bvh_layout is not None else None
    write_bvh(out, skeleton, clip, source.bvh_layout, reference_angles=angles)


def _anim_name(rig: Rig) -> str:
    return f"{rig.name} (rigedit)" if rig.name else "rigedit"
