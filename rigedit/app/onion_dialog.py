"""View > Onion Skin Settings: how many ghosts before and after, how many frames apart, and
how far a motion trail reaches. Not modal: each change shows at once."""
from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QSpinBox, QWidget

from .motion_overlays import MotionOverlays, OnionSettings


class OnionSettingsDialog(QDialog):
    def __init__(self, overlays: MotionOverlays, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("onionSettings")
        self.setWindowTitle("Onion Skin Settings")
        self.overlays = overlays
        s = overlays.settings
        self.before = _spin(s.before, 0, 20, "ghosts drawn at earlier frames (warm tint)")
        self.after = _spin(s.after, 0, 20, "ghosts drawn at later frames (cool tint)")
        self.step = _spin(s.step, 1, 1000, "frames between one ghost and the next")
        self.trail_seconds = QDoubleSpinBox()
        self.trail_seconds.setRange(0.1, 60.0)
        self.trail_seconds.setSingleStep(0.5)
        self.trail_seconds.setSuffix(" s")
        self.trail_seconds.setValue(s.trail_seconds)
        self.trail_seconds.setToolTip("a motion trail shows the path this long before and after the current time")
        form = QFormLayout(self)
        form.addRow("Ghosts &before", self.before)
        form.addRow("Ghosts &after", self.after)
        form.addRow("&Every (frames)", self.step)
        form.addRow("&Trail span (±)", self.trail_seconds)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        form.addRow(buttons)
        for box in (self.before, self.after, self.step):
            box.valueChanged.connect(self._apply)
        self.trail_seconds.valueChanged.connect(self._apply)

    def _apply(self, *_) -> None:
        self.overlays.set_settings(OnionSettings(self.before.value(), self.after.value(), self.step.value(),
                                                 self.trail_seconds.value()))


def _spin(value: int, low: int, high: int, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setToolTip(tip)
    return box


def show_onion_settings(window) -> OnionSettingsDialog:
    """View > Onion Skin Settings: the one dialog of the window's overlays, made on first use."""
    overlays = window.motion
    if overlays.dialog is None:
        overlays.dialog = OnionSettingsDialog(overlays, window)
    overlays.dialog.show()
    overlays.dialog.raise_()
    return overlays.dialog
