"""The FABRIK chain's tip error after each iteration of the last solve, on a log scale."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

# log10 of 0 is -inf; an error this small is "hit" for any rig, so the curve bottoms out there.
FLOOR = 1e-12


class ErrorPlot(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("errorPlot")
        self.plot = pg.PlotWidget(background=None)
        self.plot.setLogMode(x=False, y=True)
        self.plot.setLabel("left", "tip error (m)")
        self.plot.setLabel("bottom", "iteration")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setMinimumHeight(130)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.curve = self.plot.plot([], [], pen=pg.mkPen((255, 170, 60), width=2), symbol="o", symbolSize=5,
                                    symbolBrush=(255, 170, 60))
        self.tolerance_line = pg.InfiniteLine(angle=0, pen=pg.mkPen((120, 200, 255), style=pg.QtCore.Qt.PenStyle.DashLine))
        self.plot.addItem(self.tolerance_line)
        self.caption = QLabel("")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.caption)
        lay.addWidget(self.plot)
        self.errors: tuple[float, ...] = ()

    def show_errors(self, errors, tolerance: float) -> None:
        errors = tuple(float(e) for e in errors)
        if errors == self.errors and self.tolerance_line.value() == np.log10(tolerance):
            return
        self.errors = errors
        self.tolerance_line.setValue(np.log10(max(tolerance, FLOOR)))
        if errors:
            y = np.maximum(np.array(errors), FLOOR)
            self.curve.setData(np.arange(1, len(y) + 1), y)
            self.caption.setText(f"{len(errors)} iteration{'s' if len(errors) != 1 else ''}, "
                                 f"final error {errors[-1] * 1000:.3g} mm")
        else:
            self.curve.setData([], [])
            self.plot.setYRange(-6, -1)  # log10 metres: a micrometre to ten centimetres
            self.caption.setText("0 iterations (already within tolerance, or out of reach)")
