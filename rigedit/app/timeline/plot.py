"""The timeline's plot: time across, blend weight up.

It draws what it is given and reports what the mouse does; it never edits a timeline itself
(the panel in timeline_dock.py turns its signals into undo commands). Every chain's weight
curve is drawn, the selected one in its viewport colour and the rest faint; the selected
chain's keys are points to click, drag and right-click, and its target and pole keys are
marks in two lanes under the weight axis. Lint findings are bars in a lane above it, by
severity (lint_marks.py; a click on one selects it). The playhead is a movable vertical line.

The mouse works as in Blender's and Maya's time lines: a left click or drag anywhere over the
plot or the time axis scrubs the playhead there (a press on a key drags the key instead, a
click on a lint bar goes to its finding); the
middle button, or Shift with the left, pans; the wheel zooms about the pointer. With the plot
focused, Home and End go to the first and last frame, Left and Right step one.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, Signal

from rigedit.core.curve import Curve

from ..viewport.palette import chain_colour, dimmed
from .lint_marks import LANE, LintMarks, LintTint, Mark

# Below the 0..1 weight band: a lane that marks the selected chain's target and pole keys;
# above it, the lint lane (lint_marks.py).
KEY_LANE = -0.14
Y_RANGE = (-0.25, LANE[1] + 0.03)

# A symbol per interpolation, so the shape of the segment leaving a key reads at a glance.
SYMBOLS = {"ease": "o", "linear": "d", "constant": "s"}
KEY_SIZE = 11
SELECTED_KEY_SIZE = 15
SAMPLES = 600  # per curve across the visible range: smooth at any dock width


def rgb255(c, alpha: float = 1.0) -> tuple[int, int, int, int]:
    return tuple(int(round(255 * v)) for v in c[:3]) + (int(round(255 * alpha)),)


class KeyPoints(pg.ScatterPlotItem):
    """The selected chain's weight keys. Left-drag moves one, left-click selects it,
    right-click asks for its menu; a press that misses every key falls through to the view."""

    def __init__(self, plot: "TimelinePlot") -> None:
        super().__init__(pxMode=True)
        self._plot = plot
        self._dragging: int | None = None
        self.setZValue(20)

    def _index_at(self, pos: QPointF) -> int | None:
        pts = self.pointsAt(pos)
        return int(pts[0].index()) if len(pts) else None

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (Qt's name)
        index = self._index_at(ev.pos())
        if index is None:
            ev.ignore()
            return
        ev.accept()
        self._plot.key_clicked.emit(index)
        if ev.button() == Qt.MouseButton.RightButton:
            self._plot.key_menu_requested.emit(index, ev.screenPos().toPoint())

    def mouseDragEvent(self, ev) -> None:  # noqa: N802
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            self._dragging = self._index_at(ev.buttonDownPos())
            if self._dragging is None:
                ev.ignore()  # not on a key: let the view pan
                return
            self._plot.key_drag_started.emit(self._dragging)
        elif self._dragging is None:
            ev.ignore()
            return
        ev.accept()
        p = ev.pos()
        finished = ev.isFinish()
        index = self._dragging
        if finished:
            self._dragging = None
        self._plot.key_dragged.emit(index, float(p.x()), float(p.y()), finished)


class ScrubViewBox(pg.ViewBox):
    """The plot's view box: a left press or drag scrubs, the middle button (or Shift+left) pans.

    Time-axis drags and clicks come here too (pyqtgraph's axis hands them to its linked view,
    in the axis' own coordinates: positions are read from the scene)."""

    def __init__(self, plot: "TimelinePlot") -> None:
        super().__init__(enableMenu=False)
        self._plot = plot
        self._scrubbing = False

    def _scrub_at(self, scene_pos) -> None:
        self._plot.playhead_moved.emit(float(self.mapSceneToView(scene_pos).x()))

    @staticmethod
    def _pans(ev) -> bool:
        return ev.button() == Qt.MouseButton.MiddleButton or bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)

    def mouseDragEvent(self, ev, axis=None) -> None:  # noqa: N802 (Qt's name)
        left = ev.button() == Qt.MouseButton.LeftButton
        if left and (self._scrubbing or (axis != 1 and not self._pans(ev))):
            ev.accept()
            if ev.isStart():
                self._scrubbing = True
                self._scrub_at(ev.buttonDownScenePos())
            self._scrub_at(ev.scenePos())
            if ev.isFinish():
                self._scrubbing = False
            return
        if left and axis == 1:
            ev.ignore()  # the weight axis: nothing to scrub or pan there
            return
        # Middle (or Shift+left) pans in time; right zooms, as pyqtgraph's view always did.
        super().mouseDragEvent(ev, axis=axis)

    def mouseClickEvent(self, ev) -> None:  # noqa: N802
        # Not accepted: the plot's scene handler still sees the click (double-click adds a key,
        # a click deselects the key).
        if ev.button() == Qt.MouseButton.LeftButton and not ev.double() and not self._pans(ev):
            if self.sceneBoundingRect().contains(ev.scenePos()) or self._plot.over_time_axis(ev.scenePos()):
                self._scrub_at(ev.scenePos())


