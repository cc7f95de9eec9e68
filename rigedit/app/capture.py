"""Screenshots of the editor, a check that the viewport is not blank, and the scripted demo drag."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QImage, QMouseEvent, QPainter
from PySide6.QtWidgets import QApplication

# A drawn rig (shaded bones, anti-aliased lines, the grid) gives hundreds of colours; a blank
# or cleared GL widget gives one or two. 64 sits far from both.
MIN_COLOURS = 64


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Run the event loop until predicate() holds or timeout seconds pass."""
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        QApplication.processEvents()
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


def pump(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        QApplication.processEvents()
        time.sleep(0.005)


def image_array(img: QImage) -> np.ndarray:
    """(h, w, 3) uint8 RGB copy of a QImage."""
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    h, w, bpl = img.height(), img.width(), img.bytesPerLine()
    buf = np.frombuffer(img.constBits(), dtype=np.uint8, count=h * bpl).reshape(h, bpl)
    return buf[:, : w * 3].reshape(h, w, 3).copy()


def distinct_colours(img: QImage, rect: QRect | None = None) -> int:
    a = image_array(img)
    if rect is not None:
        a = a[rect.top(): rect.bottom() + 1, rect.left(): rect.right() + 1]
    flat = a.reshape(-1, 3).astype(np.uint32)
    return int(len(np.unique((flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2])))


def viewport_rect(window) -> QRect:
    """The viewport's rectangle in window.grab() pixels (device pixels)."""
    vp = window.viewport
    top_left = vp.mapTo(window, QPoint(0, 0))
    dpr = window.devicePixelRatioF()
    return QRect(int(top_left.x() * dpr), int(top_left.y() * dpr), int(vp.width() * dpr), int(vp.height() * dpr))


def wait_for_pose(window, timeout: float = 15.0) -> bool:
    """Until the solver has answered the newest goals and the viewport has drawn it."""
    # A rig without chains (a clip player) is answered with a pose and no chain reports.
    if not wait_until(lambda: window.solver_caught_up() and (window.document.reports or not window.rig.chain_names),
                      timeout):
        return False
    frames = window.viewport.frames
    window.viewport.update()
    # The chain readout trails solves by up to 66 ms (status.py): bring it up to date, or a
    # screenshot taken now says "solving…" under a solved pose.
    window.status.refresh_chain()
    return wait_until(lambda: window.viewport.frames > frames, timeout)


def grab_window(window) -> QImage:
    """The whole window as the screen shows it. The viewport is a native GL window that
    QWidget.grab() leaves blank, so its own image is painted into its rectangle."""
    img = window.grab().toImage()
    scene = window.viewport.grab_image()
    if not scene.isNull():
        scene.setDevicePixelRatio(1.0)  # both in device pixels from here on
        img.setDevicePixelRatio(1.0)
        painter = QPainter(img)
        painter.drawImage(viewport_rect(window).topLeft(), scene)
        painter.end()
        img.setDevicePixelRatio(window.devicePixelRatioF())
    return img


def grab(window, out: str | Path) -> tuple[Path, int]:
    """Save a PNG of the whole window; returns the path and the viewport's colour count."""
    img = grab_window(window)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not img.save(str(out)):
        raise OSError(f"cannot write {out}")
    return out, distinct_colours(img, viewport_rect(window))


def send_mouse(widget, kind: QEvent.Type, pos: QPointF, button: Qt.MouseButton, buttons: Qt.MouseButton) -> None:
    """A real mouse event, with the held buttons set (QTest.mouseMove leaves them empty in Qt 6).
    `widget` is a QWidget or a QWindow (the viewport is a window)."""
    global_pos = QPointF(widget.mapToGlobal(pos.toPoint()))
    ev = QMouseEvent(kind, pos, global_pos, button, buttons, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, ev)


def drag_handle(window, start: QPointF, end: QPointF, seconds: float = 1.0, steps: int = 60) -> None:
    """Press at start, move to end over `seconds`, release: what a hand on the mouse does."""
    vp = window.viewport
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    send_mouse(vp, QEvent.Type.MouseMove, start, none, none)
    send_mouse(vp, QEvent.Type.MouseButtonPress, start, left, left)
    t0 = time.perf_counter()
    for i in range(1, steps + 1):
        u = i / steps
        # Ease in and out, as a hand does.
        s = u * u * (3 - 2 * u)
        p = QPointF(start.x() + (end.x() - start.x()) * s, start.y() + (end.y() - start.y()) * s)
        send_mouse(vp, QEvent.Type.MouseMove, p, none, left)
        while time.perf_counter() - t0 < seconds * u:
            QApplication.processEvents()
            time.sleep(0.002)
    send_mouse(vp, QEvent.Type.MouseButtonRelease, end, left, none)
