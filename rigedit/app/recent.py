"""File > Open Recent: presets that were opened or saved, and files that were imported.

An import is read again the way it was read the first time (its up axis and glTF animation,
kept with the list in settings.py), through the import dialog as File > Import does. A file
that is gone is reported and taken off the list, rather than greyed out for ever.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rigedit.io import formats

from . import dialogs, settings

if TYPE_CHECKING:
    from .main_window import MainWindow


def fill_recent(w: "MainWindow") -> None:
    menu = w.recent_menu
    menu.clear()
    files = settings.recent_files()
    for i, f in enumerate(files):
        options = settings.recent_import_options(f)
        act = menu.addAction(f"&{i + 1} {Path(f).name}" + ("" if options is None else f"\t{describe_import(options)}"))
        act.setToolTip(f)
        act.setStatusTip(f)
        act.setData(f)
        act.triggered.connect(lambda _c=False, p=f: open_recent(w, p))
    if not files:
        menu.addAction("(none)").setEnabled(False)
    else:
        menu.addSeparator()
        menu.addAction("Clear list", lambda: (settings.clear_recent_files(), fill_recent(w)))
    menu.setToolTipsVisible(True)


def describe_import(options: dict) -> str:
    parts = ["import"]
    anim = options.get("animation")
    if anim is not None:
        parts.append(f"animation {anim}" if isinstance(anim, int) else str(anim))
    parts.append(f"up {options.get('up', 'auto')}")
    return ", ".join(parts)


def open_recent(w: "MainWindow", path: str) -> bool:
    """Open (a preset) or import again (anything imported) a recent file; False if it did not happen."""
    if not Path(path).is_file():
        settings.remove_recent_file(path)
        fill_recent(w)
        dialogs.show_error(w, "Cannot open recent file", f"{path} no longer exists; it was removed from Open Recent.")
        return False
    options = settings.recent_import_options(path)
    if options is None and not formats.importable(path):
        if not w.files.maybe_save():
            return False
        return w.files.open_preset(path)
    importer = getattr(w, "importer", None)
    if importer is None or not w.files.maybe_save():
        return False
    options = options or {}
    up = options.get("up") if isinstance(options.get("up"), str) else "auto"
    anim = options.get("animation")
    return importer.import_file(path, up=up, animation=anim if isinstance(anim, (int, str)) else None)
