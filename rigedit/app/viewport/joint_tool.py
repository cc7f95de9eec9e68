"""What a left click does to joints, once no handle took it: on a ring of the rotate gizmo it
starts a rotation about that ring's axis; on a bone it selects the bone's joint (Shift adds
it, or takes it out when it is selected already, even under a ring); on empty space it
clears the selection (Shift keeps it). The handles come first (view.py asks them before this).
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, Qt

from .joint_pick import pick_bone


class JointTool:
    def __init__(self, view) -> None:  # view: the Viewport
        self.view = view

    def joint_at(self, pos: QPointF) -> str | None:
        """The joint whose bone is under widget point pos; None on empty space or when the
        bones are hidden (View > Mesh)."""
        view = self.view
        if not view.skeleton.shown:
            return None
        rig = view.doc.rig
        v, proj = view.matrices()
        j = pick_bone(proj @ v, view._size(), rig.world_positions(), rig.skeleton.parents, pos.x(), pos.y())
        return None if j is None else rig.skeleton.names[j]

    def press(self, pos: QPointF, modifiers) -> bool:
        """A left press no handle took; True when it began a rotation (a ring was hit)."""
        view = self.view
        add = bool(modifiers & Qt.KeyboardModifier.ShiftModifier)
        # Shift+click only selects: a bone under a ring can still be added.
        axis = None if add else view.rings.pick(pos)
        if axis is not None and view.rotate.begin(pos, axis, by_ring=True):
            return True
        self.select(self.joint_at(pos), add=add)
        return False

    def select(self, name: str | None, add: bool = False) -> None:
        """A click on joint `name`'s bone (None: on empty space), with Shift when `add`.
        The Properties dock then shows the chain that bone is in, as Blender's shows the
        active bone's IK constraint: clicking the forearm left the dock on the spine."""
        doc = self.view.doc
        current = doc.selected_joints
        if not add:
            doc.select_joints(() if name is None else (name,))
        elif name is not None:
            doc.select_joints(tuple(n for n in current if n != name) if name in current else current + (name,))
        if name is not None and name in doc.selected_joints:
            chain = chain_turning(doc.rig, name)
            if chain is not None:
                doc.select(chain)


def chain_turning(rig, name: str) -> str | None:
    """The chain whose bones include the one leaving joint `name` (the first such), else the
    chain ending at it; None when the joint is in no chain."""
    for ch in rig.chains:
        if name in ch.joints[:-1]:
            return ch.name
    return next((ch.name for ch in rig.chains if name in ch.joints), None)
