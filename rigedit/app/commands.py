"""Undo commands: an edit of a chain sets some of its settings; a body drag moves the root;
the full-body switch; an IK/FK match (a snapshot of what it changed, before and after);
a clip edit (a lint repair) swaps the clip; a new clip (a retarget) comes with its chains' settings;
an edit of the pose layer (a joint rotation) swaps the layer, an immutable value; a chain
added or removed swaps the whole rig."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from PySide6.QtGui import QUndoCommand

if TYPE_CHECKING:
    from .document import Document

_MERGE_ID = 4242  # QUndoCommand.id(): only commands with the same id are offered for merging


class EditChainCommand(QUndoCommand):
    """Set some fields of one chain's ChainSettings; undo puts the old values back.

    Only the changed fields are stored, so undoing one edit never rewinds a field another
    edit (or a live timeline) changed since. `keyed`, when given, is the auto-key of the edit
    (the timeline's key command): done after the fields and undone before them, in this one
    undo step, and merged along with them (a slider drag keys once).
    """

    def __init__(self, doc: "Document", chain: str, text: str, old: Mapping[str, Any], new: Mapping[str, Any],
                 merge_key: Any = None, solved_before=None, keyed: QUndoCommand | None = None) -> None:
        super().__init__(text)
        self.doc = doc
        self.chain = chain
        self.old = dict(old)
        self.new = dict(new)
        self.merge_key = merge_key
        # A full-body drag: the solve depends on where the body was, so undo puts back the
        # solution it started from (Rig.solved_state) as well as the goal.
        self.solved_before = solved_before
        self.keyed = keyed

    def redo(self) -> None:
        self.doc._apply_fields(self.chain, self.new)
        if self.keyed is not None:
            self.keyed.redo()

    def undo(self) -> None:
        if self.keyed is not None:
            self.keyed.undo()
        self.doc._apply_fields(self.chain, self.old)
        if self.solved_before is not None:
            self.doc.restore_solution(self.solved_before)

    def id(self) -> int:
        return _MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, EditChainCommand) or other.merge_key != self.merge_key or other.chain != self.chain:
            return False
        if set(other.new) != set(self.new) or (self.keyed is None) != (other.keyed is None):
            return False
        if self.keyed is not None and not self.keyed.mergeWith(other.keyed):
            return False
        self.new = dict(other.new)
        return True


class MoveBodyCommand(QUndoCommand):
    """A body drag: the root's position before and after (body.BodyState). The drag has
    already put the body where it ends, with the legs walked there, so the first redo (Qt
    runs it on push) leaves everything as it is; later ones jump and replant the feet."""

    def __init__(self, doc: "Document", text: str, old, new) -> None:
        super().__init__(text)
        self.doc = doc
        self.old = old
        self.new = new
        self._pushed = False

    def redo(self) -> None:
        if self._pushed:
            self.doc._apply_body(self.new, replant=True)
        self._pushed = True

    def undo(self) -> None:
        self.doc._apply_body(self.old, replant=True)


class SetFullBodyCommand(QUndoCommand):
    """Turn the rig's full-body solve on or off."""

    def __init__(self, doc: "Document", on: bool) -> None:
        super().__init__("Full-body IK on" if on else "Full-body IK off")
        self.doc = doc
        self.on = on

    def redo(self) -> None:
        self.doc._apply_full_body(self.on)

    def undo(self) -> None:
        self.doc._apply_full_body(not self.on)


class MatchCommand(QUndoCommand):
    """An IK/FK match or switch: the chains' settings, the animated frame and the solved
    state before and after (Document.snapshot). Redo on push puts back what is already there."""

    def __init__(self, doc: "Document", text: str, before, after) -> None:
        super().__init__(text)
        self.doc = doc
        self.before = before
        self.after = after

    def redo(self) -> None:
        self.doc._apply_snapshot(self.after)

    def undo(self) -> None:
        self.doc._apply_snapshot(self.before)


class EditClipCommand(QUndoCommand):
    """The clip under the IK replaced by an edited one (a lint repair). Clips are swapped,
    not copied: undo puts the very arrays back, so the clip is restored exactly."""

    def __init__(self, doc: "Document", text: str, old, new) -> None:
        super().__init__(text)
        self.doc = doc
        self.old = old
        self.new = new

    def redo(self) -> None:
        self.doc._apply_clip(self.new)

    def undo(self) -> None:
        self.doc._apply_clip(self.old)


class NewClipCommand(QUndoCommand):
    """A new clip under the IK (any length, unlike a lint repair's EditClipCommand) with the
    chains' settings that go with it; undo restores both, whether the old clip was the
    preset's own, and the timeline's frame rate and range (the timeline dock fits them to a
    new clip; with no clip to fit to, undo would leave the new clip's)."""

    def __init__(self, doc: "Document", text: str, clip, chains: dict) -> None:
        super().__init__(text)
        self.doc = doc
        rig = doc.rig
        self.old = (rig.clip, {name: rig.chain(name).settings() for name in chains}, getattr(rig, "clip_in_preset", False))
        self.new = (clip, dict(chains), False)
        tl = rig.timeline
        self.old_span = (tl.frame_rate, tl.start, tl.end)
        # The solution shown before: a FABRIK chain's pose depends on the path its drags took,
        # so undo goes on from it rather than from rest.
        self.old_solved = rig.solved_state()

    def redo(self) -> None:
        self.doc.replace_clip(*self.new)

    def undo(self) -> None:
        tl = self.doc.rig.timeline
        tl.frame_rate = self.old_span[0]
        tl.set_range(*self.old_span[1:])
        self.doc.replace_clip(*self.old)
        self.doc.restore_solution(self.old_solved)


class RigEditCommand(QUndoCommand):
    """A chain added or removed (chain_edit.py): the rig before and the rig after are whole
    Rig objects, swapped in and out. The commands above it on the stack name chains, not
    objects, so they act on whichever rig is current, and each is undone before this is."""

    def __init__(self, doc: "Document", text: str, before, after, selected: str, select: str) -> None:
        super().__init__(text)
        self.doc = doc
        self.before, self.after = before, after
        self.selected, self.select = selected, select

    def redo(self) -> None:
        self.doc.put_rig(self.after, self.select or self.selected)

    def undo(self) -> None:
        self.doc.put_rig(self.before, self.selected)
