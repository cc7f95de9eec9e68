"""A motion or character file read for editing, whatever its format (io/formats.py).

`load(path, ...)` finds the file's format in the table and calls its reader, which gives a
`Loaded`: the skeleton and clip, a summary, and `source` (what an export, a lint repair or a
bake needs of the file to write it back the way it came). The readers of BVH and glTF are
here; USD's is in io/usd.py.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Skeleton

from . import formats
from .bvh import BvhLayout, read_bvh
from .bvh_format import ROTATION_CHANNELS, parse_bvh
from .clip_source import remember_source
from .export_gltf import GltfSource
from .gltf import GltfImport, read_gltf


@dataclass
class ExportSource:
    """What a rig was read from, beyond its skeleton and clip."""

    path: str | None = None
    gltf: GltfSource | None = None
    bvh_layout: BvhLayout | None = None
    bvh_angles: dict[str, np.ndarray] | None = None  # per joint, the file's rotation channels (frames, 3), degrees
    warnings: list[str] = field(default_factory=list)


@dataclass
class Loaded:
    path: str
    format: formats.Format
    skeleton: Skeleton
    clip: Clip | None
    source: ExportSource  # what writing it back needs of the file
    summary: str  # one line: joints, frames, scale, axes
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for a status line: how the file was turned
    animation_index: int | None = None  # of a file with several animations, the one read
    animation_name: str = ""  # its name in the file ("" when unnamed)
    gltf: GltfImport | None = None  # a glTF import, whose document holds the character's mesh


def load(path: str | os.PathLike, *, up: str | None = "auto", animation: int | str | None = None, scale=None, fps=None, skin=None) -> Loaded:
    """Read `path` by its format's reader. up: the file's up axis ("auto" guesses where the
    format does not say; None: as the file says, where it says); animation:
    of a file that holds several, a name or an index (None: the first); scale, fps, skin:
    for the formats that take them (formats.Format.options), else unused. ValueError (BvhError,
    GltfError, ...) naming the file and the problem."""
    path = os.fspath(path)
    fmt = formats.for_import(path)
    formats.check_animation(path, animation)
    fmt.require("import")
    return fmt.reader()(path, up=up, animation=animation, scale=scale, fps=fps, skin=skin)


def load_bvh(path: str, *, up: str = "auto", scale=None, **_) -> Loaded:
    if isinstance(scale, str):
        try:
            scale = float(scale)
        except ValueError:
            pass  # a unit name: read_bvh knows them
    imp = read_bvh(path, scale=scale, up_axis=up)
    remember_source(imp)  # saved with the rig, for its summary
    summary = imp.summary()
    return Loaded(path, formats.BVH, imp.skeleton, imp.clip, bvh_source(path, imp.layout, imp.warnings), summary,
                  list(imp.warnings))


def load_gltf(path: str, *, up: str = "auto", animation=None, fps=None, skin=None, **_) -> Loaded:
    imp, gltf = read_gltf_source(path, up=up, animation=0 if animation is None else animation, fps=fps, skin=skin)
    remember_source(imp)
    turned = [w for w in imp.warnings if w.startswith("turned")]
    name = "" if imp.animation is None or imp.animation == f"animations[{imp.animation_index}]" else imp.animation
    source = ExportSource(path, gltf=gltf, warnings=list(imp.warnings))
    return Loaded(path, formats.GLTF, imp.skeleton, imp.clip, source, imp.summary(), list(imp.warnings), turned,
                  imp.animation_index, name, imp)


def read_gltf_source(path: str | os.PathLike, *, animation: int | str | None = 0, up: str = "auto", fps=None, skin=None) -> tuple[GltfImport, GltfSource]:
    """read_gltf as the editor's import calls it (up "auto": a figure lying along +Z or -Z is
    stood up), and where its joints are in the document: the turn is kept, so that the glTF
    writer can take it back off the copied document."""
    path = os.fspath(path)
    imp = read_gltf(path, animation=animation, up_axis=up, fps=fps, skin=skin)
    turned_by = None if np.array_equal(imp.turn, (0.0, 0.0, 0.0, 1.0)) else tuple(float(v) for v in imp.turn)
    return imp, GltfSource(path, tuple(imp.nodes), turned_by)


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
