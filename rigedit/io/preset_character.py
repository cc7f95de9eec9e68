"""A preset's `character`: the glTF file its skeleton came from, written relative to the
preset's folder (a project folder moved whole keeps working) and read back as an absolute
path. Whether the file is still there is the editor's business when it opens the rig: a
missing character costs the mesh, never the rig."""
from __future__ import annotations

import os
from pathlib import Path

from rigedit.core.character import CharacterRef


def character_document(ref: CharacterRef, file: str) -> dict:
    target = Path(ref.path)
    folder = _folder(file)
    if folder is not None and target.is_absolute():
        try:
            shown = os.path.relpath(target, folder)
        except ValueError:  # another drive (Windows): no relative path exists
            shown = str(target)
    else:
        shown = str(target)
    return {"file": Path(shown).as_posix(), "up_axis": ref.up_axis}


def character_from(m, file: str) -> CharacterRef:
    path = Path(m.file)
    folder = _folder(file)
    if not path.is_absolute() and folder is not None:
        path = folder / path
    return CharacterRef(os.path.normpath(path), m.up_axis)


def _folder(file: str) -> Path | None:
    """The preset's folder, or None for text with no file ("<preset>")."""
    if not file or file.startswith("<"):
        return None
    return Path(file).resolve().parent
