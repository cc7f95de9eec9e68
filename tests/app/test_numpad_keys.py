"""Numpad 1 / 3 / 7 / period in the focused viewport, Num Lock on and off (issue 25): Qt sends
Key_1 with KeypadModifier, or Key_End (PageDown, Home, Delete) with KeypadModifier when Num
Lock is off. Real X key presses (x_keyboard.py) and QTest key clicks on the focused GL window."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest

from . import x_keyboard as xk
from .helpers import camera_state

M = Qt.KeyboardModifier
K = Qt.Key
# (keysym, Ctrl held, the camera's view direction): the rig faces +Z (test_navigation.py).
REAL_KEYS = [
    (xk.KP_END, False, (0, 0, -1)),  # numpad 1: front
    (xk.KP_NEXT, False, (-1, 0, 0)),  # numpad 3: right
    (xk.KP_HOME, False, (0, -1, 0)),  # numpad 7: top
    (xk.KP_END, True, (0, 0, 1)),  # Ctrl+numpad 1: back
    (xk.KP_NEXT, True, (1, 0, 0)),  # Ctrl+numpad 3: left
    (xk.KP_HOME, True, (0, 1, 0)),  # Ctrl+numpad 7: bottom
]


class KeysSeen(QObject):
    """The keys Qt made of the presses that reached the viewport."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[tuple[int, bool]] = []

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802
        if ev.type() == QEvent.Type.KeyPress:
            self.keys.append((ev.key(), bool(ev.modifiers() & M.KeypadModifier)))
        return False


def facing(qtbot, vp, forward) -> None:
    qtbot.waitUntil(lambda: np.allclose(vp.camera_forward(), forward, atol=1e-6), timeout=3000)


def focus_by_click(qtbot, x, vp) -> None:
    """A real click on an empty corner of the view: focus goes where a user clicks."""
    corner = vp.container.mapToGlobal(QPoint(40, 40))
    assert vp.handle_at(QPointF(40, 40)) is None  # test_navigation.empty_spot
    x.click(corner.x(), corner.y())
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is vp, timeout=3000)


def framed_by_numpad_period(qtbot, window, press) -> None:
    """`press` frames the selected arm: the camera is where Frame Selected puts it."""
    vp = window.viewport
    window.document.select("left_arm")
    vp.reset_camera()
    before = camera_state(vp)
    press()
    qtbot.waitUntil(lambda: camera_state(vp) != before, timeout=3000)
    pressed = camera_state(vp)
    vp.frame_selected()
    again = camera_state(vp)
    assert again[:3] == pytest.approx(pressed[:3]) and again[3] == pytest.approx(pressed[3])
    window.document.select("")


def test_real_numpad_keys_turn_the_focused_viewport_num_lock_on_and_off(qtbot, window):
    x = xk.x_input()
    vp = window.viewport
    seen = KeysSeen()
    vp.installEventFilter(seen)
    focus_by_click(qtbot, x, vp)
    toggled = False
    try:
        for lock in range(2):
            if lock:
                x.key(xk.NUM_LOCK)
                toggled = True
            for keysym, ctrl, forward in REAL_KEYS:
                x.key(keysym, *([xk.CONTROL_L] if ctrl else []))
                facing(qtbot, vp, forward)
            framed_by_numpad_period(qtbot, window, lambda: x.key(xk.KP_DELETE))
    finally:
        if toggled:
            x.key(xk.NUM_LOCK)  # the X server's Num Lock as it was
        x.close()
    # Both Num Lock states were seen: the digits and the cursor keys, each from the keypad.
    assert {(K.Key_1, True), (K.Key_End, True)} <= set(seen.keys), seen.keys


@pytest.mark.parametrize("num_lock", ["on", "off"])
def test_numpad_key_clicks_on_the_focused_viewport(qtbot, window, num_lock):
    vp = window.viewport
    vp.requestActivate()
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is vp, timeout=3000)
    keys = {"on": {"1": K.Key_1, "3": K.Key_3, "7": K.Key_7, ".": K.Key_Period},
            "off": {"1": K.Key_End, "3": K.Key_PageDown, "7": K.Key_Home, ".": K.Key_Delete}}[num_lock]
    for keysym, ctrl, forward in REAL_KEYS:
        digit = {xk.KP_END: "1", xk.KP_NEXT: "3", xk.KP_HOME: "7"}[keysym]
        QTest.keyClick(vp, keys[digit], M.KeypadModifier | (M.ControlModifier if ctrl else M.NoModifier))
        facing(qtbot, vp, forward)
    distance = vp.opts["distance"]
    QTest.keyClick(vp, K.Key_PageDown, M.KeypadModifier)  # pyqtgraph's PageDown zooms; numpad 3 does not
    assert vp.opts["distance"] == distance
    framed_by_numpad_period(qtbot, window, lambda: QTest.keyClick(vp, keys["."], M.KeypadModifier))
