"""Per-joint limits of a chain: none, a hinge (axis, min and max degrees) or a cone (max degrees).

One row per joint that has a bone leaving it (every joint but the tip). The table emits the
whole new limits mapping when a cell is edited; the dock turns that into one undo command.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QDoubleSpinBox, QHeaderView, QTableWidget, QTableWidgetItem

from rigedit.core.ik.limits import ConeLimit, HingeLimit

COLUMNS = ["Joint", "Limit", "Axis X", "Axis Y", "Axis Z", "Min °", "Max °"]
KINDS = ["none", "hinge", "cone"]
# The joint column is as wide as the names but no wider than this (px), elided in the middle
# beyond (an imported "mixamorig:LeftForeArm"): the number columns keep their room, and the
# table never scrolls sideways in the dock.
MAX_JOINT_COLUMN = 110


class LimitsTable(QTableWidget):
    limits_edited = Signal(dict)  # joint name -> HingeLimit | ConeLimit
    problem = Signal(str)  # an edit that makes no valid limit (min above max, a zero axis)

    def __init__(self, parent=None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setObjectName("limitsTable")
        self.setHorizontalHeaderLabels(COLUMNS)
        self.verticalHeader().hide()
        hdr = self.horizontalHeader()
        hdr.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        hdr.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        for c in range(2, len(COLUMNS)):
            hdr.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch)
        hdr.setMinimumSectionSize(44)
        self._joints: list[str] = []
        self._loading = False

    def load(self, joints, limits) -> None:
        """Show a chain's joints and limits (never emits)."""
        self._loading = True
        try:
            self._joints = list(joints)[:-1]
            # Start from an empty table: cell widgets of a previous, longer chain otherwise
            # linger where the shorter chain's rows are drawn.
            self.setRowCount(0)
            self.setRowCount(len(self._joints))
            for r, joint in enumerate(self._joints):
                item = QTableWidgetItem(joint)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                item.setToolTip(joint)
                self.setItem(r, 0, item)
                lim = limits.get(joint)
                kind = QComboBox()
                kind.addItems(KINDS)
                kind.setCurrentText("hinge" if isinstance(lim, HingeLimit) else "cone" if isinstance(lim, ConeLimit) else "none")
                kind.currentTextChanged.connect(lambda _t, row=r: self._kind_changed(row))
                self.setCellWidget(r, 1, kind)
                axis = lim.axis if isinstance(lim, HingeLimit) else (1.0, 0.0, 0.0)
                for c, v in zip((2, 3, 4), axis):
                    self.setCellWidget(r, c, self._spin(v, -1.0, 1.0, 3, 0.1))
                lo = lim.min_deg if isinstance(lim, HingeLimit) else 0.0
                hi = lim.max_deg if isinstance(lim, (HingeLimit, ConeLimit)) else 90.0
                self.setCellWidget(r, 5, self._spin(lo, -180.0, 180.0, 1, 5.0))
                self.setCellWidget(r, 6, self._spin(hi, -180.0, 180.0, 1, 5.0))
                self._enable_row(r)
        finally:
            self._loading = False
        self.resizeRowsToContents()
        self.resizeColumnToContents(0)
        self.setColumnWidth(0, min(self.columnWidth(0), MAX_JOINT_COLUMN))

    def _spin(self, value: float, lo: float, hi: float, decimals: int, step: float) -> QDoubleSpinBox:
        s = QDoubleSpinBox()
        s.setRange(lo, hi)
        s.setDecimals(decimals)
        s.setSingleStep(step)
        s.setValue(value)
        s.setKeyboardTracking(False)  # one edit when the typing is done, not one per digit
        s.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
        s.valueChanged.connect(lambda _v: self._emit())
        return s

    def _enable_row(self, r: int) -> None:
        kind = self.cellWidget(r, 1).currentText()
        for c in (2, 3, 4, 5):
            self.cellWidget(r, c).setEnabled(kind == "hinge")
        self.cellWidget(r, 6).setEnabled(kind != "none")

    def _kind_changed(self, r: int) -> None:
        self._enable_row(r)
        self._emit()

    def row_limit(self, r: int):
        kind = self.cellWidget(r, 1).currentText()
        if kind == "hinge":
            axis = tuple(self.cellWidget(r, c).value() for c in (2, 3, 4))
            return HingeLimit(axis, self.cellWidget(r, 5).value(), self.cellWidget(r, 6).value())
        if kind == "cone":
            return ConeLimit(max(0.0, self.cellWidget(r, 6).value()))
        return None

    def current_limits(self) -> dict:
        out = {}
        for r, joint in enumerate(self._joints):
            lim = self.row_limit(r)
            if lim is not None:
                out[joint] = lim
        return out

    def set_cell(self, joint: str, column: str, value) -> None:
        """Edit one cell as a user would (tests and scripts): column is a COLUMNS name."""
        r = self._joints.index(joint)
        w = self.cellWidget(r, COLUMNS.index(column))
        if isinstance(w, QComboBox):
            w.setCurrentText(value)
        else:
            w.setValue(value)

    def _emit(self) -> None:
        if self._loading:
            return
        try:
            limits = self.current_limits()
        except ValueError as e:  # e.g. min above max while typing: the dock reports it
            self.problem.emit(str(e))
            return
        self.limits_edited.emit(limits)
