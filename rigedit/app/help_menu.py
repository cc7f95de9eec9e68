"""Help > Keyboard Shortcuts and Help > About rigedit.

The shortcuts list is made when the dialog opens, from what the editor has at that moment:
every action in the menus and the window that has a shortcut (its menu path and its keys, as
Qt shows them), the camera drags of each navigation preset (viewport/navigation.py), and the
keys a widget handles itself (the timeline's COMMAND_KEYS, the viewport's arrow keys and Esc,
its joint selection and rotation keys, rotate_mode.HELP_ROWS),
and every way to make a key (timeline_dock.HOW_TO_KEY).
A shortcut added to an action shows up without anyone editing this file; a key added to a
widget's own handling shows up as "(no description)" until it is described here (a test
checks there is none).
"""
from __future__ import annotations

import html
import platform
import sys
from importlib import metadata
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QHeaderView,
    QLabel,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .timeline.plot import COMMAND_KEYS
from .timeline_dock import HOW_TO_KEY
from .viewport import navigation
from .viewport.rotate_mode import HELP_ROWS as JOINT_ROWS

if TYPE_CHECKING:
    from .main_window import MainWindow

COLUMNS = ("Keys or mouse", "Does", "Where")
NO_DESCRIPTION = "(no description)"

_K = Qt.Key
# Keys the viewport's GL view handles itself (pyqtgraph's key orbit; Esc is rigedit's).
VIEWPORT_KEYS = {
    _K.Key_Left: "orbit left", _K.Key_Right: "orbit right", _K.Key_Up: "orbit up", _K.Key_Down: "orbit down",
}
UNUSED_VIEWPORT_KEYS = {_K.Key_PageUp, _K.Key_PageDown}  # caught by pyqtgraph, which does nothing with them
# The timeline's own keys while the plot has the focus (timeline/plot.py COMMAND_KEYS).
TIMELINE_KEYS = {
    _K.Key_Left: "previous frame", _K.Key_Right: "next frame", _K.Key_Home: "first frame", _K.Key_End: "last frame",
    _K.Key_Delete: "delete the selected key", _K.Key_Backspace: "delete the selected key", _K.Key_Space: "play / pause",
}
# Keys of a few keyboards (Sun's Undo is F14; dedicated Copy, Undo... keys) that Qt's standard
# bindings add next to Ctrl+Z and the like: left out of the list when the action has others.
_RARE_KEYS = {int(getattr(_K, f"Key_F{n}").value) for n in range(13, 36)} | {
    int(k.value) for k in (_K.Key_Undo, _K.Key_Redo, _K.Key_Copy, _K.Key_Cut, _K.Key_Paste, _K.Key_Open, _K.Key_Save,
                           _K.Key_Find, _K.Key_Close, _K.Key_Help, _K.Key_Print)
}
_BUTTONS = {Qt.MouseButton.LeftButton: "left", Qt.MouseButton.MiddleButton: "middle", Qt.MouseButton.RightButton: "right"}
_MODIFIERS = ((Qt.KeyboardModifier.ControlModifier, "Ctrl"), (Qt.KeyboardModifier.ShiftModifier, "Shift"),
              (Qt.KeyboardModifier.AltModifier, "Alt"), (Qt.KeyboardModifier.MetaModifier, "Meta"))


class HelpMenu(NamedTuple):
    menu: QMenu
    shortcuts: QAction
    about: QAction


def install_help_menu(w: "MainWindow") -> HelpMenu:
    """Help > Keyboard Shortcuts (F1) and About rigedit: the window's show_shortcuts and
    show_about open them."""
    m = w.menuBar().addMenu("&Help")
    shortcuts = QAction("&Keyboard Shortcuts", w)
    shortcuts.setObjectName("actionShortcuts")
    shortcuts.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
    shortcuts.triggered.connect(lambda _c=False: w.show_shortcuts())
    m.addAction(shortcuts)
    about = QAction("&About rigedit", w)
    about.setObjectName("actionAbout")
    about.setMenuRole(QAction.MenuRole.AboutRole)
    about.triggered.connect(lambda _c=False: w.show_about())
    m.addAction(about)
    return HelpMenu(m, shortcuts, about)


# --- shortcuts ------------------------------------------------------------------------------


def shortcut_rows(w: "MainWindow") -> list[tuple[str, str, str]]:
    """(keys or mouse, what it does, where) for everything the editor answers to."""
    rows: list[tuple[str, str, str]] = []
    seen: set[int] = set()
    for act in w.menuBar().actions():
        if act.menu() is not None:
            _menu_rows(act.menu(), [_plain(act.text())], rows, seen)
    for act in w.findChildren(QAction):
        if id(act) not in seen and act.shortcuts():
            seen.add(id(act))
            rows.append((_keys(act), _plain(act.text()), _where(act)))
    rows.append((_key_text(QKeySequence(_K.Key_Escape)), "cancel a drag (the handle goes back)", "Viewport"))
    rows.extend((keys, does, "Viewport: joints") for keys, does in JOINT_ROWS)
    for key in getattr(w.viewport, "noRepeatKeys", []):
        if key not in UNUSED_VIEWPORT_KEYS:
            rows.append((_key_text(QKeySequence(key)), VIEWPORT_KEYS.get(key, NO_DESCRIPTION), "Viewport"))
    for key in _timeline_keys():
        rows.append((_key_text(QKeySequence(key)), TIMELINE_KEYS.get(key, NO_DESCRIPTION), "Timeline (plot focused)"))
    rows.extend((how, does, "Timeline: keying") for how, does in HOW_TO_KEY)
    current = getattr(w.viewport, "navigation", navigation.DEFAULT_PRESET)
    for preset, label in navigation.PRESETS.items():
        where = f"Viewport, {label} navigation" + (" (in use)" if preset == current else "")
        for button, mods, gesture in navigation.bindings(preset):
            rows.append((_drag_text(button, mods), f"{gesture} the camera", where))
        rows.append(("Wheel", "zoom the camera", where))
    return rows


