"""The document's pose layer (FK rotations, issue 25): the selected joints' rotations live
during a rotation (`set_rotations_live`), put back on cancel (`restore_layer_live`), and every
layer edit (a rotation confirmed, Key pose, a pasted, mirrored or library pose) as one undo
step through `edit_pose`, which holds the layer and the timeline's tracks before and after.

A mixin of Document (document.py), whose signals, rig and undo stack it uses.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from rigedit import Rig

from .pose_edit import PoseEditCommand, PoseState


class DocumentLayer:

    def layer_snapshot(self):
        """The pose layer now (an immutable value: what undo and cancel put back)."""
        return self._rig.pose_layer

    def set_rotations_live(self, rotations: Mapping[str, Any]) -> None:
        """Shown local rotations (before the IK) on the pose layer, without an undo command
        (a rotation in progress); the solver thread gets the layer with the goals."""
        for name, q in rotations.items():
            self._rig.set_rotation(name, q)
        self._layer_edited()

    def restore_layer_live(self, layer, solved=None) -> None:
        """Put a pose layer back without an undo command (a cancelled rotation); `solved`
        (Rig.solved_state), when given, is the solution to go on from, so the pose shown is
        the one before exactly, not a fresh solve from another warm start."""
        self._rig.pose_layer = layer
        self._layer_edited()
        if solved is not None:
            self.restore_solution(solved)

    def edit_layer(self, text: str, before, joints: tuple[str, ...] = ()) -> bool:
        """One undo step for a pose-layer edit already applied live from the layer `before`
        (a rotation, a Joint field); with Auto-key on, `joints` are keyed at the playhead in
        the same step. False when nothing changed (nothing is pushed)."""
        def key(rig: Rig) -> None:
            if joints and self.auto_keying():
                rig.key_pose(list(joints), chains=False)

        return self.edit_pose(text, key, before=PoseState(before, self._rig.timeline.tracks))

    def _layer_edited(self) -> None:
        self.layer_changed.emit()
        self.goals_changed.emit()


    def edit_pose(self, text: str, change: Callable[[Rig], Any], *, before: PoseState | None = None) -> bool:
        """One undoable edit of the pose layer (and the timeline's tracks): `change(rig)` makes
        it on the rig (Rig.key_pose, paste_pose, ...). `before`, when the edit was already
        applied live (a drag), is the state undo goes back to. An error from `change` puts
        the state back and is raised. Returns False when nothing changed (no command)."""
        start = PoseState.of(self._rig) if before is None else before
        try:
            change(self._rig)
        except Exception:
            start.put(self._rig)
            self._pose_edited()
            raise
        after = PoseState.of(self._rig)
        if after == start:
            return False
        self.undo_stack.push(PoseEditCommand(self, text, start, after))
        return True

    def _apply_pose(self, state: PoseState) -> None:
        """Used by the undo command."""
        state.put(self._rig)
        self._pose_edited()

    def _pose_edited(self) -> None:
        self.layer_changed.emit()
        self.goals_changed.emit()  # the layer goes to the solver thread with the goals
