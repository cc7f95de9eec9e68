"""The options of File > Retarget onto This Rig… (core/retarget/options.py, each one here as
on the command line): root motion, feet locked on their contacts, feet kept above the ground,
hands kept off the body. Shown after the file is picked; the last choice is offered next time.
"""
from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from rigedit.core.retarget import ROOT_MODES, RetargetOptions

ROOT_LABELS = {
    "scaled": "Scaled by the leg-length ratio",
    "kept": "Kept as the source has it",
    "in_place": "In place (travel taken out)",
}


class RetargetOptionsDialog(QDialog):
    def __init__(self, options: RetargetOptions, source_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("retargetOptionsDialog")
        self.setWindowTitle("Retarget onto this rig")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Retarget {source_name} onto the open rig:"))
        form = QFormLayout()
        self.root_box = QComboBox()
        self.root_box.setObjectName("retargetRoot")
        for mode in ROOT_MODES:
            self.root_box.addItem(ROOT_LABELS[mode], mode)
        self.root_box.setCurrentIndex(ROOT_MODES.index(options.root))
        form.addRow("&Root motion:", self.root_box)
        self.lock_feet = self._check("retargetLockFeet", "&Lock feet on the source's contacts", options.lock_feet)
        self.ground = self._check("retargetGround", "Keep feet above the &ground", options.ground)
        self.arm_space = self._check("retargetArmSpace", "Keep &hands off a wider body", options.arm_space)
        for box in (self.lock_feet, self.ground, self.arm_space):
            form.addRow(box)
        layout.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        layout.addWidget(buttons)

    def _check(self, name: str, text: str, on: bool) -> QCheckBox:
        box = QCheckBox(text)
        box.setObjectName(name)
        box.setChecked(on)
        return box

    def options(self) -> RetargetOptions:
        return RetargetOptions(root=self.root_box.currentData(), lock_feet=self.lock_feet.isChecked(),
                               ground=self.ground.isChecked(), arm_space=self.arm_space.isChecked())
