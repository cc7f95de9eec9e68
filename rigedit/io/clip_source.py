"""Where an imported clip came from (rigedit.core.clip.ClipSource), noted at import and
saved with the rig: the file's name, up axis, scale, animation and, for BVH, its layout, so
summaries can name the take and a bake is written the way the file was."""
from __future__ import annotations

import re
from pathlib import Path

from rigedit.core.clip import ClipSource

from .bvh import BvhLayout

_TURNED = re.compile(r"turned from (\S+) up")  # the glTF reader's note of an up axis it turned


def remember_source(imp) -> None:
    """Note on an import's clip (a BvhImport or GltfImport) which file it came from and how
    it was read, so the saved rig can say so; an import without a clip is left alone."""
    if imp.clip is None or not getattr(imp, "path", None):
        return  # no clip, or read from text: no file to name
    up = getattr(imp, "file_up_axis", None)
    if up is None:  # glTF says +Y up unless the reader turned it (and then says from what)
        turned = next((m for m in map(_TURNED.match, getattr(imp, "warnings", ())) if m), None)
        up = turned.group(1) if turned else "+y"
    layout = getattr(imp, "layout", None)
    bvh = None if layout is None else {
        "channels": {name: list(ch) for name, ch in layout.channels.items()},
        "end_sites": sorted(layout.end_sites),
        "scale": float(layout.scale),
        "up": layout.up,
    }
    imp.clip.source = ClipSource(
        Path(imp.path).name, up, getattr(imp, "scale", None), getattr(imp, "animation", None), bvh
    )


def bvh_layout(source: ClipSource | None):
    """The BvhLayout a clip from a BVH file was read with (to write a bake the way the file
    was), or None: a clip from elsewhere is written in metres with default channels."""
    if source is None or source.bvh is None:
        return None
    b = source.bvh
    return BvhLayout({k: tuple(v) for k, v in b["channels"].items()}, frozenset(b["end_sites"]), b["scale"], up=b["up"])
