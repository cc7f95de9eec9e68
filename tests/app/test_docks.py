"""The docks come from one list (docks.DOCKS) and are declared parts of the window; a dock
that fails to build stops the window with its name, never a placeholder in its place."""
from __future__ import annotations

import dataclasses
import inspect

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget, QLabel, QListWidget, QMainWindow, QScrollArea, QWidget

from rigedit.app import docks, solver_thread
from rigedit.app.docks import Dock, DockBuildError, DockSpec
from rigedit.app.main_window import MainWindow


def _panels_entry(window, spec: DockSpec):
    entries = [a for a in window.panels_menu.actions() if a.text() == spec.title]
    assert len(entries) == 1, [a.text() for a in window.panels_menu.actions()]
    return entries[0]


def test_every_dock_of_the_list_is_in_the_window_with_its_menu_entry_and_real_content(qtbot, window):
    assert [s.object_name for s in docks.DOCKS][:3] == ["properties", "timeline", "lint"]
    assert [a.text() for a in window.panels_menu.actions()] == [s.title for s in docks.DOCKS]
    for spec in docks.DOCKS:
        dock = window.findChild(QDockWidget, spec.object_name)
        assert dock is not None, spec.object_name
        assert dock is getattr(window, spec.field) and isinstance(dock, Dock)
        assert spec.field in inspect.get_annotations(MainWindow), spec.field  # a declared part
        assert window.dockWidgetArea(dock) == spec.area and dock.windowTitle() == spec.title
        # Real content: the builder's widget, with widgets of its own; no placeholder label.
        assert not isinstance(dock.panel, QLabel) and not isinstance(dock.widget(), QLabel)
        assert len(dock.panel.findChildren(QWidget)) >= 3, spec.object_name
        content = dock.widget().widget() if spec.scroll else dock.widget()
        assert isinstance(dock.widget(), QScrollArea) == spec.scroll and content is dock.panel
        # Its View > Panels entry hides and shows it.
        entry = _panels_entry(window, spec)
        assert entry.isChecked() and dock.isVisible()
        entry.trigger()
        qtbot.waitUntil(lambda: not dock.isVisible())
        assert not entry.isChecked()
        entry.trigger()  # shown again and in front: a dock tabbed behind another is raised
        qtbot.waitUntil(lambda: dock.isVisible() and not dock.visibleRegion().isEmpty())
        if spec.shortcut:
            assert entry.shortcut() == QKeySequence(spec.shortcut)


def test_the_lint_dock_sits_under_the_properties(window):
    props, lint = window.properties, window.lint_dock
    assert lint.geometry().top() >= props.geometry().bottom()
    assert abs(lint.geometry().left() - props.geometry().left()) <= 2


@pytest.mark.parametrize("failing", [s.object_name for s in docks.DOCKS])
def test_a_dock_whose_builder_raises_stops_the_window_with_the_docks_name(qapp, monkeypatch, failing):
    def broken(window):
        raise ZeroDivisionError("a fault in the builder")

    specs = tuple(dataclasses.replace(s, build=broken) if s.object_name == failing else s for s in docks.DOCKS)
    monkeypatch.setattr(docks, "DOCKS", specs)
    threads = set(solver_thread._running)
    spec = next(s for s in specs if s.object_name == failing)
    with pytest.raises(DockBuildError) as caught:
        MainWindow(keep_layout=False)
    assert spec.title in str(caught.value) and repr(failing) in str(caught.value)
    assert "a fault in the builder" in str(caught.value)
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
    assert set(solver_thread._running) == threads  # no solver thread left running


def test_a_builder_that_returns_no_widget_stops_the_window(qapp, monkeypatch):
    specs = tuple(dataclasses.replace(s, build=lambda w: None) if s.object_name == "lint" else s for s in docks.DOCKS)
    monkeypatch.setattr(docks, "DOCKS", specs)
    with pytest.raises(DockBuildError, match="Lint"):
        MainWindow(keep_layout=False)


def test_a_dock_whose_field_is_not_declared_stops_the_window(qapp, monkeypatch):
    extra = DockSpec("notes_dock", "Notes", "notes", Qt.DockWidgetArea.LeftDockWidgetArea, lambda w: QListWidget())
    monkeypatch.setattr(docks, "DOCKS", docks.DOCKS + (extra,))
    with pytest.raises(DockBuildError, match="notes_dock"):
        MainWindow(keep_layout=False)


class NotesWindow(MainWindow):
    notes_dock: Dock  # the declared field a new dock needs


def test_adding_a_dock_is_adding_an_entry(qtbot, monkeypatch):
    """A dock tabbed with the properties, hidden at first, with a Panels shortcut."""
    made = []

    def notes(window):
        made.append(QListWidget())
        made[-1].addItems(["left knee pops at 1.2 s", "try a pole"])
        return made[-1]

    extra = DockSpec("notes_dock", "Notes", "notes", Qt.DockWidgetArea.RightDockWidgetArea, notes,
                     shortcut="Ctrl+Alt+N", tabbed_with="properties", visible=False)
    monkeypatch.setattr(docks, "DOCKS", docks.DOCKS + (extra,))
    window = NotesWindow(keep_layout=False)
    try:
        window.show()
        qtbot.waitExposed(window)
        dock = window.findChild(QDockWidget, "notes")
        assert dock is window.notes_dock and dock.panel is made[0]
        assert not dock.isVisible()
        entry = _panels_entry(window, extra)
        assert entry.shortcut() == QKeySequence("Ctrl+Alt+N")
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=3000)
        QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
        qtbot.waitUntil(dock.isVisible)
        assert dock in window.tabifiedDockWidgets(window.properties)  # shown in its tab
    finally:
        window.document.mark_saved()
        window.close()
    assert not window.solver.is_running()


def test_every_part_of_the_window_is_declared_on_mainwindow(window):
    """Nothing is stuck onto the window from outside: each attribute it holds is a field
    declared in main_window.py (methods and properties aside), and each declared field is set."""
    def held():  # PySide keeps the signals used and its meta-object in the instance too
        return {k for k in vars(window) if not k.startswith("__") and not hasattr(QMainWindow, k)}

    declared = set(inspect.get_annotations(MainWindow))
    assert held() - declared == set()
    assert declared - held() == set()
    window.action_shortcuts.trigger()  # Help entries keep the dialog they opened in their field
    assert held() == declared and window.shortcuts_dialog.isVisible()
    window.shortcuts_dialog.close()
