"""The auto-chain proposal dialog shown on File > Import: which chains to make, under what names.

One row a proposed chain: a checkbox to keep it, its name (editable), its solver (two-bone is
offered only for three-joint chains), its joints, and whether it keeps its pole. OK is refused
while two kept chains share a name or a name is empty, with the reason shown in the dialog.

The file's up axis is a guess (from where head and feet joints are), so a "File up axis" box offers the override: picking
an axis asks the importer (`reread`) to read the file again that way, and the summary and the
proposed chains are redone from the result.

A glTF file with several animations gets an "Animation" box (name and duration of each, the
first by default, or the one asked for): picking one reads the file again with it, as the up
axis box does, so the chains are proposed on that animation's first frame.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rigedit.core.autochains import ChainProposal
from rigedit.core.ik import registry

COLUMNS = ("Use", "Name", "Solver", "Joints", "Pole")
# The up-axis choices offered, as read_bvh takes them ("auto" is the guess).
UP_AXES = ("auto", "+y", "+z", "-z", "+x", "-x", "-y")
# reread(up axis, animation index or None when the dialog offers no choice)
Reread = Callable[[str, "int | None"], "tuple[list[ChainProposal], str]"]
USE, NAME, SOLVER, JOINTS, POLE = range(len(COLUMNS))


class ChainProposalDialog(QDialog):
    def __init__(
        self,
        proposals: list[ChainProposal],
        summary: str,
        parent: QWidget | None = None,
        *,
        up_axis: str = "auto",
        reread: Reread | None = None,
        animations: Sequence[tuple[str, float]] = (),
        animation: int = 0,
    ) -> None:
        """animations: (name, duration in seconds) of each of the file's animations, in file
        order; a box to pick one is shown when there are two or more (and `reread` is given)."""
        super().__init__(parent)
        self.setObjectName("chainProposalDialog")
        self.setWindowTitle("Import: IK chains")
        self.proposals = list(proposals)
        self.reread = reread
        layout = QVBoxLayout(self)
        head = QLabel(summary)
        head.setWordWrap(True)
        head.setObjectName("importSummary")
        self.head = head
        layout.addWidget(head)
        self.up_box: QComboBox | None = None
        self.animation_box: QComboBox | None = None
        self._read_as = (up_axis, animation if len(animations) > 1 else None)  # what the proposals come from
        if reread is not None and len(animations) > 1:
            layout.addLayout(self._animation_row(animations, animation))
        if reread is not None:
            layout.addLayout(self._up_axis_row(up_axis))
        self.none_found = QLabel("No chains were recognised from the joint names; add them in the editor.")
        self.none_found.setVisible(not self.proposals)
        layout.addWidget(self.none_found)
        self._build_table()
        layout.addWidget(self.table)
        self.problem = QLabel("")
        self.problem.setObjectName("proposalProblem")
        self.problem.setStyleSheet("color: #c0392b")
        layout.addWidget(self.problem)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        layout.addWidget(buttons)
        self.table.itemChanged.connect(lambda _item: self._check())
        self.resize(760, 120 + 32 * max(3, len(self.proposals)))
        self._check()

    def _animation_row(self, animations: Sequence[tuple[str, float]], animation: int) -> QHBoxLayout:
        """A box to pick which of the file's animations is the clip."""
        row = QHBoxLayout()
        label = QLabel("&Animation:")
        row.addWidget(label)
        self.animation_box = QComboBox()
        self.animation_box.setObjectName("importAnimation")
        for i, (name, seconds) in enumerate(animations):
            self.animation_box.addItem(f"{name}  ({seconds:.2f} s)", i)
        self.animation_box.setCurrentIndex(animation)
        self.animation_box.setToolTip("The file's animation to import as the clip under the IK")
        self.animation_box.activated.connect(lambda i: self.set_animation(i))
        label.setBuddy(self.animation_box)
        row.addWidget(self.animation_box)
        row.addStretch(1)
        return row

    def _up_axis_row(self, up_axis: str) -> QHBoxLayout:
        """A box to say which axis the file calls up."""
        row = QHBoxLayout()
        row.addWidget(QLabel("File up axis:"))
        self.up_box = QComboBox()
        self.up_box.setObjectName("importUpAxis")
        self.up_box.addItems(UP_AXES)
        self.up_box.setCurrentText(up_axis)
        self.up_box.setToolTip("The axis the file calls up; it is turned to rigedit's +Y. auto: guessed from head and feet.")
        self.up_box.activated.connect(lambda _i: self.set_up_axis(self.up_box.currentText()))
        row.addWidget(self.up_box)
        row.addStretch(1)
        return row

    def _build_table(self) -> None:
        """The proposed chains, a row each: use it?, name, solver, joints, pole."""
        self.table = table = QTableWidget(len(self.proposals), len(COLUMNS), self)
        table.setObjectName("chainProposals")
        table.setHorizontalHeaderLabels(COLUMNS)
        table.verticalHeader().setVisible(False)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.horizontalHeader().setSectionResizeMode(JOINTS, QHeaderView.ResizeMode.Stretch)
        for row, p in enumerate(self.proposals):
            self._fill_row(row, p)
        table.resizeColumnsToContents()

    def up_axis(self) -> str:
        return self._read_as[0]

    def animation(self) -> int | None:
        """The index of the animation the proposals were made from (None: no choice offered)."""
        return self._read_as[1]

    def set_up_axis(self, up: str) -> bool:
        """Read the file again with this up axis and redo the proposals (False if it failed)."""
        return self._reread(up, self._read_as[1])

    def set_animation(self, index: int) -> bool:
        """Read the file again with this animation and redo the proposals (False if it failed)."""
        if self.animation_box is None or not 0 <= index < self.animation_box.count():
            return False
        return self._reread(self._read_as[0], index)

    def _reread(self, up: str, animation: int | None) -> bool:
        if self.reread is None:
            return False
        self._show_read_as(up, animation)
        try:
            proposals, summary = self.reread(up, animation)
        except ValueError as e:
            self.problem.setText(str(e))
            self._show_read_as(*self._read_as)  # the boxes say what the table was made from
            return False
        self._read_as = (up, animation)
        self.head.setText(summary)
        self.proposals = list(proposals)
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        self.table.setRowCount(len(self.proposals))
        for row, p in enumerate(self.proposals):
            self._fill_row(row, p)
        self.table.blockSignals(False)
        self.none_found.setVisible(not self.proposals)
        self._check()
        return True

    def _show_read_as(self, up: str, animation: int | None) -> None:
        if self.up_box is not None and self.up_box.currentText() != up:
            self.up_box.setCurrentText(up)
        if self.animation_box is not None and animation is not None and self.animation_box.currentIndex() != animation:
            self.animation_box.setCurrentIndex(animation)

    def _fill_row(self, row: int, p: ChainProposal) -> None:
        use = QTableWidgetItem()
        use.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
        use.setCheckState(Qt.CheckState.Checked)
        self.table.setItem(row, USE, use)
        self.table.setItem(row, NAME, QTableWidgetItem(p.name))
        solver = QComboBox()
        solver.addItems([s.name for s in registry.reaching() if s.fits(len(p.joints))])
        solver.setCurrentText(p.solver)
        self.table.setCellWidget(row, SOLVER, solver)
        joints = QTableWidgetItem(" > ".join(p.joints))
        joints.setFlags(Qt.ItemFlag.ItemIsEnabled)
        joints.setToolTip(p.reason)
        self.table.setItem(row, JOINTS, joints)
        pole = QTableWidgetItem()
        if p.pole is None:
            pole.setFlags(Qt.ItemFlag.NoItemFlags)
            pole.setText("—")
        else:
            pole.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            pole.setCheckState(Qt.CheckState.Checked)
        self.table.setItem(row, POLE, pole)

    # --- reading the table -----------------------------------------------------------------

    def set_used(self, row: int, used: bool) -> None:
        self.table.item(row, USE).setCheckState(Qt.CheckState.Checked if used else Qt.CheckState.Unchecked)

    def set_name(self, row: int, name: str) -> None:
        self.table.item(row, NAME).setText(name)

    def solver_box(self, row: int) -> QComboBox:
        return self.table.cellWidget(row, SOLVER)

    def chains(self) -> list[ChainProposal]:
        """The kept chains as edited, in the order proposed (the order a rig solves them)."""
        out = []
        for row, p in enumerate(self.proposals):
            if self.table.item(row, USE).checkState() != Qt.CheckState.Checked:
                continue
            pole_item = self.table.item(row, POLE)
            keep_pole = p.pole is not None and pole_item.checkState() == Qt.CheckState.Checked
            out.append(replace(
                p,
                name=self.table.item(row, NAME).text().strip(),
                solver=self.solver_box(row).currentText(),
                pole=p.pole if keep_pole else None,
            ))
        return out

    def _check(self) -> str:
        names = [c.name for c in self.chains()]
        problem = ""
        if any(not n for n in names):
            problem = "Every kept chain needs a name."
        else:
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                problem = f"Two kept chains are both named {dup[0]!r}."
        self.problem.setText(problem)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problem)
        return problem

    def accept(self) -> None:  # noqa: D401 - Qt override
        if self._check():
            return
        super().accept()
