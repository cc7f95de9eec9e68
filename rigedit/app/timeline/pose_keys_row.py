"""The timeline's pose keys row: a diamond at each pose key time, above the weight curves.

It draws what it is given and reports what the mouse and keys do (the panel's PoseKeys,
pose_keys.py, turns that into pose edits). Times map to x exactly as on the plot under it:
the row asks the plot where a time is, so it follows the plot's pans and zooms.

Mouse: a click on a diamond selects its key (Shift or Ctrl adds or removes it), a drag moves
it (the diamond follows, snapped to frames; the edit is made on release; Esc cancels it), a right-click asks
for its menu, a click elsewhere clears the selection and moves the playhead there.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from rigedit.core.pose_channel import TIME_EPS

ROW_HEIGHT = 20
HALF = 6.0  # a diamond's half width, pixels
PICK_PX = 8.0  # a press this close to a diamond's centre takes it
DRAG_PX = 3  # the mouse must move this far before a press becomes a drag
FILL = {"ease": QColor(236, 178, 60), "linear": QColor(90, 190, 200), "constant": QColor(150, 150, 160)}
TIP = ("Pose keys (◆ ease, teal linear, grey constant): click to select (Shift adds), drag to move,\n"
       "right-click for the interpolation, Delete removes the selected keys, Ctrl+C / Ctrl+V copy\n"
       "them to the playhead. Key a pose with I (viewport or timeline focused) or Key pose.")


class PoseKeysRow(QWidget):
    selection_changed = Signal()
    moved = Signal(float, float)  # a key's time and where it was dropped (snapped)
    menu_requested = Signal(float, QPoint)  # a key's time, where on the screen
    scrub_requested = Signal(float)  # a click off the keys: the playhead goes there

    def __init__(self, time_to_x: Callable[[float], float], x_to_time: Callable[[float], float],
                 snap: Callable[[float], float], parent: QWidget | None = None) -> None:
        """`time_to_x` / `x_to_time`: this row's x for a time and back (the plot's mapping);
        `snap`: a time to its frame."""
        super().__init__(parent)
        self.setObjectName("poseKeys")
        self.setFixedHeight(ROW_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setToolTip(TIP)
        self._to_x, self._to_time, self._snap = time_to_x, x_to_time, snap
        self.keys: list[tuple[float, str]] = []  # (time, interpolation of the segment leaving it)
        self.selected: set[float] = set()
        self.view_left = 0.0  # where the plot's view starts in this row (the axis is left of it)
        self._press: tuple[float, QPointF] | None = None  # the key pressed and where
        self._drag_to: float | None = None  # the dragged key's snapped time while dragging

    # --- what is shown ---------------------------------------------------------------------

    def set_keys(self, keys: list[tuple[float, str]]) -> None:
        self.keys = list(keys)
        kept = {t for t in self.selected if self.key_at_time(t) is not None}
        changed = kept != self.selected
        self.selected = kept
        self.update()
        if changed:
            self.selection_changed.emit()

    def key_at_time(self, time: float) -> float | None:
        return next((t for t, _ in self.keys if abs(t - time) <= TIME_EPS), None)

    def key_x(self, time: float) -> float:
        """Where the diamond of the key at `time` is drawn (for tests and tooltips)."""
        return self._to_x(time)

    def select(self, times, add: bool = False) -> None:
        new = (set(self.selected) if add else set()) | {t for t in times if self.key_at_time(t) is not None}
        if new != self.selected:
            self.selected = new
            self.update()
            self.selection_changed.emit()

    def _key_near(self, x: float) -> float | None:
        best = min(self.keys, key=lambda k: abs(self._to_x(k[0]) - x), default=None)
        return best[0] if best is not None and abs(self._to_x(best[0]) - x) <= PICK_PX else None

    # --- painting --------------------------------------------------------------------------

    def paintEvent(self, ev) -> None:  # noqa: N802 (Qt's name)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        mid = self.height() / 2.0
        p.setPen(QColor(150, 152, 160))
        p.drawText(QRectF(0, 0, max(self.view_left - 4, 0), self.height()),
                   Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, "pose")
        p.setPen(QPen(QColor(110, 112, 120, 120), 1))
        p.drawLine(QPointF(self.view_left, mid), QPointF(self.width(), mid))
        p.setClipRect(QRectF(self.view_left, 0, self.width() - self.view_left, self.height()))
        dragged = self._press[0] if self._drag_to is not None else None
        for t, interp in self.keys:
            chosen = t in self.selected
            x = self._to_x(self._drag_to if t == dragged else t)
            self._diamond(p, x, mid, FILL.get(interp, FILL["ease"]), chosen)
        p.end()

    def _diamond(self, p: QPainter, x: float, y: float, fill: QColor, chosen: bool) -> None:
        h = HALF + (2 if chosen else 0)
        path = QPainterPath()
        path.addPolygon(QPolygonF([QPointF(x, y - h), QPointF(x + h, y), QPointF(x, y + h), QPointF(x - h, y),
                                   QPointF(x, y - h)]))
        p.setPen(QPen(QColor(240, 110, 20) if chosen else QColor(20, 20, 24), 2 if chosen else 1))
        p.setBrush(QColor(255, 255, 255) if chosen else fill)
        p.drawPath(path)

    # --- the mouse -------------------------------------------------------------------------

    def mousePressEvent(self, ev) -> None:  # noqa: N802
        x = ev.position().x()
        key = self._key_near(x)
        if ev.button() == Qt.MouseButton.RightButton and key is not None:
            if key not in self.selected:
                self.select([key])
            self.menu_requested.emit(key, ev.globalPosition().toPoint())
            ev.accept()
            return
        if ev.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(ev)
            return
        ev.accept()
        adding = bool(ev.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier))
        if key is None:
            if not adding:
                self.select([])
                self.scrub_requested.emit(self._to_time(x))
            return
        if adding and key in self.selected:
            self.selected.discard(key)
            self.update()
            self.selection_changed.emit()
            return
        if key not in self.selected:
            self.select([key], add=adding)
        self._press = (key, ev.position())

    def mouseMoveEvent(self, ev) -> None:  # noqa: N802
        if self._press is None or not ev.buttons() & Qt.MouseButton.LeftButton:
            return
        key, at = self._press
        if self._drag_to is None and abs(ev.position().x() - at.x()) < DRAG_PX:
            return
        self._drag_to = self._snap(key + self._to_time(ev.position().x()) - self._to_time(at.x()))
        self.update()

    def keyPressEvent(self, ev) -> None:  # noqa: N802
        if ev.key() == Qt.Key.Key_Escape and self._press is not None:
            self._press = self._drag_to = None  # the drag ends where it began: nothing moves
            self.update()
            ev.accept()
            return
        super().keyPressEvent(ev)

    def mouseReleaseEvent(self, ev) -> None:  # noqa: N802
        press, to = self._press, self._drag_to
        self._press = self._drag_to = None
        if press is not None and to is not None:
            self.update()
            if abs(to - press[0]) > TIME_EPS:
                self.moved.emit(press[0], to)
