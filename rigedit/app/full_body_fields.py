"""Property-dock fields for full-body IK and IK/FK matching (issue 16).

The full-body switch is the rig's (one undo command); pull is the selected chain's (through
the panel's undoable `edit`, like every chain field), shown with its role's default (legs 0,
arms and head 0.4, a spine 0.01) until it is set, and only meaningful while full body is on.
The match buttons act on the selected chain or the whole body (Document.match: one undo
command each): IK to FK puts the goals on the animated limbs, FK to IK writes the shown pose
into the animated frame, Switch does the match that keeps the pose and flips the weight.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QCheckBox, QFormLayout, QHBoxLayout, QPushButton, QWidget

from rigedit.core.ik import registry

from .document import Document
from .uses_fields import spin

PULL_STEP = 0.05


class FullBodyFields(QWidget):
    def __init__(self, document: Document, edit: Callable[..., None], loading: Callable[[], bool], parent=None) -> None:
        super().__init__(parent)
        self.doc = document
        self._edit = edit
        self._loading = loading
        self.full_body = QCheckBox("Full-body IK")
        self.full_body.setObjectName("fullBody")
        self.full_body.setToolTip("Solve every chain's goal together: the hips and spine move as far as the chains' "
                                  "pull lets them, legs (pull 0) keep their feet on their targets")
        self.pull = spin("pull", 0.0, 1.0, 3, PULL_STEP, "")
        self.pull.setToolTip("How much this chain's goal may move the body under full-body IK (0: an anchor, "
                             "its foot or hand stays on its target and holds the body)")
        self.buttons: dict[tuple[str, bool], QPushButton] = {}
        rows = []
        for whole in (False, True):
            row = QWidget()
            lay = QHBoxLayout(row)
            lay.setContentsMargins(0, 0, 0, 0)
            for kind, label, tip in (
                ("ik_to_fk", "IK → FK", "Put the goal and pole where the animated (FK) limb is"),
                ("fk_to_ik", "FK → IK", "Write the shown pose into the animated pose at this frame (a key with a clip)"),
                ("switch", "Switch", "Flip between IK (weight 1) and FK (weight 0), matched so the pose does not move"),
            ):
                b = QPushButton(label)
                b.setObjectName(("matchBody" if whole else "match") + "".join(p.title() for p in kind.split("_")))
                b.setToolTip(tip + (" for every chain" if whole else " for this chain"))
                b.clicked.connect(lambda _=False, k=kind, w=whole: self._match(k, w))
                lay.addWidget(b)
                self.buttons[(kind, whole)] = b
            rows.append(row)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Body", self.full_body)
        form.addRow("Pull", self.pull)
        form.addRow("Match chain", rows[0])
        form.addRow("Match body", rows[1])
        self.full_body.toggled.connect(self._full_body_toggled)
        self.pull.valueChanged.connect(self._pull_changed)

    def show_chain(self, ch) -> None:
        """Fill the widgets for a chain (None: no chain selected); the panel calls it on every
        reload, the full-body switch's included."""
        block = self.full_body.blockSignals(True)
        self.full_body.setChecked(self.doc.rig.full_body)
        self.full_body.blockSignals(block)
        takes_part = ch is not None and registry.get(ch.solver).reaches  # look-at chains keep the animated pose
        self.pull.setEnabled(takes_part and self.doc.rig.full_body)
        block = self.pull.blockSignals(True)
        self.pull.setValue(ch.pull if takes_part else 0.0)
        self.pull.blockSignals(block)
        for (kind, whole), b in self.buttons.items():
            b.setEnabled(whole or takes_part)

    def _full_body_toggled(self, on: bool) -> None:
        if not self._loading():
            self.doc.set_full_body(on)

    def _pull_changed(self, value: float) -> None:
        self._edit("Set pull", pull=float(value))

    def _match(self, kind: str, whole: bool) -> None:
        chain = None if whole else self.doc.selected
        if whole or chain:
            self.doc.match(kind, chain)
