"""Driving the editor as a user does: real mouse events on the viewport."""
from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.MouseButton.NoButton


def wait_solved(qtbot, window, timeout=10_000):
    """Until the pose shown answers the newest goals posted."""
    qtbot.waitUntil(lambda: window.solver_caught_up() and bool(window.document.reports), timeout=timeout)


def move_with_buttons(widget, pos: QPointF, buttons=LEFT) -> None:
    """A mouse move with buttons held. QTest.mouseMove sends none in Qt 6, so the event is
    built by hand and delivered like one from the window system."""
    ev = QMouseEvent(QEvent.Type.MouseMove, pos, QPointF(widget.mapToGlobal(pos.toPoint())), NONE, buttons,
                     Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, ev)


def drag(widget, start: QPointF, end: QPointF, steps: int = 12, release: bool = True) -> None:
    """Press, move in `steps`, release; each move is applied before the next comes, as with a
    hand on the mouse (the viewport applies a move once the frame of the one before is drawn)."""
    QTest.mouseMove(widget, start.toPoint())
    QTest.mousePress(widget, LEFT, Qt.KeyboardModifier.NoModifier, start.toPoint())
    for i in range(1, steps + 1):
        u = i / steps
        move_with_buttons(widget, QPointF(start.x() + (end.x() - start.x()) * u, start.y() + (end.y() - start.y()) * u))
        QApplication.processEvents()
        deadline = time.perf_counter() + 2.0
        while getattr(widget, "move_pending", False) and time.perf_counter() < deadline:
            time.sleep(0.001)
            QApplication.processEvents()
    if release:
        QTest.mouseRelease(widget, LEFT, Qt.KeyboardModifier.NoModifier, end.toPoint())


def screen(window, xyz) -> QPointF:
    return window.viewport.world_to_screen(np.asarray(xyz, dtype=np.float64))


def camera_state(viewport) -> tuple:
    o = viewport.opts
    c = o["center"]
    return (o["azimuth"], o["elevation"], o["distance"], (c.x(), c.y(), c.z()))


def as_point(p: QPointF) -> QPoint:
    return p.toPoint()
