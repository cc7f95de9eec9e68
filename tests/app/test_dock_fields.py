"""The property dock as a user types in it: Ctrl+Z while the cursor is still in a field commits
the field and undoes it; and the dock fits a 1280x800 window on every bundled rig."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QWidget

from .helpers import wait_solved

CTRL = Qt.KeyboardModifier.ControlModifier
PRESETS = sorted((Path(__file__).resolve().parents[2] / "resources" / "presets").glob("*.json"))


def activate(qtbot, window) -> None:
    """Shortcuts need the window active (a click does that under a window manager)."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)


def type_into(qtbot, field, text: str) -> None:
    """Click into the field, select what it shows and type over it (no Enter, no Tab)."""
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=2000)
    QTest.keyClick(field, Qt.Key.Key_A, CTRL)
    QTest.keyClicks(field, text)


def test_ctrl_z_in_a_number_field_commits_it_and_undoes_it(qtbot, window):
    activate(qtbot, window)
    window.document.select("left_arm")
    tol = window.properties.panel.tolerance
    before = window.rig.chain("left_arm").tolerance
    type_into(qtbot, tol, "5")
    assert window.rig.chain("left_arm").tolerance == before  # typing alone applies nothing yet
    QTest.keyClick(tol, Qt.Key.Key_Z, CTRL)
    assert window.undo_stack.count() == 1 and window.undo_stack.index() == 0  # committed, then undone
    assert window.rig.chain("left_arm").tolerance == before
    assert tol.value() == pytest.approx(before * 1000.0)  # the field shows the undone value
    assert window.undo_stack.undoText() == "" and "tolerance" in window.undo_stack.redoText().lower()
    # Ctrl+Shift+Z in the field redoes it.
    QTest.keyClick(tol, Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert window.rig.chain("left_arm").tolerance == pytest.approx(0.005)


def test_ctrl_z_in_a_field_with_nothing_typed_undoes_the_last_edit(qtbot, window):
    activate(qtbot, window)
    window.document.select("left_arm")
    p = window.properties.panel
    p.weight.spin.setValue(0.4)
    assert window.undo_stack.count() == 1
    type_into(qtbot, p.tolerance, "")  # focused, text selected, nothing changed
    QTest.keyClick(p.tolerance, Qt.Key.Key_Z, CTRL)
    assert window.rig.chain("left_arm").weight == 1.0 and window.undo_stack.index() == 0


def test_ctrl_z_in_a_joint_limit_cell(qtbot, window):
    activate(qtbot, window)
    window.document.select("left_arm")
    table = window.properties.panel.limits
    elbow = window.rig.chain("left_arm").joints[1]
    before = dict(window.rig.chain("left_arm").limits)
    row = [table.item(r, 0).text() for r in range(table.rowCount())].index(elbow)
    cell = table.cellWidget(row, 6)
    assert isinstance(cell, QDoubleSpinBox) and cell.isEnabled()
    type_into(qtbot, cell, "95")
    QTest.keyClick(cell, Qt.Key.Key_Z, CTRL)
    assert window.undo_stack.count() == 1 and window.undo_stack.index() == 0
    assert dict(window.rig.chain("left_arm").limits) == before


def test_ctrl_z_in_a_text_field(qtbot, make_window):
    window = make_window()
    activate(qtbot, window)
    assert window.open_preset(PRESETS[[p.stem for p in PRESETS].index("look_at")])
    window.undo_stack.clear()
    window.document.select("look")
    field = window.properties.panel.uses.look_weights
    before = window.rig.chain("look").look_at
    text = field.text()
    type_into(qtbot, field, "0.5, 0.5")
    QTest.keyClick(field, Qt.Key.Key_Z, CTRL)
    assert window.undo_stack.count() == 1 and window.undo_stack.index() == 0
    assert field.text() == text and window.rig.chain("look").look_at == before
    assert "weights" in window.undo_stack.redoText().lower()


def visible_in_dock(dock, widget: QWidget) -> bool:
    """The widget's whole width lies inside the dock's scroll area viewport."""
    scroll = dock.widget()
    view = scroll.viewport()
    left = widget.mapTo(view, QPoint(0, 0)).x()
    return left >= 0 and left + widget.width() <= view.width()


def nudge_and_settle(qtbot, window, name: str) -> None:
    """Move the chain's target a little (the solve iterates), then solve again where it is (no
    iteration: the error plot says it shows the solve before), as after a drag."""
    t = np.asarray(window.rig.chain(name).target, dtype=float)
    window.document.set_chain_live(name, target=tuple(t + [0.03, -0.02, 0.02]))
    wait_solved(qtbot, window)
    window.post_goals()
    wait_solved(qtbot, window)
    window.properties.panel._show_errors()  # what its timer does a moment later
    qtbot.wait(30)  # the layout settles


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.stem)
def test_the_dock_fits_at_1280x800_without_sideways_scrolling(qtbot, make_window, preset):
    window = make_window(size=(1280, 800))
    assert window.open_preset(preset)
    wait_solved(qtbot, window)
    dock, p = window.properties, window.properties.panel
    for name in window.rig.chain_names:
        window.document.select(name)
        nudge_and_settle(qtbot, window, name)
        scroll = dock.widget()
        assert scroll.horizontalScrollBar().maximum() == 0, (preset.stem, name)
        assert not scroll.horizontalScrollBar().isVisible(), (preset.stem, name)
        assert p.limits.horizontalScrollBar().maximum() == 0, (preset.stem, name)
        assert visible_in_dock(dock, p.weight.spin), (preset.stem, name)
        # The limits table's last column (Max) is inside the table and the table inside the dock.
        hdr = p.limits.horizontalHeader()
        last = p.limits.columnCount() - 1
        assert hdr.sectionViewportPosition(last) + hdr.sectionSize(last) <= p.limits.viewport().width(), (preset.stem, name)
        assert visible_in_dock(dock, p.limits), (preset.stem, name)
