"""The file formats rigedit reads and writes: one table, asked by every command and dialog.

Import, export, lint, retarget, batch, the editor's file dialogs, Open Recent and the
launcher all find a file's format here by its suffix, and what they may do with it from its
entry: read it (`load`), write a result in it (`write`), pick one of several animations in it,
the import options it takes, the optional package it needs. Nothing else switches on a
suffix. Adding a format is one entry here and its reader and/or writer (docs/ARCHITECTURE.md,
"Adding a file format").

Readers and writers are named as "module:function" and imported on first use, so that this
table costs `rigedit --help` and the editor's launcher nothing (no numpy behind it).

    load(path, *, up, animation, scale, fps, skin) -> rigedit.io.loaded.Loaded
    write(path, skeleton, clip, source, *, name, animation_name, only_result) -> None
    clip_for(skeleton, path, *, fps, animation) -> rigedit.io.clip_match.MatchedClip
    fits(path, skeleton) -> None, or ValueError naming the file when it cannot hold the skeleton
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

SKELETON, CLIP, MESH, CHAINS = "skeleton", "clip", "mesh", "chains"


@dataclass(frozen=True)
class Format:
    name: str  # as messages and the file dialogs say it
    suffixes: tuple[str, ...]  # lower case; the first is added to a name typed without one
    carries: frozenset[str]  # of SKELETON, CLIP, MESH, CHAINS
    load: str | None = None  # "module:function" reading a file as an import, or None
    write: str | None = None  # "module:function" writing a rig's result, or None
    clip_for: str | None = None  # "module:function" reading a clip against a given skeleton (default: load, matched by name)
    list_animations: str | None = None  # "module:function" listing the animations of a file that may hold several
    mesh: str | None = None  # "module:function" (path, Loaded) -> (Mesh or None, warnings): the character's skinned mesh
    options: frozenset[str] = frozenset()  # import options beyond up and animation: "scale", "fps", "skin"
    needs: tuple[str, str, str] | None = None  # (module, rigedit extra, package) it needs installed
    beside: str | None = None  # "module:function": path -> [files written (or removed) beside it]
    fits: str | None = None  # "module:function": (path, skeleton) -> None, ValueError when one file cannot hold it

    @property
    def animations(self) -> bool:
        """Whether a file may hold several animations, picked by name or index."""
        return self.list_animations is not None

    def animation_lister(self) -> Callable:
        """path -> [gltf_animations.AnimationInfo] (index, label, duration, channels)."""
        return _resolve(self.list_animations, self, "list the animations of")

    @property
    def label(self) -> str:
        """'glTF (*.glb *.gltf)': a file dialog's filter entry."""
        return f"{self.name} ({' '.join('*' + s for s in self.suffixes)})"

    def matches(self, path: str | os.PathLike) -> bool:
        return Path(path).suffix.lower() in self.suffixes

    def reader(self) -> Callable:
        return _resolve(self.load, self, "read")

    def writer(self) -> Callable:
        return _resolve(self.write, self, "write")

    def mesh_reader(self) -> Callable | None:
        """(path, Loaded) -> (Mesh or None, warnings), or None for a format that brings no mesh in."""
        return None if self.mesh is None else _resolve(self.mesh, self, "read the mesh of")

    def clip_reader(self) -> Callable:
        return _resolve(self.clip_for, self, "match clips from")

    def files_beside(self, path: str | os.PathLike) -> list[Path]:
        """The files its writer writes (or removes) beside `path` (io/overwrite.py)."""
        return [] if self.beside is None else list(_resolve(self.beside, self, "list the files beside")(path))

    def check_fits(self, path: str | os.PathLike, skeleton) -> None:
        """ValueError naming `path` when a file of this format cannot hold `skeleton` (a BVH
        holds one skeleton: io/bvh_roots.py); every command asks before it bakes or writes."""
        if self.fits is not None:
            _resolve(self.fits, self, "check a skeleton for")(path, skeleton)

    def require(self, doing: str) -> None:
        """ValueError saying what to install when the package this format needs is missing;
        `doing` is "import" or "export", for the message."""
        if self.needs is None:
            return
        module, extra, package = self.needs
        try:
            __import__(module)  # as an import statement would: a stand-in for a missing package is honoured
        except ImportError:
            raise ValueError(f"{self.name} {doing} needs {package}: pip install 'rigedit[{extra}]' (or pip install {package})") from None


