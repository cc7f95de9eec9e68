"""The options of File > Retarget onto This Rig…, made from core/retarget/options.py's one
list (as rigedit/retarget_flags.py makes the command's flags from it): a field with choices is
a list box, a bool field a check box, each with the field's "label" and named
"retarget" + the field's name in CamelCase ("retargetLockFeet"). An option added to that list
is offered here with nothing written for it. Shown after the file is picked; the last choice
is offered next time.
"""
from __future__ import annotations

from dataclasses import fields

from PySide6.QtWidgets import QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from rigedit.core.retarget import RetargetOptions


def widget_name(field_name: str) -> str:
    """The object name of a field's box: "lock_feet" -> "retargetLockFeet"."""
    return "retarget" + "".join(part.capitalize() for part in field_name.split("_"))


class RetargetOptionsDialog(QDialog):
    def __init__(self, options: RetargetOptions, source_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("retargetOptionsDialog")
        self.setWindowTitle("Retarget onto this rig")
        self.kind = type(options)  # the options' class: its fields are the boxes
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Retarget {source_name} onto the open rig:"))
        form = QFormLayout()
        self.boxes: dict[str, QComboBox | QCheckBox] = {}
        for f in fields(self.kind):
            value = getattr(options, f.name)
            label = f.metadata["label"]  # KeyError naming the field: every option needs its text
            if "choices" in f.metadata:
                box = QComboBox()
                choices = f.metadata["choices"]
                for choice, text in zip(choices, f.metadata.get("choice_labels", choices), strict=True):
                    box.addItem(text, choice)
                box.setCurrentIndex(list(choices).index(value))
                form.addRow(label, box)
            else:
                box = QCheckBox(label)
                box.setChecked(value)
                form.addRow(box)
            box.setObjectName(widget_name(f.name))
            self.boxes[f.name] = box
        layout.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        layout.addWidget(buttons)

    @property
    def root_box(self) -> QComboBox:
        return self.boxes["root"]

    def options(self) -> RetargetOptions:
        values = {name: box.currentData() if isinstance(box, QComboBox) else box.isChecked()
                  for name, box in self.boxes.items()}
        return self.kind(**values)