def _menu_rows(menu: QMenu, path: list[str], rows, seen) -> None:
    for act in menu.actions():
        if act.isSeparator():
            continue
        if act.menu() is not None:
            _menu_rows(act.menu(), path + [_plain(act.text())], rows, seen)
            continue
        seen.add(id(act))
        if act.shortcuts():
            rows.append((_keys(act), _plain(act.text()), " > ".join(path)))


def _timeline_keys() -> list:
    return [Qt.Key(k) for k in COMMAND_KEYS]


def _keys(act: QAction) -> str:
    seqs = act.shortcuts()
    common = [s for s in seqs if not (s.count() == 1 and int(s[0].key().value) in _RARE_KEYS)]
    return ", ".join(_key_text(s) for s in (common or seqs))


def _key_text(seq: QKeySequence) -> str:
    # Qt writes a keypad key as "Num+1"; Blender users look for "Numpad 1".
    return seq.toString(QKeySequence.SequenceFormat.NativeText).replace("Num+", "Numpad ")


def _drag_text(button, mods) -> str:
    held = [name for flag, name in _MODIFIERS if mods & flag]
    return "+".join(held + [f"{_BUTTONS.get(button, str(button))}-drag"])


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").split("\t")[0]


def _where(act: QAction) -> str:
    obj = act.parent()
    while obj is not None:
        if isinstance(obj, QDockWidget):
            return obj.windowTitle()
        obj = obj.parent()
    return "Window"


class ShortcutsDialog(QDialog):
    def __init__(self, rows: list[tuple[str, str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard Shortcuts")
        self.rows = rows
        layout = QVBoxLayout(self)
        self.table = QTableWidget(len(rows), len(COLUMNS), self)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setWordWrap(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 560)

    def texts(self) -> list[tuple[str, str, str]]:
        """What the table shows, row by row (for tests)."""
        return [tuple(self.table.item(r, c).text() for c in range(len(COLUMNS))) for r in range(self.table.rowCount())]


def show_shortcuts(w: "MainWindow") -> ShortcutsDialog:
    dialog = ShortcutsDialog(shortcut_rows(w), w)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog


# --- about ----------------------------------------------------------------------------------


def versions(w: "MainWindow | None" = None) -> dict[str, str]:
    """Name -> version of rigedit and what it runs on; the OpenGL renderer when a viewport has drawn."""
    from PySide6 import QtCore, __version__ as pyside_version

    out = {"rigedit": _version("rigedit"), "Python": platform.python_version(), "Qt": QtCore.qVersion(),
           "PySide6": pyside_version}
    for name in ("numpy", "numba", "pyqtgraph", "pygltflib"):
        out[name] = _version(name)
    if w is not None:
        out["OpenGL renderer"], out["OpenGL version"] = gl_strings(w.viewport)
    return out


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        module = sys.modules.get(dist)
        return getattr(module, "__version__", None) or "not installed"


def gl_strings(viewport) -> tuple[str, str]:
    """(GL_RENDERER, GL_VERSION) of the viewport's context."""
    if not viewport.isValid():
        return "unknown (the viewport has not drawn yet)", "unknown"
    from OpenGL import GL

    viewport.makeCurrent()
    try:
        return tuple(_text(GL.glGetString(e)) for e in (GL.GL_RENDERER, GL.GL_VERSION))  # type: ignore[return-value]
    except Exception as e:  # a context that went away; the dialog says so rather than failing
        return f"unknown ({e})", "unknown"
    finally:
        viewport.doneCurrent()


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class AboutDialog(QDialog):
    def __init__(self, info: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle("About rigedit")
        self.info = info
        layout = QVBoxLayout(self)
        title = QLabel(f"<h3>rigedit {info.get('rigedit', '')}</h3>"
                       "<p>Pose character rigs with inverse kinematics.</p>")
        layout.addWidget(title)
        body = QLabel("<table>" + "".join(f"<tr><td>{k}</td><td>&nbsp;&nbsp;{html.escape(v, quote=False)}</td></tr>" for k, v in info.items()) + "</table>")
        body.setObjectName("aboutVersions")
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(body)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QApplication.clipboard().setText(self.plain_text()))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def plain_text(self) -> str:
        """The versions as lines to paste into a bug report."""
        return "\n".join(f"{k}: {v}" for k, v in self.info.items())


def show_about(w: "MainWindow") -> AboutDialog:
    dialog = AboutDialog(versions(w), w)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
