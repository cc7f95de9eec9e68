"""Lint findings on the timeline: a bar per finding in a lane above the weight band, coloured
by severity, and a faint tint of the same colour over its frames below it.

Hovering a bar says what it is (every finding under the pointer); a left click on a bar asks
for that finding (`on_click(index)`: the panel selects it, the time jumps to its first frame).
Only clicks are taken: a drag that starts on a bar scrubs as anywhere else on the plot, and
the tint takes no mouse at all, so the timeline's scrub and key drags work as without marks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen

from ..lint_state import SEVERITY_RANK, SEVERITY_RGB

LANE = (1.1, 1.26)  # the bars' band, in weight units (the plot's y)
TINT_BOTTOM = -0.25  # the tint reaches the plot's bottom edge
MIN_WIDTH_PX = 5  # a one-frame finding on a long clip stays a bar to see and click
TINT_ALPHA = 38


@dataclass(frozen=True)
class Mark:
    start: float  # seconds: the first frame's time less half a frame
    end: float  # the last frame's time plus half a frame
    severity: str
    text: str  # the hover text


class _Spans(pg.GraphicsObject):
    """Rectangles over marks' time spans between two heights, at least MIN_WIDTH_PX wide."""

    def __init__(self, bottom: float, top: float) -> None:
        super().__init__()
        self.bottom, self.top = bottom, top
        self.marks: list[Mark] = []
        self.selected = -1

    def set_marks(self, marks: list[Mark], selected: int) -> None:
        self.prepareGeometryChange()
        self.marks, self.selected = list(marks), selected
        self.update()

    def rects(self) -> list[QRectF]:
        px = self.pixelWidth() or 0.0  # seconds per pixel (0 before the view is laid out)
        out = []
        for m in self.marks:
            width = max(m.end - m.start, MIN_WIDTH_PX * px)
            mid = 0.5 * (m.start + m.end)
            out.append(QRectF(mid - 0.5 * width, self.bottom, width, self.top - self.bottom))
        return out

    def viewTransformChanged(self) -> None:  # noqa: N802 (pyqtgraph's name): a zoom changes the minimum width
        self.prepareGeometryChange()
        super().viewTransformChanged()

    def boundingRect(self) -> QRectF:  # noqa: N802
        r = QRectF()
        for rect in self.rects():
            r = r.united(rect)
        return r

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        for rect in self.rects():
            path.addRect(rect)
        return path

    def painting_order(self) -> list[int]:
        """Info under warnings under errors; the selected one last (on top)."""
        return sorted(range(len(self.marks)), key=lambda i: (i == self.selected, SEVERITY_RANK[self.marks[i].severity]))


class LintTint(_Spans):
    """The faint colour over a finding's frames, under the curves; no mouse."""

    def __init__(self) -> None:
        super().__init__(TINT_BOTTOM, LANE[0])
        self.setZValue(1)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def paint(self, p, *args) -> None:
        rects = self.rects()
        p.setPen(Qt.PenStyle.NoPen)
        for i in self.painting_order():
            p.setBrush(QBrush(QColor(*SEVERITY_RGB[self.marks[i].severity], TINT_ALPHA)))
            p.drawRect(rects[i])


class LintMarks(_Spans):
    """The bars in the lint lane: hover tells, a click selects."""

    def __init__(self, on_click: Callable[[int], None]) -> None:
        super().__init__(*LANE)
        self._on_click = on_click
        self.setZValue(25)  # over the curves and keys, under the playhead
        self.setAcceptHoverEvents(True)

    def paint(self, p, *args) -> None:
        rects = self.rects()
        for i in self.painting_order():
            chosen = i == self.selected
            rgb = SEVERITY_RGB[self.marks[i].severity]
            pen = QPen(QColor(255, 255, 255) if chosen else QColor(*rgb).darker(160), 2.5 if chosen else 1.0)
            pen.setCosmetic(True)
            p.setPen(pen)
            p.setBrush(QBrush(QColor(*rgb)))
            p.drawRect(rects[i])

    def indices_at(self, pos: QPointF) -> list[int]:
        """The marks under `pos` (item coordinates), the one a click picks first: the most
        severe, then the shortest (a short finding inside a long one can still be clicked)."""
        hits = [i for i, r in enumerate(self.rects()) if r.contains(pos)]
        return sorted(hits, key=lambda i: (-SEVERITY_RANK[self.marks[i].severity], self.marks[i].end - self.marks[i].start))

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph's name)
        hits = self.indices_at(ev.pos())
        if ev.button() != Qt.MouseButton.LeftButton or ev.double() or not hits:
            ev.ignore()  # the view scrubs (pyqtgraph also offers clicks a few pixels off an item)
            return
        ev.accept()
        self._on_click(hits[0])

    def hoverEvent(self, ev) -> None:  # noqa: N802
        hits = [] if ev.isExit() else self.indices_at(ev.pos())
        self.setToolTip("\n".join(self.marks[i].text for i in hits))
