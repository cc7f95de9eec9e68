"""Help > Keyboard Shortcuts (made from the editor's own actions and navigation presets) and
Help > About rigedit."""
from __future__ import annotations

from importlib import metadata

import numba
import numpy
import PySide6
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtTest import QTest

from rigedit.app import help_menu
from rigedit.app.timeline.plot import COMMAND_KEYS


def _open_shortcuts(window):
    assert window.action_shortcuts in window.help_menu.actions()
    window.action_shortcuts.trigger()
    d = window.shortcuts_dialog
    assert d.isVisible()
    return d


def _rows_with(rows, keys=None, does=None, where=None):
    return [r for r in rows if (keys is None or keys in r[0].split(", ")) and (does is None or does in r[1])
            and (where is None or where in r[2])]


def test_the_help_menu_is_last_with_shortcuts_and_about(window):
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus[-1] == "&Help"
    assert [a.text() for a in window.help_menu.actions()] == ["&Keyboard Shortcuts", "&About rigedit"]


def test_shortcuts_list_the_menus_numpad_views_undo_and_navigation(window):
    rows = _open_shortcuts(window).texts()
    assert _rows_with(rows, "Numpad 1", "Front", "View > Viewpoint")
    assert _rows_with(rows, "Ctrl+Numpad 1", "Back", "View > Viewpoint")
    assert _rows_with(rows, "Numpad 7", "Top") and _rows_with(rows, "Ctrl+Numpad 3", "Left")
    assert _rows_with(rows, "Numpad .", "Frame Selected") or _rows_with(rows, "Numpad Del", "Frame Selected")
    assert _rows_with(rows, "Ctrl+Z", "Undo", "Edit")
    assert _rows_with(rows, "Ctrl+Shift+Z", "Redo", "Edit") or _rows_with(rows, "Ctrl+Y", "Redo", "Edit")
    assert _rows_with(rows, "Ctrl+I", "Import", "File")
    assert _rows_with(rows, "Ctrl+S", "Save", "File")
    assert _rows_with(rows, "Home", "Reset Camera", "View")
    assert _rows_with(rows, "Space", "Play/Pause", "Timeline")
    assert _rows_with(rows, "Esc", "drag", "Viewport")
    assert _rows_with(rows, "middle-drag", "orbit", "Blender") and _rows_with(rows, "Shift+middle-drag", "pan", "Blender")
    assert _rows_with(rows, "Alt+left-drag", "orbit", "Maya") and _rows_with(rows, "Alt+right-drag", "zoom", "Maya")
    assert _rows_with(rows, "F1", "Keyboard Shortcuts", "Help")
    assert not [r for r in rows if r[1] == help_menu.NO_DESCRIPTION]


def test_every_key_the_timeline_handles_itself_is_described(window):
    rows = _open_shortcuts(window).texts()
    timeline = [r for r in rows if r[2].startswith("Timeline (plot")]
    assert len(timeline) == len(COMMAND_KEYS)
    assert all(r[1] != help_menu.NO_DESCRIPTION for r in timeline)


def test_the_list_follows_the_actions_it_is_made_from(window):
    act = QAction("Do a new thing", window)
    act.setShortcut(QKeySequence("Ctrl+Alt+J"))
    window.edit_menu.addAction(act)
    window.action_reset_camera.setShortcut(QKeySequence("Ctrl+Alt+H"))
    rows = _open_shortcuts(window).texts()
    assert _rows_with(rows, "Ctrl+Alt+J", "Do a new thing", "Edit")
    assert _rows_with(rows, "Ctrl+Alt+H", "Reset Camera") and not _rows_with(rows, "Home", "Reset Camera")


def test_f1_opens_the_shortcuts(window, qtbot):
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=3000)
    QTest.keyClick(window, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: getattr(window, "shortcuts_dialog", None) is not None and window.shortcuts_dialog.isVisible(), timeout=3000)


def test_about_gives_the_versions_and_the_renderer(window, qtbot):
    window.action_about.trigger()
    d = window.about_dialog
    assert d.isVisible()
    info = d.info
    assert info["rigedit"] == metadata.version("rigedit")
    assert info["numpy"] == numpy.__version__ and info["numba"] == numba.__version__
    assert info["PySide6"] == PySide6.__version__
    from PySide6 import QtCore

    assert info["Qt"] == QtCore.qVersion()
    assert info["OpenGL renderer"] and not info["OpenGL renderer"].startswith("unknown")
    assert info["OpenGL version"][0].isdigit()
    text = d.plain_text()
    assert f"numba: {numba.__version__}" in text and f"OpenGL renderer: {info['OpenGL renderer']}" in text
    d.close()
    QCoreApplication.processEvents()
