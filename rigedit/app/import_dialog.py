"""The auto-chain proposal dialog shown on File > Import: which chains to make, under what names.

One row a proposed chain: a checkbox to keep it, its name (editable), its solver (two-bone is
offered only for three-joint chains), its joints, and whether it keeps its pole. OK is refused
while two kept chains share a name or a name is empty, with the reason shown in the dialog.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
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
USE, NAME, SOLVER, JOINTS, POLE = range(len(COLUMNS))


class ChainProposalDialog(QDialog):
    def __init__(self, proposals: list[ChainProposal], summary: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chainProposalDialog")
        self.setWindowTitle("Import: IK chains")
        self.proposals = list(proposals)
        layout = QVBoxLayout(self)
        head = QLabel(summary)
        head.setWordWrap(True)
        head.setObjectName("importSummary")
        layout.addWidget(head)
        if not self.proposals:
            layout.addWidget(QLabel("No chains were recognised from the joint names; add them in the editor."))
        self.table = QTableWidget(len(self.proposals), len(COLUMNS), self)
        self.table.setObjectName("chainProposals")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(JOINTS, QHeaderView.ResizeMode.Stretch)
        for row, p in enumerate(self.proposals):
            self._fill_row(row, p)
        self.table.resizeColumnsToContents()
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

    def _fill_row(self, row: int, p: ChainProposal) -> None:
        use = QTableWidgetItem()
        use.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
        use.setCheckState(Qt.CheckState.Checked)
        self.table.setItem(row, USE, use)
        self.table.setItem(row, NAME, QTableWidgetItem(p.name))
        solver = QComboBox()
        solver.addItems([s.name for s in registry.SOLVERS if not s.aims and s.fits(len(p.joints))])
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
