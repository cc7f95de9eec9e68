"""The FABRIK chain's tip error after each iteration of the last solve, on a log scale.

A solve that starts within tolerance runs no iteration (the settled pose after a drag, most of
the time); the plot then keeps the last curve that had iterations and says so, since an empty
plot tells a user nothing about how the chain converges.

The axes span whole decades and iteration counts in fives, set here rather than auto-ranged: a
new range makes pyqtgraph lay out and redraw both axes (several ms each time), and an
auto-ranged plot took two repaints per new curve; while a target is dragged the curve
changes with every solve, its range hardly ever.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

# log10 of 0 is -inf; an error this small is "hit" for any rig, so the curve bottoms out there.
FLOOR = 1e-12
MIN_WIDTH = 200  # px: the plot narrows with the dock (its own hint, 320, was most of the dock)


class ErrorPlot(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("errorPlot")
        self.plot = pg.PlotWidget(background=None)
        self.plot.setLogMode(x=False, y=True)
        self.plot.setLabel("left", "tip error (mm)")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.setLabel("bottom", "iteration")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setMinimumHeight(130)
        self.plot.setMaximumHeight(200)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.disableAutoRange()
        self._range: tuple[int, int, int] | None = None  # (iterations, lowest decade, highest decade) shown
        self.curve = self.plot.plot([], [], pen=pg.mkPen((255, 170, 60), width=2), symbol="o", symbolSize=5,
                                    symbolBrush=(255, 170, 60))
        self.tolerance_line = pg.InfiniteLine(angle=0, pen=pg.mkPen((120, 200, 255), style=pg.QtCore.Qt.PenStyle.DashLine))
        self.plot.addItem(self.tolerance_line)
        self.caption = QLabel("")
        # Wrapped: "last solve: 0 iterations ...; showing the one before (N iterations)" on one
        # line made the dock wider than a 1280x800 window gives it, and it scrolled sideways.
        self.caption.setWordWrap(True)
        self.plot.setMinimumWidth(MIN_WIDTH)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.caption)
        lay.addWidget(self.plot)
        self.errors: tuple[float, ...] | None = None  # the last solve's (None: nothing shown yet)
        self.shown: tuple[float, ...] = ()  # the curve on screen (the last solve that iterated)
        self.reached: bool | None = None

    def show_errors(self, errors, tolerance: float, reached: bool | None = None) -> None:
        """`reached`: whether the last solve ended within tolerance (None: not known). A
        solve with no iteration is within tolerance only when it says so: no iteration also
        means out of reach, or a chain left alone after it stalled short of its target."""
        errors = tuple(float(e) for e in errors)
        tol_mm = max(tolerance * 1000.0, FLOOR)
        if errors == self.errors and self.tolerance_line.value() == np.log10(tol_mm) and reached == self.reached:
            return
        self.errors = errors
        self.reached = reached
        self.tolerance_line.setValue(np.log10(tol_mm))  # log mode: lines take log10 values
        if errors:
            self.shown = errors
            y = np.maximum(np.array(errors) * 1000.0, FLOOR)
            self._set_range(len(y), np.log10(np.append(y, tol_mm)))
            self.curve.setData(np.arange(1, len(y) + 1), y)
            self.caption.setText(f"{len(errors)} iteration{'s' if len(errors) != 1 else ''}, "
                                 f"final error {errors[-1] * 1000:.3g} mm (dashed: tolerance)")
        elif self.shown:
            self.caption.setText(f"last solve: 0 iterations ({_why_none(reached)}); showing the one before "
                                 f"({len(self.shown)} iterations)")
        else:
            self._set_range(1, np.array([-3.0, 2.0]))  # log10 mm: a micrometre to ten centimetres
            self.caption.setText(f"0 iterations ({_why_none(reached)})")

    def _set_range(self, iterations: int, logs: np.ndarray) -> None:
        span = 5 * max(1, math.ceil(iterations / 5))  # iterations in fives: fewer new ranges
        key = (span, int(np.floor(logs.min())), int(np.ceil(logs.max())))
        if key[2] <= key[1]:
            key = (key[0], key[1], key[1] + 1)
        if key == self._range:
            return
        self._range = key
        self.plot.setXRange(0.5, key[0] + 0.5, padding=0)
        self.plot.setYRange(key[1], key[2], padding=0.04)  # log mode: the range in log10 units


def _why_none(reached: bool | None) -> str:
    """Why a solve ran no iteration, as far as its report tells."""
    if reached:
        return "within tolerance"
    if reached is None:
        return "already within tolerance, or out of reach"
    return "not reached: out of reach, or stalled and not solved again until something changes"
