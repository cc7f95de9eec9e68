"""The document's body (the root joint), dragged by the body handle: `set_body_live` during a
drag, `edit_body` on release (one undo command), `restore_body_live` on Esc; a gait rig's
legs walk on after it (`step_gait`).

A mixin of Document (document.py), whose signals and rig it uses.
"""
from __future__ import annotations

import numpy as np

from .body import BodyState, apply_body, body_state, root_of
from .commands import MoveBodyCommand


class DocumentBody:

    def _root(self) -> int | None:
        return root_of(self._rig)

    def body_position(self) -> np.ndarray | None:
        """Where the body handle is at the current time: the hips in the animated pose (before
        any ground lowers them), or the animated root's translation for a rig without legs
        or whose root is the hips. Dragging it moves the root by as much."""
        j = self._root()
        if j is None:
            return None
        rig = self._rig
        hips = self._body_joint.of(rig)
        if hips is not None and hips != j:
            return rig.skeleton.fk_matrices(rig.animated_pose())[0][hips].copy()
        if rig.clip is None:
            return rig.skeleton.offsets[j].copy()
        return np.asarray(rig.clip.pose_at(rig.time).translations[j], dtype=np.float64)

    def body_state(self) -> BodyState:
        """What holds the body's position (the root's rest offset and clip path), copied."""
        return body_state(self._rig)

    def set_body_live(self, start: BodyState, delta) -> None:
        """Move the body by `delta` (metres) from `start` without an undo command (a drag)."""
        d = np.asarray(delta, dtype=np.float64)
        if d.shape != (3,) or not np.all(np.isfinite(d)):
            raise ValueError(f"body move must be a finite 3-vector, got {delta!r}")
        self._apply_body(BodyState(start.offset + d, None if start.path is None else start.path + d), replant=False)

    def restore_body_live(self, state: BodyState) -> None:
        """Put the body back (Esc during a drag); a gait's feet are planted afresh around it."""
        self._apply_body(state, replant=True)

    def edit_body(self, text: str, before: BodyState) -> bool:
        """One undo command for a body drag already applied live from `before`; False when
        the body did not move (nothing is pushed)."""
        after = self.body_state()
        if after.same_as(before):
            return False
        self.undo_stack.push(MoveBodyCommand(self, text, before, after))
        return True

    def _apply_body(self, state: BodyState, *, replant: bool) -> None:
        """Used by the drag and the undo commands. `replant`: the feet of a gait are put on
        their rest spots at once (undo, redo, cancel jump; only a drag walks)."""
        rig = self._rig
        apply_body(rig, state)
        self.body_goal = state
        if replant and rig.gait is not None:
            rig.gait = rig.gait  # a fresh gait run: the next advance plants every foot
            rig.advance_gait()
        self.body_changed.emit()
        self.goals_changed.emit()

    def step_gait(self, dt: float) -> bool:
        """Walk a gait rig's legs on by `dt` seconds toward where the body is now (the body
        handle's ticker calls this while the body is dragged and until the feet settle).
        Returns whether any leg target moved."""
        rig = self._rig
        if rig.gait is None:
            return False
        before = [tuple(rig.chain(leg).target) for leg in rig.gait.legs]
        rig.advance_gait(dt)
        moved = any(tuple(rig.chain(leg).target) != b for leg, b in zip(rig.gait.legs, before))
        if moved:
            self.goals_changed.emit()
        return moved
