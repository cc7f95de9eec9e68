"""File > Export's file dialog: the file name's suffix follows the format filter picked.

The static QFileDialog.getSaveFileName kept the proposed name whatever filter was chosen, so
picking glTF still wrote `..._baked.bvh` (the writer goes by the suffix). Here the name in
the dialog is renamed as the filter changes, and the path handed back carries the chosen
filter's suffix (a name typed with another format's suffix is renamed; one with no suffix,
or a suffix no format has, gets the filter's). "All files" leaves the name as typed.

The filters are read from the filter string ("glTF (*.glb *.gltf);;..."), whichever way it
is built. The dialog's objectName is `exportDialog`.
"""
from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

_PATTERN = re.compile(r"\*(\.[A-Za-z0-9_.]+)")


def suffixes(name_filter: str) -> list[str]:
    """The suffixes a filter names, lower case, first the one a new name gets: "glTF (*.glb
    *.gltf)" -> [".glb", ".gltf"]; none for "All files (*)"."""
    return [s.lower() for s in _PATTERN.findall(name_filter)]


def follow_filter(path: Path, name_filter: str, filters: list[str]) -> Path:
    """`path` named for `name_filter`'s format (the first of `filters` that names its suffix
    is the format it has now)."""
    wanted = suffixes(name_filter)
    suffix = path.suffix.lower()
    if not wanted or suffix in wanted:
        return path
    known = {s for f in filters for s in suffixes(f)}
    stem = path.name[: -len(path.suffix)] if suffix in known else path.name
    return path.with_name(stem + wanted[0])


def ask_export_path(parent: QWidget, proposed: Path, filter_string: str) -> Path | None:
    """The path to export to, or None when the dialog was cancelled. Starts on `proposed`
    with the filter of its suffix selected."""
    filters = filter_string.split(";;")
    dialog = QFileDialog(parent, "Export", str(proposed), filter_string)
    dialog.setObjectName("exportDialog")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    start = next((f for f in filters if proposed.suffix.lower() in suffixes(f)), None)
    if start is not None:
        dialog.selectNameFilter(start)
    dialog.selectFile(proposed.name)

    def renamed(name_filter: str) -> None:
        typed = dialog.selectedFiles()
        if typed and Path(typed[0]).name:
            dialog.selectFile(follow_filter(Path(typed[0]), name_filter, filters).name)

    dialog.filterSelected.connect(renamed)
    try:
        if dialog.exec() != QFileDialog.DialogCode.Accepted or not dialog.selectedFiles():
            return None
        return follow_filter(Path(dialog.selectedFiles()[0]), dialog.selectedNameFilter(), filters)
    finally:
        dialog.deleteLater()
