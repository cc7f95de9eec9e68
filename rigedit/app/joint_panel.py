"""The property dock's joint section: the selected joint (a clicked bone) with its local
rotation as XYZ Euler degrees (editable: one undo step per field edit, through the pose
layer as the viewport's R is), its limit, the chain it belongs to, and when that chain's IK
overrules the rotation (weight > 0), a line saying so with "Match FK to IK" and "IK weight 0".
Hidden while no joint is selected.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from rigedit.core.fk_limits import clamp_rotation, joint_limit, overruling_chain
from rigedit.core.ik import registry
from rigedit.core.ik.limits import ConeLimit, HingeLimit
from rigedit.core.transforms import quat_from_euler, quat_to_euler

from .document import Document
from .pose_edit import under_ik_tag

# Blender's XYZ Euler (X turned first, about the parent's axes): intrinsic Z, Y, X.
_ORDER = "ZYX"
ROTATE_HELP = ("In the viewport: R rotates the selected joints (X / Y / Z: a global axis, twice: the joint's own; "
               "type an angle; Enter or click confirms, Esc or right-click cancels), or drag a ring of the gizmo.")


def euler_deg(q) -> np.ndarray:
    """XYZ Euler degrees of a local rotation (x, y, z, w)."""
    z, y, x = quat_to_euler(_ORDER, np.asarray(q, dtype=np.float64))
    return np.array([x, y, z])


def from_euler_deg(xyz) -> np.ndarray:
    x, y, z = xyz
    return quat_from_euler(_ORDER, np.array([z, y, x], dtype=np.float64))


def chain_of(rig, name: str):
    """The first chain holding joint `name`, or None."""
    return next((ch for ch in rig.chains if name in ch.joints), None)


def limit_text(limit) -> str:
    if isinstance(limit, HingeLimit):
        axis = ", ".join(f"{v:.2f}" for v in limit.axis)
        return f"hinge about ({axis}), {limit.min_deg:g}° to {limit.max_deg:g}°"
    if isinstance(limit, ConeLimit):
        return f"cone, within {limit.max_deg:g}° of the bone before"
    return "none"


class JointPanel(QGroupBox):
    def __init__(self, document: Document, parent=None) -> None:
        super().__init__("Joint", parent)
        self.setObjectName("jointPanel")
        self.doc = document
        self._loading = False
        self.name = QLabel()
        self.name.setObjectName("jointName")
        self.chain = QLabel()
        self.chain.setObjectName("jointChain")
        self.limit = QLabel()
        self.limit.setObjectName("jointLimit")
        self.limit.setWordWrap(True)
        self.rotation = [self._angle_field(axis) for axis in "XYZ"]
        row = QHBoxLayout()
        for field in self.rotation:
            row.addWidget(field)
        self.overruled = QLabel()
        self.overruled.setObjectName("jointOverruled")
        self.overruled.setWordWrap(True)
        self.match = QPushButton("Match FK to IK")
        self.match.setObjectName("jointMatchFkToIk")
        self.match.setToolTip("Write the pose the IK shows into the FK pose, so turning the IK off moves nothing")
        self.weight_zero = QPushButton("IK weight 0")
        self.weight_zero.setObjectName("jointIkWeightZero")
        self.weight_zero.setToolTip("Turn the chain's IK off: its joints show their FK rotations")
        buttons = QHBoxLayout()
        buttons.addWidget(self.match)
        buttons.addWidget(self.weight_zero)
        self.ik_box = QWidget()
        ik = QVBoxLayout(self.ik_box)
        ik.setContentsMargins(0, 0, 0, 0)
        ik.addWidget(self.overruled)
        ik.addLayout(buttons)
        form = QFormLayout(self)
        form.addRow("Name", self.name)
        form.addRow("Rotation", row)
        form.addRow("Limit", self.limit)
        form.addRow("Chain", self.chain)
        form.addRow(self.ik_box)

        self.match.clicked.connect(lambda: self._ik_action("fk_to_ik"))
        self.weight_zero.clicked.connect(lambda: self._ik_action("weight0"))
        for signal in (document.joints_selected, document.rig_replaced, document.chain_changed,
                       document.pose_changed, document.layer_changed):
            signal.connect(self.reload)
        self.reload()

    def _angle_field(self, axis: str) -> QDoubleSpinBox:
        f = QDoubleSpinBox()
        f.setObjectName(f"jointRotation{axis}")
        f.setRange(-180.0, 180.0)
        f.setWrapping(True)
        f.setDecimals(2)
        f.setSuffix("°")
        f.setKeyboardTracking(False)
        f.setToolTip(f"The joint's local rotation about {axis} (XYZ Euler, degrees). {ROTATE_HELP}")
        f.valueChanged.connect(self._edited)
        return f

    @property
    def joint(self) -> str:
        """The joint shown: the active (last) selected one, or ""."""
        names = self.doc.selected_joints
        return names[-1] if names else ""

    # --- document -> widgets -----------------------------------------------------------------

    def reload(self, *_ignored) -> None:
        name = self.joint
        self.setVisible(bool(name))
        if not name:
            return
        rig = self.doc.rig
        more = len(self.doc.selected_joints) - 1
        self.name.setText(name + (f"  (+{more} more selected)" if more else ""))
        self._loading = True
        try:
            for field, value in zip(self.rotation, euler_deg(rig.rotation(name))):
                if not field.hasFocus():  # a value being typed stays
                    field.setValue(float(value))
        finally:
            self._loading = False
        ch = chain_of(rig, name)
        jl = joint_limit(rig, name, active_only=False)
        off = jl is not None and rig.chain(jl.chain).weight <= 0.0
        self.limit.setText("none" if jl is None else limit_text(jl.limit) + (" (off: its chain is at weight 0)" if off else ""))
        if ch is None:
            self.chain.setText("none")
            self.ik_box.setVisible(False)
            return
        self.chain.setText(f"{ch.name} ({registry.get(ch.solver).label}, weight {ch.weight:.2f})")
        over = overruling_chain(rig, name)
        self.ik_box.setVisible(over is not None)
        if over is None:
            return
        ch = over
        self.match.setEnabled(registry.get(ch.solver).reaches)  # a look-at has no FK to match
        verb = "overrules" if ch.weight >= 1.0 else "blends over"
        self.overruled.setText(f"The IK of {ch.name} {verb} this rotation (weight {ch.weight:.2f}): "
                               "match FK to IK, or set its weight to 0 to pose it by hand.")

    # --- widgets -> document -----------------------------------------------------------------

    def _edited(self, _value: float) -> None:
        name = self.joint
        if self._loading or not name:
            return
        rig = self.doc.rig
        q = from_euler_deg([f.value() for f in self.rotation])
        jl = joint_limit(rig, name)
        if jl is not None:  # the limit holds, as it does for R in the viewport
            pose = rig.pose.copy()
            pose.rotations[jl.joint] = q
            q = clamp_rotation(rig.skeleton, pose, jl)
        before = self.doc.layer_snapshot()
        self.doc.set_rotations_live({name: q})
        self.doc.edit_layer(f"Set {name} rotation{under_ik_tag(rig, (name,))}", before, (name,))

    def _ik_action(self, what: str) -> None:
        ch = overruling_chain(self.doc.rig, self.joint)
        if ch is None:
            return
        if what == "fk_to_ik":
            self.doc.match("fk_to_ik", ch.name)
        else:
            self.doc.edit_chain(ch.name, "IK weight 0", {"weight": 0.0})
