"""A pose library: a folder of poses, one JSON file each, usable from scripts and the editor.

    lib = rigedit.PoseLibrary("poses")
    lib.add("wave", rig, joints=["RightArm", "RightForeArm", "RightHand"], thumbnail=png_bytes)
    lib.apply("wave", other_rig, weight=0.5)

Each pose is NAME.pose.json ({"format": "rigedit.pose", "version": 1, "name", "joints":
{name: [x, y, z, w]}, "root": [x, y, z]}: Rig.copy_pose's data in an envelope) with an
optional NAME.png thumbnail beside it. Writes are atomic (io/atomic.py). A name is the
file's stem, so it may not hold a path separator or start with a dot; a damaged file is a
PoseLibraryError naming the file and the field.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from rigedit.core.rig_pose_tools import checked_pose

from .atomic import atomic_write_bytes, atomic_write_text

FORMAT = "rigedit.pose"
VERSION = 1
POSE_SUFFIX = ".pose.json"
THUMB_SUFFIX = ".png"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_NAME = 120
MAX_FILE_BYTES = 64 * 1024 * 1024  # far above any pose (a few kB a hundred joints); refuses a stray huge file


class PoseLibraryError(ValueError):
    """A pose library problem, naming the file (or the name) and what is wrong."""


class PoseLibrary:
    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise PoseLibraryError(f"{self.folder}: not a folder")

    # --- reading ---------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """The poses in the folder, sorted (case-insensitively)."""
        if not self.folder.is_dir():
            return []
        found = [p.name[: -len(POSE_SUFFIX)] for p in self.folder.iterdir() if p.name.endswith(POSE_SUFFIX) and p.is_file()]
        return sorted(found, key=lambda n: (n.casefold(), n))

    def __contains__(self, name: str) -> bool:
        return isinstance(name, str) and self._pose_path(name, check=False).is_file()

    def pose(self, name: str) -> dict:
        """The pose as Rig.copy_pose gives it ({"joints": ..., "root": ...})."""
        path = self._existing(name)
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise PoseLibraryError(f"{path}: {path.stat().st_size} bytes is too large for a pose file")
            text = path.read_text(encoding="utf-8")
            doc = json.loads(text)
        except UnicodeDecodeError as e:
            raise PoseLibraryError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
        except json.JSONDecodeError as e:
            raise PoseLibraryError(f"{path}: line {e.lineno} column {e.colno}: not valid JSON: {e.msg}") from None
        except OSError as e:
            raise PoseLibraryError(f"{path}: cannot read: {e.strerror or e}") from None
        return _pose_of(doc, path)

    def thumbnail(self, name: str) -> bytes | None:
        """The pose's PNG thumbnail, or None."""
        self._existing(name)
        path = self._thumb_path(name)
        return path.read_bytes() if path.is_file() else None

    # --- using -----------------------------------------------------------------------------

    def apply(self, name: str, rig, weight: float = 1.0, mirror: bool = False) -> list[str]:
        """Paste the pose onto `rig`'s pose layer (Rig.paste_pose), slerped from the shown
        pose by `weight`; returns the pose's joints the rig does not have."""
        return rig.paste_pose(self.pose(name), mirror=mirror, weight=weight)

    # --- editing ---------------------------------------------------------------------------

    def add(self, name: str, rig, joints: Iterable[str] | None = None, thumbnail: bytes | None = None) -> Path:
        """Save `rig`'s shown pose (of `joints`, None: every joint) under `name`, replacing
        a pose of that name; `thumbnail`: PNG bytes. Returns the pose file."""
        path = self._pose_path(name)
        if thumbnail is not None and not (isinstance(thumbnail, (bytes, bytearray)) and bytes(thumbnail[:8]) == PNG_SIGNATURE):
            raise PoseLibraryError(f"{self._thumb_path(name)}: a thumbnail must be PNG bytes")
        pose = rig.copy_pose(joints)
        doc = {"format": FORMAT, "version": VERSION, "name": name, **pose}
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(doc, indent=2) + "\n", backup=False)
        thumb = self._thumb_path(name)
        if thumbnail is not None:
            atomic_write_bytes(thumb, bytes(thumbnail), backup=False)
        elif thumb.is_file():
            thumb.unlink()  # the old pose's picture would show the wrong pose
        return path

    def remove(self, name: str) -> None:
        path = self._existing(name)
        thumb = self._thumb_path(name)
        path.unlink()
        if thumb.is_file():
            thumb.unlink()

    def rename(self, old: str, new: str) -> None:
        """Rename a pose (and its thumbnail); refuses to replace another pose."""
        src = self._existing(old)
        dst = self._pose_path(new)
        if dst.exists() and not _same_file(src, dst):
            raise PoseLibraryError(f"{dst}: a pose named {new!r} is already there")
        doc = {"format": FORMAT, "version": VERSION, "name": new, **self.pose(old)}
        atomic_write_text(dst, json.dumps(doc, indent=2) + "\n", backup=False)
        if not _same_file(src, dst):
            src.unlink()
        thumb = self._thumb_path(old)
        if thumb.is_file():
            os.replace(thumb, self._thumb_path(new))

    # --- paths -----------------------------------------------------------------------------

    def _pose_path(self, name: str, check: bool = True) -> Path:
        if check:
            _check_name(name)
        return self.folder / (name + POSE_SUFFIX)

    def _thumb_path(self, name: str) -> Path:
        return self.folder / (name + THUMB_SUFFIX)

    def _existing(self, name: str) -> Path:
        path = self._pose_path(name)
        if not path.is_file():
            have = ", ".join(self.names) or "none"
            raise PoseLibraryError(f"{self.folder}: no pose named {name!r} (poses: {have})")
        return path

    def __repr__(self) -> str:
        return f"PoseLibrary({str(self.folder)!r}, {len(self.names)} poses)"


def _check_name(name) -> None:
    if not isinstance(name, str):
        raise PoseLibraryError(f"a pose name must be text, got {type(name).__name__}")
    problem = None
    if not name.strip():
        problem = "must not be empty"
    elif len(name) > MAX_NAME:
        problem = f"must be at most {MAX_NAME} characters, got {len(name)}"
    elif any(c in name for c in '/\\:*?"<>|') or any(ord(c) < 32 for c in name):
        problem = 'must not hold a path separator or any of : * ? " < > | or a control character'
    elif name.startswith(".") or name != name.strip():
        problem = "must not start with a dot or start or end with a space"
    if problem:
        raise PoseLibraryError(f"pose name {name!r}: {problem}")


def _pose_of(doc, path: Path) -> dict:
    if not isinstance(doc, dict):
        raise PoseLibraryError(f"{path}: not a rigedit pose: expected a JSON object")
    if doc.get("format") != FORMAT:
        raise PoseLibraryError(f"{path}: format: not a rigedit pose (expected {FORMAT!r}, got {doc.get('format')!r})")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= VERSION:
        raise PoseLibraryError(f"{path}: version: this rigedit reads pose version {VERSION}, got {version!r}")
    extra = set(doc) - {"format", "version", "name", "joints", "root"}
    if extra:
        raise PoseLibraryError(f"{path}: {', '.join(sorted(extra))}: not a field of a pose")
    pose = {k: doc[k] for k in ("joints", "root") if k in doc}
    try:
        checked_pose(pose)
    except ValueError as e:
        raise PoseLibraryError(f"{path}: {e}") from None
    return pose


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False
