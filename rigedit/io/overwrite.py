"""Where a command may write: the one rule every command that writes a file follows (import,
export, bake, retarget, lint --fix, report; a batch applies it per clip, in batch/plan.py).

An existing file is replaced only when asked (`--force`, force=True), and so is a file its
format writes beside it (a BVH's NAME.bvh.names.json, a preset's NAME.clip.npz: the table's
`Format.beside`), which would otherwise be replaced or removed without a word. The folder must
be there. The check runs before any work, so a refused command costs nothing; the writes
themselves are atomic (io/atomic.py).
"""
from __future__ import annotations

import os
from pathlib import Path

from . import formats

FORCE = "--force overwrites it"


def check_output(path: str | os.PathLike, *, force: bool, fmt: formats.Format | None = None) -> None:
    """ValueError naming `path` when it cannot be written: no such folder, a folder in its
    place, or (without `force`) it or a file written beside it exists already. `fmt`: the
    format written (default: the export format its suffix names; a .json may be a preset or
    a report, so a preset's writer names formats.PRESET)."""
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():
        raise ValueError(f"{path}: no such folder {str(folder)!r} to write into")
    if path.is_dir():
        raise ValueError(f"{path}: is a folder; name a file to write")
    if force:
        return
    if os.path.lexists(path):
        raise ValueError(f"{path}: already exists ({FORCE})")
    fmt = fmt or formats.of(path, formats.EXPORTS)
    beside = [p for p in (fmt.files_beside(path) if fmt else []) if os.path.lexists(p)]
    if beside:
        raise ValueError(f"{path}: {', '.join(map(str, beside))} is there beside it and would be replaced ({FORCE})")
