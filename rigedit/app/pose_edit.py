"""Edits of the pose layer (issue 25) as undo commands, and the editor's ways into them.

A pose edit (Key pose, a pose key moved, deleted or re-eased, keys pasted, a pose pasted or
mirrored, a library pose applied) runs a function on the document's rig
(`Document.edit_pose`). What such an edit can change is the rig's pose layer (an immutable
value, core/pose_layer.py) and the timeline's tracks (Key pose keys every chain's goal and
weight too): `PoseState` holds both, taken before and after, and one `PoseEditCommand`
puts either back. The solver thread gets the layer with the goals (solver_thread.Goals).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

from rigedit import Rig
from rigedit.core.fk_limits import overruling_chain
from rigedit.core.pose_layer import PoseLayer
from rigedit.core.timeline import Track

if TYPE_CHECKING:
    from .document import Document


@dataclass(frozen=True)
class PoseState:
    """The rig's pose layer and the timeline's tracks (both immutable values)."""

    layer: PoseLayer
    tracks: dict[str, Track]

    @classmethod
    def of(cls, rig: Rig) -> "PoseState":
        return cls(rig.pose_layer, rig.timeline.tracks)

    def put(self, rig: Rig) -> None:
        rig.pose_layer = self.layer
        timeline = rig.timeline
        for chain in set(timeline.tracks) - set(self.tracks):
            timeline.set_track(chain, Track())
        for chain, track in self.tracks.items():
            timeline.set_track(chain, track)


class PoseEditCommand(QUndoCommand):
    """A pose edit: the PoseState before and after. The edit has already been made when the
    command is pushed; its first redo puts the same state again (and tells the views)."""

    def __init__(self, doc: "Document", text: str, before: PoseState, after: PoseState) -> None:
        super().__init__(text)
        self.doc = doc
        self.before = before
        self.after = after

    def redo(self) -> None:
        self.doc._apply_pose(self.after)

    def undo(self) -> None:
        self.doc._apply_pose(self.before)


def selected_joints(doc: "Document") -> tuple[str, ...]:
    """The joints selected in the viewport (the FK tools' selection)."""
    return tuple(doc.selected_joints)


def hidden_by_ik(rig: Rig, names) -> dict[str, str]:
    """The joints of `names` whose rotation an IK at weight 1 replaces (joint -> chain): a
    turn of theirs changes the FK pose underneath, kept on the pose layer (it shows as the
    weight is lowered, and Match IK to FK reads it), but nothing on screen."""
    over = {n: overruling_chain(rig, n) for n in names}
    return {n: ch.name for n, ch in over.items() if ch is not None and ch.weight >= 1.0}


def under_ik_tag(rig: Rig, names) -> str:
    """What an undo step's text adds when the edit turned joints an IK hides (hidden_by_ik):
    " (under IK)", or " (2 under IK)" when only some of them are; "" for none. Without it a
    step that changes nothing visible reads as a step that did nothing."""
    names = tuple(names)
    hidden = hidden_by_ik(rig, names)
    if not hidden:
        return ""
    return " (under IK)" if len(hidden) == len(names) else f" ({len(hidden)} under IK)"


def key_pose(doc: "Document") -> bool:
    """Key the selected joints (every joint when none is), with every chain's goal and
    weight, at the current time: one undo step. False when nothing changed."""
    joints = selected_joints(doc)
    what = f"{len(joints)} joint{'s' * (len(joints) != 1)}" if joints else "all joints"
    t = doc.rig.time
    return doc.edit_pose(f"Key pose ({what}) at {t:.3f} s", lambda rig: rig.key_pose(list(joints) or None))
