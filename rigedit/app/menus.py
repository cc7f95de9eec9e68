"""The menu bar: File, Edit, View."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence

from . import settings

if TYPE_CHECKING:
    from .main_window import MainWindow


def build_menus(w: "MainWindow") -> None:
    bar = w.menuBar()
    files = w.files

    m = bar.addMenu("&File")
    w.file_menu = m
    new_menu = m.addMenu("&New from bundled rig")
    new_menu.setObjectName("newMenu")
    for preset in files.bundled():
        act = new_menu.addAction(preset.stem.replace("_", " ").title())
        act.setData(str(preset))
        act.triggered.connect(lambda _c=False, p=preset: files.new_dialog(p))
    if not files.bundled():
        new_menu.addAction("(no bundled rigs found)").setEnabled(False)
    w.action_open = _action(w, m, "&Open…", QKeySequence.StandardKey.Open, files.open_dialog)
    w.recent_menu = m.addMenu("Open &Recent")
    w.recent_menu.setObjectName("recentMenu")
    w.recent_menu.aboutToShow.connect(w.refresh_recent_menu)
    m.addSeparator()
    w.action_save = _action(w, m, "&Save", QKeySequence.StandardKey.Save, files.save)
    w.action_save_as = _action(w, m, "Save &As…", QKeySequence.StandardKey.SaveAs, files.save_as)
    m.addSeparator()
    w.action_quit = _action(w, m, "&Quit", QKeySequence.StandardKey.Quit, w.close)

    m = bar.addMenu("&Edit")
    w.edit_menu = m
    undo = w.undo_stack.createUndoAction(w, "&Undo")
    undo.setShortcuts(QKeySequence.StandardKey.Undo)
    redo = w.undo_stack.createRedoAction(w, "&Redo")
    redo.setShortcuts(QKeySequence.StandardKey.Redo)
    m.addAction(undo)
    m.addAction(redo)
    w.action_undo, w.action_redo = undo, redo

    m = bar.addMenu("&View")
    w.view_menu = m
    w.action_reset_camera = _action(w, m, "&Reset Camera", QKeySequence("Home"), w.viewport.reset_camera)
    w.action_frame = _action(w, m, "&Frame Selected", QKeySequence("F"), w.viewport.frame_selected)
    m.addSeparator()
    w.action_show_limits = _toggle(w, m, "Show &Limits", w.viewport.show_limits, w.viewport.set_show_limits)
    w.action_show_reach = _toggle(w, m, "Show Rea&ch", w.viewport.show_reach, w.viewport.set_show_reach)
    m.addSeparator()
    panels = m.addMenu("&Panels")
    w.panels_menu = panels


def fill_recent(w: "MainWindow") -> None:
    menu = w.recent_menu
    menu.clear()
    files = settings.recent_files()
    for i, f in enumerate(files):
        act = menu.addAction(f"&{i + 1} {Path(f).name}")
        act.setToolTip(f)
        act.setData(f)
        act.setEnabled(Path(f).exists())
        act.triggered.connect(lambda _c=False, p=f: w.files.open_recent(p))
    if not files:
        menu.addAction("(none)").setEnabled(False)
    else:
        menu.addSeparator()
        menu.addAction("Clear list", lambda: (settings.clear_recent_files(), fill_recent(w)))


def _action(w, menu, text, shortcut, slot) -> QAction:
    act = QAction(text, w)
    act.setShortcut(QKeySequence(shortcut))
    act.triggered.connect(_discarding(slot))
    menu.addAction(act)
    return act


def _discarding(slot):
    """A slot that returns nothing: the actions' targets return bools (save succeeded, ...),
    and a value handed back to Qt from a slot is at best ignored."""

    def run(_checked: bool = False) -> None:
        slot()

    return run


def _toggle(w, menu, text, on: bool, slot) -> QAction:
    act = QAction(text, w)
    act.setCheckable(True)
    act.setChecked(on)
    act.toggled.connect(slot)
    menu.addAction(act)
    return act
