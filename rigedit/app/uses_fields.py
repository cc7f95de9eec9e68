"""Property-dock fields for the typical uses (issue 8): reach clamp and soft IK for two-bone
and FABRIK chains, the aim settings of a look_at chain. Each edit goes through the panel's
undoable `edit(text, **changes)`; `show_chain` fills the widgets while the panel is loading
(so filling them pushes no command)."""
from __future__ import annotations

import dataclasses
from typing import Callable

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLineEdit, QWidget

from rigedit.core.ik import registry

AXES = [("+X", (1.0, 0.0, 0.0)), ("-X", (-1.0, 0.0, 0.0)), ("+Y", (0.0, 1.0, 0.0)), ("-Y", (0.0, -1.0, 0.0)),
        ("+Z", (0.0, 0.0, 1.0)), ("-Z", (0.0, 0.0, -1.0))]


def spin(name: str, lo: float, hi: float, decimals: int, step: float, suffix: str) -> QDoubleSpinBox:
    s = QDoubleSpinBox()
    s.setObjectName(name)
    s.setRange(lo, hi)
    s.setDecimals(decimals)
    s.setSingleStep(step)
    s.setSuffix(suffix)
    s.setKeyboardTracking(False)
    return s


class UsesFields(QWidget):
    def __init__(self, edit: Callable[..., None], problem: Callable[[str], None],
                 has_clip: Callable[[], bool] = lambda: False, parent=None) -> None:
        super().__init__(parent)
        self._edit, self._problem, self._has_clip = edit, problem, has_clip
        self._look = None  # the LookAtSettings shown
        self.reach_clamp = spin("reachClamp", 50.0, 100.0, 2, 0.05, " %")
        self.reach_clamp.setToolTip("Targets beyond this fraction of the chain's full length are treated as at it, "
                                    "so the limb never goes perfectly straight (100 % = off)")
        self.softness = spin("softness", 0.0, 1000.0, 1, 5.0, " mm")
        self.softness.setToolTip("Soft IK: the last this-many millimetres of reach are eased, so the limb "
                                 "straightens smoothly instead of snapping (0 = off)")
        self.ground_feet = QCheckBox("Ground feet")
        self.ground_feet.setObjectName("groundFeet")
        self.ground_feet.setToolTip("The target follows the rig's ground under the animated tip; "
                                    "the pelvis lowers so every grounded leg reaches")
        self.follow_clip = QCheckBox("Follow clip")
        self.follow_clip.setObjectName("followClip")
        self.follow_clip.setToolTip("The goal (and pole) ride on the animated tip (and bend), plus the offsets keyed "
                                    "where it was dragged, so playing shows the clip; off: the goal stays where it is now")
        self.look_weights = QLineEdit()
        self.look_weights.setObjectName("lookWeights")
        self.look_weights.setPlaceholderText("equal shares")
        self.look_weights.setToolTip("Each joint's share of the turn, root to aiming joint, e.g. 0.4, 0.6")
        self.look_forward = QComboBox()
        self.look_forward.setObjectName("lookForward")
        self.look_up = QComboBox()
        self.look_up.setObjectName("lookUp")
        for combo in (self.look_forward, self.look_up):
            for label, axis in AXES:
                combo.addItem(label, axis)
        self.look_cone = spin("lookMaxAngle", 0.0, 180.0, 1, 5.0, " °")
        self.look_twist_on = QCheckBox("Limit roll")
        self.look_twist_on.setObjectName("lookTwistOn")
        self.look_twist = spin("lookMaxTwist", 0.0, 180.0, 1, 5.0, " °")
        twist = QWidget()
        row = QHBoxLayout(twist)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.look_twist_on)
        row.addWidget(self.look_twist, 1)

        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.addRow("Reach clamp", self.reach_clamp)
        self.form.addRow("Soft IK", self.softness)
        self.form.addRow("", self.ground_feet)
        self.form.addRow("", self.follow_clip)
        self.form.addRow("Look weights", self.look_weights)
        self.form.addRow("Forward axis", self.look_forward)
        self.form.addRow("Up axis", self.look_up)
        self.form.addRow("Look cone", self.look_cone)
        self.form.addRow("Roll limit", twist)

        self.reach_clamp.valueChanged.connect(lambda v: self._edit("Set reach clamp", reach_clamp=v / 100.0))
        self.softness.valueChanged.connect(lambda v: self._edit("Set soft IK", softness=v / 1000.0))
        self.ground_feet.toggled.connect(lambda on: self._edit("Ground feet" if on else "Free feet", ground_feet=bool(on)))
        # Off keeps the goal where it is now: a chain's settings carry its goal at the rig's time.
        self.follow_clip.toggled.connect(lambda on: self._edit("Follow clip" if on else "Stop following clip", follow_clip=bool(on)))
        self.look_weights.editingFinished.connect(self._weights_edited)
        self.look_forward.activated.connect(lambda i: self._look_edit("Set forward axis", forward_axis=self.look_forward.itemData(i)))
        self.look_up.activated.connect(lambda i: self._look_edit("Set up axis", up_axis=self.look_up.itemData(i)))
        self.look_cone.valueChanged.connect(lambda v: self._look_edit("Set look cone", max_angle_deg=float(v)))
        self.look_twist_on.toggled.connect(self._twist_toggled)
        self.look_twist.valueChanged.connect(lambda v: self._look_edit("Set roll limit", max_twist_deg=float(v)))

    def show_chain(self, ch) -> None:
        look = not registry.get(ch.solver).reaches  # the aim settings instead of the reach ones
        for w in (self.reach_clamp, self.softness, self.ground_feet):
            self.form.setRowVisible(w, not look)
        self.form.setRowVisible(self.follow_clip, not look and self._has_clip())
        self.follow_clip.setChecked(ch.follow_clip)
        for w in (self.look_weights, self.look_forward, self.look_up, self.look_cone):
            self.form.setRowVisible(w, look)
        self.form.setRowVisible(self.look_twist.parentWidget(), look)
        self.reach_clamp.setValue(ch.reach_clamp * 100.0)
        self.softness.setValue(ch.softness * 1000.0)
        self.ground_feet.setChecked(ch.ground_feet)
        s = self._look = ch.look_at
        self.look_weights.setText("" if s.weights is None else ", ".join(f"{w:g}" for w in s.weights))
        for combo, axis in ((self.look_forward, s.forward_axis), (self.look_up, s.up_axis)):
            i = combo.findData(tuple(axis))
            if i < 0:  # an axis from a file that is not one of the six: show it as an extra item
                combo.addItem(", ".join(f"{a:g}" for a in axis), tuple(axis))
                i = combo.count() - 1
            combo.setCurrentIndex(i)
        self.look_cone.setValue(s.max_angle_deg)
        self.look_twist_on.setChecked(s.max_twist_deg is not None)
        self.look_twist.setEnabled(s.max_twist_deg is not None)
        self.look_twist.setValue(s.max_twist_deg or 0.0)

    def _look_edit(self, text: str, **changes) -> None:
        if self._look is not None:
            self._edit(text, look_at=dataclasses.replace(self._look, **changes))

    def _twist_toggled(self, on: bool) -> None:
        self._look_edit("Limit roll" if on else "Free roll", max_twist_deg=float(self.look_twist.value()) if on else None)

    def _weights_edited(self) -> None:
        text = self.look_weights.text().strip()
        if not text:
            self._look_edit("Set look weights", weights=None)
            return
        try:
            weights = tuple(float(t) for t in text.replace(";", ",").split(","))
        except ValueError:
            self._problem(f"look weights: {text!r} is not a list of numbers like 0.4, 0.6")
            return
        self._look_edit("Set look weights", weights=weights)
