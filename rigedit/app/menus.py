"""The menu bar: File, Edit, View (camera, viewpoints, navigation, overlays, Mesh / Bones / Both)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence

from . import settings
from .help_menu import install_help_menu
from .recent import fill_recent  # noqa: F401 - the window refreshes Open Recent through here
from .viewport import navigation

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
    # Numpad period as in Blender (Delete is the same key with Num Lock off).
    w.action_frame.setShortcuts([QKeySequence("F"), _keypad(Qt.Key.Key_Period), _keypad(Qt.Key.Key_Delete)])
    _viewpoints(w, m.addMenu("&Viewpoint"))
    _navigation(w, m.addMenu("&Navigation"))
    m.addSeparator()
    w.action_show_limits = _toggle(w, m, "Show &Limits", w.viewport.show_limits, w.viewport.set_show_limits)
    w.action_show_reach = _toggle(w, m, "Show Rea&ch", w.viewport.show_reach, w.viewport.set_show_reach)
    m.addSeparator()
    _view_modes(w, m)
    m.addSeparator()
    panels = m.addMenu("&Panels")
    w.panels_menu = panels

    install_help_menu(w)


# Blender's numpad views: (name, label, key, the key with Num Lock off); Ctrl gives the opposite.
_NUMPAD_VIEWS = [
    ("front", "back", "&Front", "&Back", Qt.Key.Key_1, Qt.Key.Key_End),
    ("right", "left", "&Right", "&Left", Qt.Key.Key_3, Qt.Key.Key_PageDown),
    ("top", "bottom", "&Top", "Botto&m", Qt.Key.Key_7, Qt.Key.Key_Home),
]


def _keypad(key, ctrl: bool = False) -> QKeySequence:
    mods = Qt.KeyboardModifier.KeypadModifier | (Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier)
    return QKeySequence(mods | key)


def _viewpoints(w: "MainWindow", menu) -> None:
    w.view_actions = {}
    for name, opposite, label, opposite_label, key, numlock_off in _NUMPAD_VIEWS:
        for view, text, ctrl in ((name, label, False), (opposite, opposite_label, True)):
            act = QAction(text, w)
            act.setShortcuts([_keypad(key, ctrl), _keypad(numlock_off, ctrl)])
            act.triggered.connect(lambda _c=False, v=view: w.viewport.view_from(v))
            menu.addAction(act)
            w.view_actions[view] = act


def _navigation(w: "MainWindow", menu) -> None:
    """Blender or Maya mouse navigation, remembered across runs."""
    group = QActionGroup(w)
    group.setExclusive(True)
    w.navigation_actions = {}
    current = navigation.saved_preset()
    hints = {"blender": "middle-drag orbits, Shift+middle pans, wheel or Ctrl+middle zooms",
             "maya": "Alt+left orbits, Alt+middle pans, Alt+right or the wheel zooms"}
    for preset, label in navigation.PRESETS.items():
        act = QAction(label, w)
        act.setCheckable(True)
        act.setChecked(preset == current)
        act.setToolTip(hints[preset])
        act.setStatusTip(f"{label} navigation: {hints[preset]}")
        act.setData(preset)
        group.addAction(act)
        menu.addAction(act)
        act.toggled.connect(lambda on, p=preset: on and set_navigation(w, p))
        w.navigation_actions[preset] = act
    menu.setToolTipsVisible(True)
    w.viewport.set_navigation(current)


_VIEW_MODES = [("mesh", "&Mesh", "the character's skinned mesh (bones where it has none)"),
               ("bones", "&Bones", "the skeleton's bones only"),
               ("both", "Mesh &and Bones", "the mesh, with the bones drawn over it")]


def _view_modes(w: "MainWindow", menu) -> None:
    """View > Mesh / Bones / Both, remembered across runs."""
    group = QActionGroup(w)
    group.setExclusive(True)
    w.view_mode_actions = {}
    w.remember_view_mode = True
    current = settings.view_mode()
    for mode, label, tip in _VIEW_MODES:
        act = QAction(label, w)
        act.setCheckable(True)
        act.setChecked(mode == current)
        act.setStatusTip(f"Show {tip}")
        act.setData(mode)
        group.addAction(act)
        menu.addAction(act)
        act.toggled.connect(lambda on, m=mode: on and set_view_mode(w, m, remember=w.remember_view_mode))
        w.view_mode_actions[mode] = act
    w.viewport.set_view_mode(current)


def set_view_mode(w: "MainWindow", mode: str, *, remember: bool = True) -> None:
    """Show the mesh, the bones or both (as View > Mesh / Bones / Both does); `remember`
    keeps it for the next run (a --screenshot run's --view does not)."""
    w.viewport.set_view_mode(mode)
    if remember:
        settings.save_view_mode(mode)
    act = w.view_mode_actions[mode]
    if not act.isChecked():
        w.remember_view_mode = remember  # checking it calls this again, from the action
        try:
            act.setChecked(True)
        finally:
            w.remember_view_mode = True


def set_navigation(w: "MainWindow", preset: str) -> None:
    """Use `preset` in the viewport and keep it for the next run (as View > Navigation does)."""
    w.viewport.set_navigation(preset)
    navigation.save_preset(preset)
    act = w.navigation_actions[preset]
    if not act.isChecked():
        act.setChecked(True)


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
