"""The menu bar: File, Edit, View (camera, viewpoints, navigation, overlays, Mesh / Bones / Both,
Panels) and Help (help_menu.py). build_menus hands back what it made (Menus) for MainWindow's fields."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from . import settings
from .help_menu import HelpMenu, install_help_menu
from .onion_dialog import show_onion_settings
from .recent import fill_recent  # noqa: F401 - the window refreshes Open Recent through here
from .viewport import navigation

if TYPE_CHECKING:
    from .main_window import MainWindow


@dataclass
class Menus:
    """What build_menus made: MainWindow keeps each in its field of the same name."""
    file_menu: QMenu
    action_open: QAction
    recent_menu: QMenu
    action_save: QAction
    action_save_as: QAction
    action_quit: QAction
    edit_menu: QMenu
    action_undo: QAction
    action_redo: QAction
    view_menu: QMenu
    action_reset_camera: QAction
    action_frame: QAction
    action_frame_all: QAction
    view_actions: dict[str, QAction]
    navigation_actions: dict[str, QAction]
    action_show_limits: QAction
    action_show_reach: QAction
    action_onion_skin: QAction
    action_onion_settings: QAction
    action_motion_trails: QAction
    view_mode_actions: dict[str, QAction]
    panels_menu: QMenu  # View > Panels: MainWindow adds each dock's entry
    help: HelpMenu


def build_menus(w: "MainWindow") -> Menus:
    bar = w.menuBar()
    files = w.files

    m = bar.addMenu("&File")
    file_menu = m
    new_menu = m.addMenu("&New from bundled rig")
    new_menu.setObjectName("newMenu")
    for preset in files.bundled():
        act = new_menu.addAction(preset.stem.replace("_", " ").title())
        act.setData(str(preset))
        act.triggered.connect(lambda _c=False, p=preset: files.new_dialog(p))
    if not files.bundled():
        new_menu.addAction("(no bundled rigs found)").setEnabled(False)
    action_open = _action(w, m, "&Open…", QKeySequence.StandardKey.Open, files.open_dialog)
    recent_menu = m.addMenu("Open &Recent")
    recent_menu.setObjectName("recentMenu")
    recent_menu.aboutToShow.connect(w.refresh_recent_menu)
    m.addSeparator()
    action_save = _action(w, m, "&Save", QKeySequence.StandardKey.Save, files.save)
    action_save_as = _action(w, m, "Save &As…", QKeySequence.StandardKey.SaveAs, files.save_as)
    m.addSeparator()
    action_quit = _action(w, m, "&Quit", QKeySequence.StandardKey.Quit, w.close)

    m = bar.addMenu("&Edit")
    edit_menu = m
    undo = w.undo_stack.createUndoAction(w, "&Undo")
    undo.setShortcuts(QKeySequence.StandardKey.Undo)
    redo = w.undo_stack.createRedoAction(w, "&Redo")
    redo.setShortcuts(QKeySequence.StandardKey.Redo)
    m.addAction(undo)
    m.addAction(redo)

    m = bar.addMenu("&View")
    view_menu = m
    action_reset_camera = _action(w, m, "&Reset Camera", QKeySequence("Home"), w.viewport.reset_camera)
    action_frame = _action(w, m, "&Frame Selected", QKeySequence("F"), w.viewport.frame_selected)
    # Numpad period as in Blender (Delete is the same key with Num Lock off). With the viewport
    # focused the viewport reads the numpad itself (navigation.numpad_command says why).
    action_frame.setShortcuts([QKeySequence("F"), _keypad(Qt.Key.Key_Period), _keypad(Qt.Key.Key_Delete)])
    # Maya's A: the whole figure from where the camera looks now (Home also turns it back to
    # the start view). Frame Selected never gets there while the dock has a chain.
    action_frame_all = _action(w, m, "Frame &All", QKeySequence("A"), w.viewport.frame_all)
    view_actions = _viewpoints(w, m.addMenu("&Viewpoint"))
    navigation_actions = _navigation(w, m.addMenu("&Navigation"))
    m.addSeparator()
    action_show_limits = _toggle(w, m, "Show &Limits", w.viewport.show_limits, w.viewport.set_show_limits)
    action_show_reach = _toggle(w, m, "Show Rea&ch", w.viewport.show_reach, w.viewport.set_show_reach)
    action_onion_skin = _toggle(w, m, "&Onion Skin", w.motion.onion_on, w.motion.set_onion)
    action_onion_skin.setStatusTip("Ghost skeletons at earlier (warm) and later (cool) frames")
    action_onion_settings = _action(w, m, "Onion Skin &Settings…", QKeySequence(), lambda: show_onion_settings(w))
    action_motion_trails = _toggle(w, m, "Motion &Trails", w.motion.trails_on, w.motion.set_trails)
    action_motion_trails.setStatusTip("The path of the selected joints (or every chain's tip) around the current time")
    m.addSeparator()
    view_mode_actions = _view_modes(w, m)
    m.addSeparator()
    panels_menu = m.addMenu("&Panels")

    return Menus(file_menu=file_menu, action_open=action_open, recent_menu=recent_menu, action_save=action_save,
                 action_save_as=action_save_as, action_quit=action_quit, edit_menu=edit_menu, action_undo=undo,
                 action_redo=redo, view_menu=view_menu, action_reset_camera=action_reset_camera,
                 action_frame=action_frame, action_frame_all=action_frame_all, view_actions=view_actions, navigation_actions=navigation_actions,
                 action_show_limits=action_show_limits, action_show_reach=action_show_reach,
                 action_onion_skin=action_onion_skin, action_onion_settings=action_onion_settings,
                 action_motion_trails=action_motion_trails,
                 view_mode_actions=view_mode_actions, panels_menu=panels_menu, help=install_help_menu(w))


_VIEW_LABELS = {"front": "&Front", "back": "&Back", "right": "&Right", "left": "&Left", "top": "&Top",
                "bottom": "Botto&m"}


def _keypad(key, ctrl: bool = False) -> QKeySequence:
    mods = Qt.KeyboardModifier.KeypadModifier | (Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier)
    return QKeySequence(mods | key)


def _viewpoints(w: "MainWindow", menu) -> dict[str, QAction]:
    actions = {}
    for keys, views in navigation.NUMPAD:
        for ctrl, view in enumerate(views):
            if view == navigation.FRAME:
                continue
            act = QAction(_VIEW_LABELS[view], w)
            act.setShortcuts([_keypad(key, bool(ctrl)) for key in keys])
            act.triggered.connect(lambda _c=False, v=view: w.viewport.view_from(v))
            menu.addAction(act)
            actions[view] = act
    return actions


def _navigation(w: "MainWindow", menu) -> dict[str, QAction]:
    """Blender or Maya mouse navigation, remembered across runs."""
    group = QActionGroup(w)
    group.setExclusive(True)
    actions = {}
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
        actions[preset] = act
    menu.setToolTipsVisible(True)
    w.viewport.set_navigation(current)
    return actions


_VIEW_MODES = [("mesh", "&Mesh", "the character's skinned mesh (bones where it has none)"),
               ("bones", "&Bones", "the skeleton's bones only"),
               ("both", "Mesh &and Bones", "the mesh, with the bones drawn over it")]


def _view_modes(w: "MainWindow", menu) -> dict[str, QAction]:
    """View > Mesh / Bones / Both, remembered across runs."""
    group = QActionGroup(w)
    group.setExclusive(True)
    actions = {}
    current = settings.view_mode()
    for mode, label, tip in _VIEW_MODES:
        act = QAction(label, w)
        act.setCheckable(True)
        act.setChecked(mode == current)
        act.setStatusTip(f"Show {tip}")
        act.setData(mode)
        group.addAction(act)
        menu.addAction(act)
        # Not when the viewport shows the mode already: set_view_mode checked the entry.
        act.toggled.connect(lambda on, m=mode: on and w.viewport.view_mode != m and set_view_mode(w, m))
        actions[mode] = act
    w.viewport.set_view_mode(current)
    return actions


def set_view_mode(w: "MainWindow", mode: str, *, remember: bool = True) -> None:
    """Show the mesh, the bones or both (as View > Mesh / Bones / Both does); `remember`
    keeps it for the next run (a --screenshot run's --view does not)."""
    w.viewport.set_view_mode(mode)
    if remember:
        settings.save_view_mode(mode)
    w.view_mode_actions[mode].setChecked(True)


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