PRESET = Format("Rig presets", (".json",), frozenset({SKELETON, CLIP, CHAINS}), beside="rigedit.io.clip_file:beside")
BVH = Format(
    "BVH", (".bvh",), frozenset({SKELETON, CLIP}),
    load="rigedit.io.loaded:load_bvh", write="rigedit.io.export:write_bvh_result",
    clip_for="rigedit.io.clip_match:bvh_clip_for", options=frozenset({"scale"}), beside="rigedit.io.bvh_names:beside",
    fits="rigedit.io.bvh_roots:one_skeleton",
)
GLTF = Format(
    "glTF", (".glb", ".gltf"), frozenset({SKELETON, CLIP, MESH}),
    load="rigedit.io.loaded:load_gltf", write="rigedit.io.export:write_gltf_result",
    list_animations="rigedit.io.gltf:list_animations", options=frozenset({"fps", "skin"}),
    mesh="rigedit.io.gltf_mesh:loaded_mesh",
)
USD = Format(
    "USD", (".usd", ".usda", ".usdc"), frozenset({SKELETON, CLIP, MESH}),
    load="rigedit.io.usd:load_usd", write="rigedit.io.export:write_usd_result",
    options=frozenset({"scale"}), needs=("pxr", "usd", "usd-core"),
)
# USD carries a mesh out (bound to the skeleton); its reader brings in the skeleton and clip.

FORMATS: tuple[Format, ...] = (PRESET, BVH, GLTF, USD)
IMPORTS = tuple(f for f in FORMATS if f.load)  # File > Import, `rigedit import`, `rigedit FILE`
CLIPS = tuple(f for f in IMPORTS if CLIP in f.carries)  # lint, retarget, bake --clip, batch
EXPORTS = tuple(f for f in FORMATS if f.write)  # File > Export, `rigedit export`, retarget's OUT
# A preset's character: the file whose document (meshes, skins, materials) the opened rig draws
# and its exports keep (io/preset_character.py, io/export.py's preset_source).
CHARACTERS = (GLTF,)


def of(path: str | os.PathLike, among: Iterable[Format] = FORMATS) -> Format | None:
    """The format of `path` by its suffix (case aside), or None."""
    return next((f for f in among if f.matches(path)), None)


def importable(path: str | os.PathLike) -> bool:
    """Whether `path` is imported (a motion or character file) rather than opened as a preset."""
    return of(path, IMPORTS) is not None


def suffixes(among: Iterable[Format]) -> tuple[str, ...]:
    return tuple(s for f in among for s in f.suffixes)


def listing(among: Iterable[Format], last: str = "and") -> str:
    """'.bvh, .glb and .gltf': the suffixes of `among`, for messages."""
    s = suffixes(among)
    return s[0] if len(s) == 1 else f"{', '.join(s[:-1])} {last} {s[-1]}"


def names(among: Iterable[Format], last: str = "or") -> str:
    """'BVH, glTF or USD'."""
    n = [f.name for f in among]
    return n[0] if len(n) == 1 else f"{', '.join(n[:-1])} {last} {n[-1]}"


def dialog_filter(among: Iterable[Format], together: str | None = None) -> str:
    """A Qt file dialog's filter: `together` (all of them at once) first when given, then one
    entry per format, then all files."""
    among = tuple(among)
    parts = [f"{together} ({' '.join('*' + s for s in suffixes(among))})"] if together else []
    return ";;".join(parts + [f.label for f in among] + ["All files (*)"])


def by_label(label: str, among: Iterable[Format] = FORMATS) -> Format | None:
    """The format whose dialog filter entry is `label` (the filter a file dialog returns)."""
    return next((f for f in among if f.label == label), None)


def for_import(path: str | os.PathLike) -> Format:
    """The format to import `path` with; ValueError naming the file and the suffixes read."""
    fmt = of(path, IMPORTS)
    if fmt is None:
        raise ValueError(f"{path}: rigedit imports {listing(IMPORTS)} files")
    return fmt


def check_animation(path: str | os.PathLike, animation) -> None:
    """ValueError when an animation is asked of a file whose format holds one motion."""
    fmt = of(path)
    if animation is not None and fmt is not None and not fmt.animations:
        multi = names([f for f in IMPORTS if f.animations])
        raise ValueError(f"{path}: --animation picks one of a {multi} file's animations; a {fmt.name} file holds one motion")


def for_clip(path: str | os.PathLike, command: str) -> Format:
    """The format to read a clip from for `command` ("lint", "retarget"); ValueError otherwise."""
    fmt = of(path, CLIPS)
    if fmt is None:
        suffix = Path(path).suffix
        raise ValueError(f"{path}: rigedit {command} reads {listing(CLIPS, 'or')} clips, not {suffix or 'a file without a suffix'}")
    return fmt


def for_export(path: str | os.PathLike) -> Format:
    """The format a result is written in by `path`'s suffix; ValueError naming the suffixes."""
    fmt = of(path, EXPORTS)
    if fmt is None:
        suffix = Path(path).suffix.lower()
        raise ValueError(f"{path}: cannot tell the format from {suffix or 'no suffix'!r}; use one of {', '.join(suffixes(EXPORTS))}")
    return fmt


def _resolve(ref: str | None, fmt: Format, verb: str) -> Callable:
    if ref is None:
        raise ValueError(f"rigedit does not {verb} {fmt.name} files")
    module, _, function = ref.partition(":")
    return getattr(importlib.import_module(module), function)