# Keys the panel acts on while the plot has focus. Caught here because the view underneath
# (a scroll area) would otherwise take the arrows to scroll, and the window's shortcuts Home
# (the viewport's Reset Camera) and Space.
COMMAND_KEYS = tuple(k.value for k in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End,
                                        Qt.Key.Key_Delete, Qt.Key.Key_Backspace, Qt.Key.Key_Space))


def key_code(key) -> int:
    """QKeyEvent.key() as a plain int (PySide6 hands back an int or a Qt.Key)."""
    return key.value if hasattr(key, "value") else int(key)


class TimelinePlot(pg.PlotWidget):
    key_clicked = Signal(int)
    key_drag_started = Signal(int)
    key_dragged = Signal(int, float, float, bool)  # index, time, weight (raw), finished
    key_menu_requested = Signal(int, object)  # index, QPoint on screen
    add_requested = Signal(float, float)  # time, weight (raw): a double-click
    playhead_moved = Signal(float)  # raw time: the playhead is being dragged
    key_command = Signal(int)  # a Qt.Key the timeline acts on (see COMMAND_KEYS)
    background_clicked = Signal()
    finding_clicked = Signal(int)  # a lint mark was clicked: the finding's index

    def __init__(self, parent=None) -> None:
        super().__init__(parent, background=None, viewBox=ScrubViewBox(self))
        self.setObjectName("timelinePlot")
        item = self.getPlotItem()
        item.setMenuEnabled(False)
        item.hideButtons()
        item.showGrid(x=True, y=True, alpha=0.18)
        item.setLabel("bottom", "time", units="s")
        item.setLabel("left", "weight")
        # The lane under the weight band is labelled on the axis, clear of the marks in it.
        item.getAxis("left").setTicks([[(0.0, "0"), (0.5, "0.5"), (1.0, "1"), (KEY_LANE, "▲▼"), (0.5 * sum(LANE), "lint")],
                                       [(0.25, ""), (0.75, "")]])
        self.vb = item.getViewBox()
        self.vb.setMouseEnabled(x=True, y=False)
        self.vb.setYRange(*Y_RANGE, padding=0)
        self.setMinimumHeight(150)

        self._curves: dict = {}  # one item a lane: a keyed or selected chain's name, or ("flat", weight)
        self.lane_of: dict = {}  # chain name -> the lane that draws its curve
        self._drawn: dict = {}  # how each lane's unkeyed curve was last drawn
        self.keys = KeyPoints(self)
        self.addItem(self.keys)
        self.target_marks = pg.ScatterPlotItem(symbol="t1", size=9, pxMode=True)
        self.pole_marks = pg.ScatterPlotItem(symbol="t", size=9, pxMode=True)
        for marks, what in ((self.target_marks, "target"), (self.pole_marks, "pole")):
            marks.setToolTip(f"{what} keys of the selected chain (▲ target, ▼ pole)")
            marks.setZValue(15)
            self.addItem(marks)
        self.lint_tint = LintTint()
        self.lint_marks = LintMarks(self.finding_clicked.emit)
        for marks in (self.lint_tint, self.lint_marks):
            self.addItem(marks)
        self._bounds = [pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen((110, 112, 120, 170), style=Qt.PenStyle.DashLine))
                        for _ in range(2)]
        for line in self._bounds:
            self.addItem(line)
        self.playhead = pg.InfiniteLine(
            pos=0.0, angle=90, movable=True,
            pen=pg.mkPen((240, 110, 20), width=2), hoverPen=pg.mkPen((255, 150, 60), width=4),
        )
        self.playhead.setZValue(30)
        self.playhead.sigDragged.connect(lambda line: self.playhead_moved.emit(float(line.value())))
        self.addItem(self.playhead)
        self.scene().sigMouseClicked.connect(self._scene_clicked)
        self._range = (0.0, 1.0)

    # --- drawing -------------------------------------------------------------------------

    def set_range(self, start: float, end: float) -> None:
        """Show [start, end] with a little room either side, and mark its ends."""
        if (start, end) != self._range:
            self._range = (start, end)
            pad = 0.04 * (end - start)
            self.vb.setLimits(xMin=start - 0.5 * (end - start), xMax=end + 0.5 * (end - start))
            self.vb.setXRange(start - pad, end + pad, padding=0)
        for line, x in zip(self._bounds, (start, end)):
            line.setValue(x)

    def set_playhead(self, time: float) -> None:
        if self.playhead.value() != time:
            self.playhead.blockSignals(True)
            self.playhead.setValue(time)
            self.playhead.blockSignals(False)

    def show_curves(self, curves: dict[str, tuple[Curve, float]], order: list[str], selected: str) -> None:
        """Draw each chain's weight curve (a flat dashed line at its own weight when unkeyed).

        Unkeyed chains at the same weight share one flat line, in the colour of the last of
        them in order (the one that lay on top when each had its own): they would be drawn
        over each other anyway, and a 500-limb import is then a few items, not 500."""
        place = {n: i for i, n in enumerate(order)}
        lanes: dict = {}
        for name, (curve, own_weight) in curves.items():
            lane = name if len(curve) or name == selected else ("flat", float(own_weight))
            lanes.setdefault(lane, []).append(name)
        for lane in list(self._curves):
            if lane not in lanes:
                self.vb.removeItem(self._curves.pop(lane))
                self._drawn.pop(lane, None)
        self.lane_of = {n: lane for lane, names in lanes.items() for n in names}
        lo, hi = self._range
        span = hi - lo
        grid = np.linspace(lo - 0.5 * span, hi + 0.5 * span, SAMPLES)
        for lane, names in lanes.items():
            name = max(names, key=lambda n: place.get(n, 0))
            curve, own_weight = curves[name]
            item = self._curves.get(lane)
            if item is None:
                item = self._curves[lane] = pg.PlotDataItem()
                # Onto the view box itself: PlotItem.addItem re-lists every item it holds on
                # each add (for its context menu), quadratic in the items.
                self.vb.addItem(item)
            colour = chain_colour(place.get(name, 0))
            chosen = name == selected
            # An unkeyed curve drawn as it already is is left alone: every flat line redrawn
            # on every edit made the timeline's cost per chain large.
            drawn = None if len(curve) else (lo, hi, float(own_weight), place.get(name, 0), chosen)
            if drawn is not None and self._drawn.get(lane) == drawn:
                continue
            self._drawn[lane] = drawn
            if len(curve):
                # Key times, and a hair before each, draw a constant segment's jump upright.
                t = np.union1d(grid, np.concatenate([curve.times, curve.times - 1e-9 * max(span, 1.0)]))
                item.setData(t, curve.sample(t))
                style = Qt.PenStyle.SolidLine
            else:
                item.setData(grid[[0, -1]], [own_weight, own_weight])
                style = Qt.PenStyle.DashLine
            if chosen:
                pen = pg.mkPen(rgb255(colour), width=2.5, style=style)
            else:
                pen = pg.mkPen(rgb255(dimmed(colour, 0.35), 0.6), width=1.2, style=style)
            item.setPen(pen)
            item.setZValue(10 if chosen else 5)

    def show_keys(self, weight: Curve, target: Curve, pole: Curve, colour_index: int, selected_key: int | None) -> None:
        colour = rgb255(chain_colour(colour_index))
        spots = []
        for i, k in enumerate(weight.keys):
            chosen = i == selected_key
            spots.append({
                "pos": (k.time, k.value),
                "symbol": SYMBOLS[k.interpolation],
                "size": SELECTED_KEY_SIZE if chosen else KEY_SIZE,
                "brush": pg.mkBrush((255, 255, 255) if chosen else colour),
                "pen": pg.mkPen(colour if chosen else (20, 20, 24), width=2 if chosen else 1),
                "data": i,
            })
        self.keys.setData(spots)
        self.keys.setToolTip("weight keys: drag to move (snaps to frames), right-click for interpolation,\n"
                             "Delete removes the selected key · ● ease  ◆ linear  ■ constant")
        for marks, curve in ((self.target_marks, target), (self.pole_marks, pole)):
            marks.setData(x=list(curve.times), y=[KEY_LANE] * len(curve), brush=pg.mkBrush(colour), pen=pg.mkPen((20, 20, 24)))

    def show_findings(self, marks: list[Mark], selected: int) -> None:
        """Lint findings as marks (lint_marks.py); `selected` (-1: none) is outlined."""
        for item in (self.lint_tint, self.lint_marks):
            item.set_marks(marks, selected)

    # --- mouse ---------------------------------------------------------------------------

    def view_point(self, scene_pos) -> QPointF | None:
        if not self.vb.sceneBoundingRect().contains(scene_pos):
            return None
        return self.vb.mapSceneToView(scene_pos)

    def _scene_clicked(self, ev) -> None:
        if ev.isAccepted():
            return  # a key took it
        p = self.view_point(ev.scenePos())
        if p is None or ev.button() != Qt.MouseButton.LeftButton:
            return
        if ev.double():
            self.add_requested.emit(float(p.x()), float(p.y()))
        else:
            self.background_clicked.emit()

    def over_time_axis(self, scene_pos) -> bool:
        return self.getPlotItem().getAxis("bottom").sceneBoundingRect().contains(scene_pos)

    def event(self, ev) -> bool:
        # The plot's keys before the window's shortcuts (Home is also the viewport's Reset Camera).
        if ev.type() == QEvent.Type.ShortcutOverride and self._command_key(ev):
            ev.accept()
            return True
        return super().event(ev)

    @staticmethod
    def _command_key(ev) -> bool:
        return key_code(ev.key()) in COMMAND_KEYS and ev.modifiers() == Qt.KeyboardModifier.NoModifier

    def keyPressEvent(self, ev) -> None:  # noqa: N802
        key = key_code(ev.key())
        if key in COMMAND_KEYS and ev.modifiers() == Qt.KeyboardModifier.NoModifier:
            ev.accept()
            self.key_command.emit(key)
            return
        super().keyPressEvent(ev)

    def to_widget(self, time: float, value: float) -> QPointF:
        """Where (time, value) is in this widget's viewport: for tests and tooltips."""
        return self.viewportTransform().map(self.vb.mapViewToScene(QPointF(time, value)))
