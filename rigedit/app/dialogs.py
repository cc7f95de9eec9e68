"""Message boxes, made one way so tests and scripts can find them (objectName) or replace them."""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

Button = QMessageBox.StandardButton


def show_error(parent: QWidget | None, title: str, text: str, reassurance: str = "") -> None:
    """`text` is the problem (file, field, what is wrong); `reassurance` says what was kept."""
    box = QMessageBox(QMessageBox.Icon.Critical, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("errorDialog")
    if reassurance:
        box.setInformativeText(reassurance)
    box.exec()


def ask_save_changes(parent: QWidget | None, name: str) -> Button:
    """Save / Discard / Cancel for unsaved changes."""
    box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes",
                      f"{name} has unsaved changes. Save them first?",
                      Button.Save | Button.Discard | Button.Cancel, parent)
    box.setObjectName("saveChangesDialog")
    box.setDefaultButton(Button.Save)
    return Button(box.exec())


def ask_restore(parent: QWidget | None, name: str, when: str) -> bool:
    box = QMessageBox(QMessageBox.Icon.Question, "Recover unsaved changes",
                      f"rigedit found unsaved changes to {name} from {when}, newer than the file. Restore them?",
                      Button.Yes | Button.No, parent)
    box.setObjectName("recoveryDialog")
    box.button(Button.Yes).setText("Restore")
    box.button(Button.No).setText("Discard")
    box.setDefaultButton(Button.Yes)
    return box.exec() == Button.Yes
