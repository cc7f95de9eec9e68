"""Autosave to a recovery file, and finding one to offer after a crash.

Each rig file gets its own recovery file in the config directory (named by a hash of its
path, so two open files never share one); a rig never saved uses "untitled". A recovery file
counts only when it is newer than the file it belongs to: an older one is a leftover from
before the last save.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from rigedit import Rig
from rigedit.io.clip_file import sidecar_name

from .settings import config_dir


def recovery_path(rig_path: str | Path | None) -> Path:
    folder = config_dir() / "recovery"
    folder.mkdir(parents=True, exist_ok=True)
    if rig_path is None:
        return folder / "untitled.json"
    resolved = str(Path(rig_path).resolve())
    digest = hashlib.sha1(resolved.encode("utf-8")).hexdigest()[:16]
    return folder / f"{Path(rig_path).stem}-{digest}.json"


def write_recovery(rig: Rig, rig_path: str | Path | None) -> Path:
    path = recovery_path(rig_path)
    rig.save(path)
    return path


def pending_recovery(rig_path: str | Path | None) -> Path | None:
    """The recovery file to offer for this rig file, if there is one newer than the file."""
    rec = recovery_path(rig_path)
    if not rec.exists():
        return None
    if rig_path is not None:
        src = Path(rig_path)
        if src.exists() and src.stat().st_mtime >= rec.stat().st_mtime:
            return None
    return rec


def discard_recovery(rig_path: str | Path | None) -> None:
    rec = recovery_path(rig_path)
    clip = rec.with_name(sidecar_name(rec))  # an imported clip is saved beside the recovery file
    for p in (rec, rec.with_name(rec.name + ".bak"), clip, clip.with_name(clip.name + ".bak")):
        try:
            p.unlink()
        except FileNotFoundError:
            pass
