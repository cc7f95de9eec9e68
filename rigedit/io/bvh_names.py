"""BVH joint names every reader binds, and the original names beside the file.

BVH has no quoting: a name is one word, and readers differ on what else it may hold.
three.js's BVHLoader names its tracks ".bones[NAME].position", which its property binding
cannot parse when NAME holds ':' '.' '/' '[' or ']', so a Mixamo rig's "mixamorig:Hips"
plays at rest there. The writer therefore writes names in letters, digits and '_' only
(`safe_names`), and when that changed any name it writes the originals to a small JSON file
next to the BVH (`mapping_path`: NAME.bvh.names.json). Reading the BVH back through rigedit
restores them (`restore_names`) when the mapping describes this very hierarchy; another
file's mapping, or a damaged one, is left aside with a warning, never applied halfway.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .atomic import atomic_write_text
from .bvh_format import RawBvh

__all__ = ["beside", "mapping_path", "restore_names", "safe_names", "write_mapping"]

MAPPING_FORMAT = "rigedit BVH joint names"
MAPPING_VERSION = 1
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def mapping_path(path: str | os.PathLike) -> Path:
    path = Path(path)
    return path.with_name(path.name + ".names.json")


def beside(path: str | os.PathLike) -> list[Path]:
    """The file the BVH writer writes (or removes) beside `path` (io/formats.py's `beside`)."""
    return [mapping_path(path)]


def safe_names(names: list[str]) -> list[str]:
    """Each name with every character outside letters, digits and '_' made '_', kept distinct
    (a clash gets _2, _3, ...; a name left empty becomes "joint")."""
    out: list[str] = []
    taken: set[str] = set()
    wanted = [_UNSAFE.sub("_", n) or "joint" for n in names]
    reserved = {w for w, n in zip(wanted, names) if w == n}  # names already safe keep themselves
    for name, want in zip(names, wanted):
        candidate, k = want, 2
        while candidate in taken or (candidate != name and candidate in reserved):
            candidate, k = f"{want}_{k}", k + 1
        taken.add(candidate)
        out.append(candidate)
    return out


def write_mapping(path: str | os.PathLike, written: list[str], original: list[str], end_sites: list[bool]) -> None:
    """The originals beside the BVH at `path`, or no mapping file if every name was kept
    (an earlier export's mapping there would rename this file's joints wrongly)."""
    side = mapping_path(path)
    if written == original:
        if side.exists():
            side.unlink()
        return
    document = {
        "format": MAPPING_FORMAT,
        "version": MAPPING_VERSION,
        # The hierarchy's joint names as written (End Sites as null: the file names none).
        "joints": [None if e else w for w, e in zip(written, end_sites)],
        "names": original,
    }
    atomic_write_text(side, json.dumps(document, indent=1) + "\n", backup=False)


def restore_names(raw: RawBvh, path: str | os.PathLike | None) -> RawBvh:
    """`raw` with the original joint names from the mapping beside `path`, if there is one
    for this hierarchy; else unchanged (with a warning when a mapping was there but unusable)."""
    if path is None:
        return raw
    side = mapping_path(path)
    if not side.is_file():
        return raw
    try:
        document = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raw.warnings.append(f"{side}: not read ({e}); the joints keep the names in the BVH")
        return raw
    problem = _mapping_problem(document, raw)
    if problem:
        raw.warnings.append(f"{side}: {problem}; the joints keep the names in the BVH")
        return raw
    for joint, name in zip(raw.joints, document["names"]):
        joint.name = name
    return raw


def _mapping_problem(document, raw: RawBvh) -> str | None:
    if not isinstance(document, dict) or document.get("format") != MAPPING_FORMAT:
        return f'not a mapping of joint names ("format" is not "{MAPPING_FORMAT}")'
    if document.get("version") != MAPPING_VERSION:
        return f"version {document.get('version')!r} is not {MAPPING_VERSION}"
    joints, names = document.get("joints"), document.get("names")
    if not isinstance(joints, list) or not isinstance(names, list) or len(joints) != len(names):
        return '"joints" and "names" must be lists of the same length'
    if not all(isinstance(n, str) and n for n in names):
        return '"names" must be non-empty strings'
    if len(set(names)) != len(names):
        return '"names" has a name twice'
    written = [None if j.end_site else j.name for j in raw.joints]
    if joints != written:
        return "it describes another hierarchy than this file's"
    return None
