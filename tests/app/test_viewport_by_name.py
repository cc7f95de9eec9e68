"""The viewport found by its objectName, as a script that knows only the automation surface
would find it: mouse and key events sent to that widget drive the view like the view itself
(the GL window lives inside it as a native child, which events for the widget never reach
on their own)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget

from .helpers import drag, screen, wait_solved

ARM = "left_arm"


def test_a_drag_sent_to_the_widget_named_viewport_moves_the_target(qtbot, window):
    widget = window.findChild(QWidget, "viewport")
    assert widget is not None
    before = np.asarray(window.rig.chain(ARM).target).copy()
    start = screen(window, before)
    end = QPointF(start.x() + 50, start.y() - 70)
    drag(widget, start, end)
    after = np.asarray(window.rig.chain(ARM).target)
    assert np.linalg.norm(after - before) > 0.05
    landed = screen(window, after)
    assert abs(landed.x() - end.x()) < 1.0 and abs(landed.y() - end.y()) < 1.0
    assert window.undo_stack.count() == 1
    wait_solved(qtbot, window)


def test_escape_sent_to_the_widget_named_viewport_cancels_a_drag(qtbot, window):
    widget = window.findChild(QWidget, "viewport")
    before = np.asarray(window.rig.chain(ARM).target).copy()
    start = screen(window, before)
    drag(widget, start, QPointF(start.x() + 40, start.y() + 30), steps=5, release=False)
    assert np.linalg.norm(np.asarray(window.rig.chain(ARM).target) - before) > 0.01
    QTest.keyClick(widget, Qt.Key.Key_Escape)
    np.testing.assert_array_equal(window.rig.chain(ARM).target, before)
    QTest.mouseRelease(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start.toPoint())
    assert window.undo_stack.count() == 0
