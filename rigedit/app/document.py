"""The editable state behind the window: the rig, its file, the selected chain, the undo stack.

Views listen to the signals and never change the rig themselves: every edit goes through
`edit_chain` (an undo command) or, for the live part of a drag, `set_chain_live` (no command;
the drag pushes one command when the mouse is released). Whatever changes what the solver must
solve emits `goals_changed`; the solver thread picks up the newest goals from `goals()`.

Pose layer edits (issue 25: Key pose, pose keys moved or deleted, a pasted, mirrored or
library pose) go through `edit_pose(text, change)`: one command holding the layer and the
timeline's tracks before and after (pose_edit.py); `layer_changed` tells the views.

A chain added or removed (chain_edit.py) is `edit_rig`: one command swapping whole Rig
objects, so the views rebuild as for another rig (`rig_replaced`) while the file, the
camera and the history stay (`rig_opened` is File > New/Open's alone).

The rig-level full-body switch is `set_full_body` (an undo command), and IK/FK matching is
`match` (one command holding a snapshot of what it changed). A state the solver thread
cannot reach through the goals (a saved solution put back, an edited animated frame) goes to
it as a fresh copy of the rig (`restart_solver`).

Joints are selected apart from the chain (`selected_joints`, `joints_selected`: clicked
bones). Their rotations are edits of the rig's pose layer (issue 25): `set_rotations_live`
during a rotation, `edit_layer` on confirm (one undo command swapping the immutable
PoseLayer values), `restore_layer_live` on cancel; the solver thread gets the layer with the
goals (Goals.layer), as it gets the body.

The body (the root joint) is moved the same way: `set_body_live` during a drag, `edit_body`
on release. Its position is the root's translation, the skeleton's rest offset and, under a
clip, every frame of the clip's root path shifted alike, so saving keeps it (body.py). The
goals carry the newest BodyState (`body_goal`), so the solver thread moves its own rig's body
with them instead of being handed a fresh copy of the rig per mouse move.

The body (document_body.py) and the pose layer (document_layer.py) are Document's mixins.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from rigedit import ChainReport, ChainSettings, Rig
from rigedit.core import rig_match

from .body import BodyJoint, BodyState
from .commands import EditChainCommand, EditClipCommand, MatchCommand, RigEditCommand, SetFullBodyCommand
from .document_body import DocumentBody
from .document_layer import DocumentLayer

# IK/FK matching (core/rig_match.py): what each of the dock's buttons does, by name.
MATCHES = {
    "ik_to_fk": ("Match IK to FK", lambda rig, chain: rig.match_ik_to_fk(chain)),
    "fk_to_ik": ("Match FK to IK", lambda rig, chain: rig.match_fk_to_ik(chain)),
    "switch": ("Switch IK/FK", rig_match.switch_ik_fk),
}


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """What an IK/FK match may change: every chain's settings, the animated frame it writes
    and the solved state (warm starts) the solver goes on from."""

    settings: dict
    frame: rig_match.AnimatedFrame
    solved: object  # rigedit.core.rig_pose.SolvedPose


def _off() -> bool:
    return False


class Document(DocumentBody, DocumentLayer, QObject):
    rig_replaced = Signal()  # another Rig object (File > New/Open, a chain added or removed); everything is rebuilt
    rig_opened = Signal()  # a new rig from a file or the bundled ones (after rig_replaced): the camera frames it
    chain_changed = Signal(str)  # a chain's settings changed (name)
    selection_changed = Signal(str)  # the selected chain ("" for none)
    joints_selected = Signal(tuple)  # the selected joints' names (selected_joints), the active one last
    layer_changed = Signal()  # the pose layer (or the timeline's tracks with it) was edited or put back
    pose_changed = Signal()  # the solver handed a pose back
    goals_changed = Signal()  # the solver has something new to solve
    path_changed = Signal()
    modified_changed = Signal(bool)
    animation_changed = Signal()  # a new clip (the solver needs a fresh rig copy)
    # The clip's frames edited, its length and rate kept (a lint repair, its undo): the solver
    # needs a fresh rig copy, the timeline keeps its range.
    clip_edited = Signal()
    body_changed = Signal()  # the body (root joint) moved
    time_changed = Signal(float)
    full_body_changed = Signal(bool)
    restart_solver = Signal()  # the solver thread needs a fresh copy of the rig

    def __init__(self, rig: Rig, path: str | Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self._rig = rig
        self._body_joint = BodyJoint()  # where the body handle sits, found once per skeleton
        self._path = Path(path) if path else None
        self._selected = rig.chain_names[0] if rig.chain_names else ""
        self._selected_joints: tuple[str, ...] = ()
        self.reports: dict[str, ChainReport] = {}
        self.errors: dict[str, tuple[float, ...]] = {}  # FABRIK tip error per iteration, last solve
        self.generation = 0  # bumped with every new rig, so stale solver results are ignored
        # The body the solver's rig copy must take (None: the copy it was handed has it).
        self.body_goal: BodyState | None = None
        self._remembered_poles: dict[str, tuple[float, float, float]] = {}
        self._restored = False  # holds changes from a recovery file that no undo step knows
        # The character's mesh (core.mesh.Mesh) bound to this rig's skeleton, when it was
        # imported from a glTF file; the viewport draws it posed (issue 15).
        self.mesh = None
        # Auto-key (the timeline dock sets it): keyer(chain, old, new) hands back the command
        # keying an edit's new values at the playhead, or None; edit_chain makes it part of
        # the edit's undo step, so every field and drag keys alike.
        self.keyer: Callable[[str, Mapping[str, Any], Mapping[str, Any]], QUndoCommand | None] | None = None
        # Whether Auto-key is on, for edits that are not a chain's (a joint's rotation).
        self.auto_keying: Callable[[], bool] = _off
        # A method, not a lambda: Qt drops it when this object goes, before the stack does.
        self.undo_stack.cleanChanged.connect(self._clean_changed)

    # --- the rig and its file -------------------------------------------------------------

    @property
    def rig(self) -> Rig:
        return self._rig

    @property
    def path(self) -> Path | None:
        return self._path

    @path.setter
    def path(self, value: str | Path | None) -> None:
        self._path = Path(value) if value else None
        self.path_changed.emit()

    def replace_rig(self, rig: Rig, path: str | Path | None, mesh=None) -> None:
        """Edit another rig from now on; the undo history belongs to the old one and goes.
        `mesh`: the character's mesh bound to rig's skeleton (None: bones only)."""
        self.undo_stack.clear()
        self._rig = rig
        self.mesh = mesh
        self._path = Path(path) if path else None
        self._selected = rig.chain_names[0] if rig.chain_names else ""
        self.reports = {}
        self.errors = {}
        self._remembered_poles = {}
        self.generation += 1
        self.body_goal = None
        self._restored = False
        self.undo_stack.setClean()
        self.rig_replaced.emit()
        self.modified_changed.emit(self.modified)
        self.path_changed.emit()
        self.selection_changed.emit(self._selected)
        self._selected_joints = ()
        self.joints_selected.emit(())
        self.goals_changed.emit()
        self.rig_opened.emit()

    def edit_rig(self, text: str, rig: Rig, select: str = "") -> None:
        """Edit `rig` from now on as one undo step (a chain added or removed: Rig objects are
        swapped whole, so undo gives back the very rig, its keys, warm starts and solution).
        `select`: the chain to select in it (default: the selected one where it still is)."""
        self.undo_stack.push(RigEditCommand(self, text, self._rig, rig, self._selected, select))

    def put_rig(self, rig: Rig, select: str) -> None:
        """RigEditCommand's swap: the same character, so the file, mesh, history, joint
        selection and camera stay."""
        self._rig = rig
        self._selected = select if select in rig.chain_names else (rig.chain_names[0] if rig.chain_names else "")
        self.reports = {}
        self.errors = {}
        self.generation += 1
        self.body_goal = None
        self.rig_replaced.emit()
        self.selection_changed.emit(self._selected)
        self.goals_changed.emit()

    @property
    def modified(self) -> bool:
        return self._restored or not self.undo_stack.isClean()

    def _clean_changed(self, clean: bool) -> None:
        self.modified_changed.emit(self._restored or not clean)

    def mark_saved(self) -> None:
        self._restored = False
        self.undo_stack.setClean()
        self.modified_changed.emit(self.modified)

    def mark_restored(self) -> None:
        """The rig came from a recovery file: unsaved, though nothing is on the undo stack."""
        self._restored = True
        self.modified_changed.emit(True)

    # --- animation under the IK (the timeline drives these) -------------------------------

    def set_time(self, seconds: float) -> None:
        self._rig.time = seconds
        # --- issue 8 (INTEGRATION): a creature's legs step as the played body moves
        if getattr(self._rig, "gait", None) is not None:
            self._rig.advance_gait()  # sets the legs' targets; the solver thread solves them
        # --- end issue 8
        self.time_changed.emit(self._rig.time)
        self.goals_changed.emit()

    def set_clip(self, clip) -> None:
        """Put an animation clip (or None) under the IK."""
        self._rig.clip = clip
        self.body_goal = None  # the fresh rig copy the solver is handed has the body
        self.animation_changed.emit()
        self.goals_changed.emit()

    def replace_clip(self, clip, chains, in_preset: bool = False) -> None:
        """Used by the undo command of a new clip of any length (a retarget's,
        app/retarget_action.py): the clip, the chain settings that go with it ({name:
        ChainSettings}), and whether the clip is the preset's own (saved inside it)."""
        for name, settings in chains.items():
            self._rig.chain(name).apply(settings)
            self.chain_changed.emit(name)
        # The chains' last solutions were of the other clip's goals: no warm start for this
        # one (a solve from them can take more than one frame to settle back).
        self._rig.reset()
        self.set_clip(clip)
        self._rig.clip_in_preset = in_preset

    def edit_clip(self, text: str, clip) -> None:
        """One undoable replacement of the clip under the IK by an edit of it (a lint
        repair: the same joints, frames and rate); ValueError otherwise, before anything is pushed."""
        old = self._rig.clip
        if old is None or clip.rotations.shape != old.rotations.shape or clip.frame_time != old.frame_time:
            raise ValueError("an edited clip must keep the clip's joints, frames and frame rate")
        self.undo_stack.push(EditClipCommand(self, text, old, clip))

    def _apply_clip(self, clip) -> None:
        """Used by the undo command: unlike set_clip, a preset's own clip stays its own."""
        own = getattr(self._rig, "clip_in_preset", False)
        self._rig.clip = clip
        self._rig.clip_in_preset = own
        self.body_goal = None  # the fresh rig copy the solver is handed has the body
        self.clip_edited.emit()
        self.goals_changed.emit()

    # --- selection ------------------------------------------------------------------------

    @property
    def selected(self) -> str:
        return self._selected

    def select(self, chain: str) -> None:
        if chain and chain not in self._rig.chain_names:
            raise KeyError(f"no chain named {chain!r}")
        if chain != self._selected:
            self._selected = chain
            self.selection_changed.emit(chain)
            self.goals_changed.emit()  # the worker reports the selected chain's error curve

    @property
    def selected_joints(self) -> tuple[str, ...]:
        """The selected joints (clicked bones), the active one (the rotate gizmo's) last."""
        return self._selected_joints

    def select_joints(self, names) -> None:
        names = tuple(dict.fromkeys(names))
        known = set(self._rig.skeleton.names)
        for n in names:
            if n not in known:
                raise KeyError(f"no joint named {n!r}")
        if names != self._selected_joints:
            self._selected_joints = names
            self.joints_selected.emit(names)

    # --- edits ----------------------------------------------------------------------------

    def settings(self, chain: str) -> ChainSettings:
        return self._rig.chain(chain).settings()

    def set_chain_live(self, chain: str, **changes: Any) -> None:
        """Change settings now without an undo command (a drag in progress, a cancel)."""
        ch = self._rig.chain(chain)
        new = dataclasses.replace(ch.settings(), **_as_offsets(ch, _normalised(changes)))
        if new != ch.settings():
            ch.apply(new)
            self.chain_changed.emit(chain)
            self.goals_changed.emit()

    def edit_chain(self, chain: str, text: str, changes: Mapping[str, Any], *, before: Mapping[str, Any] | None = None,
                   merge_key: Any = None, solved_before=None) -> bool:
        """One undoable edit of some of a chain's settings. Invalid values raise ValueError
        (naming the chain and the field) and change nothing. `before` gives the values to go
        back to when they were already applied live (a drag); `merge_key`, when not None,
        merges successive edits with the same key into one command (a slider drag);
        `solved_before`, a solved state that undo puts back too (a full-body drag).
        Returns False when nothing would change (no command is pushed)."""
        ch = self._rig.chain(chain)
        changes = _as_offsets(ch, _normalised(changes))
        current = ch.settings()
        old = {k: getattr(current, k) for k in changes} if before is None else _normalised(before)
        dataclasses.replace(current, **changes)  # field names checked here
        if all(old[k] == changes[k] for k in changes):
            return False
        probe = ch.copy()
        probe.apply(dataclasses.replace(current, **changes))  # validates; raises before any push
        keyed = self.keyer(chain, old, changes) if self.keyer is not None else None
        self.undo_stack.push(EditChainCommand(self, chain, f"{text}, keyed" if keyed else text, old, changes,
                                              merge_key, solved_before, keyed))
        return True

    def _apply_fields(self, chain: str, fields: Mapping[str, Any]) -> None:
        """Used by the undo commands."""
        ch = self._rig.chain(chain)
        ch.apply(dataclasses.replace(ch.settings(), **fields))
        self.chain_changed.emit(chain)
        self.goals_changed.emit()

    def remember_pole(self, chain: str, pole) -> None:
        if pole is not None:
            self._remembered_poles[chain] = tuple(float(v) for v in pole)

    def remembered_pole(self, chain: str):
        return self._remembered_poles.get(chain)

    # --- full body and IK/FK matching (issue 16) ------------------------------------------------

    def set_full_body(self, on: bool) -> bool:
        """One undoable switch of the rig's full-body solve; False when it already is so."""
        if bool(on) == self._rig.full_body:
            return False
        self.undo_stack.push(SetFullBodyCommand(self, bool(on)))
        return True

    def _apply_full_body(self, on: bool) -> None:
        self._rig.full_body = on
        self.full_body_changed.emit(on)
        self.goals_changed.emit()

    def restore_solution(self, solved) -> None:
        """Go on from a solved state taken earlier (Rig.solved_state): an Esc or an undo of
        a full-body drag shows the pose it started from, not a fresh solve of its goals."""
        self._rig.restore_state(solved, solve=False)
        self.body_goal = None  # the copy the solver is handed has the body
        self.restart_solver.emit()  # the window posts the copy, then the goals

    def snapshot(self) -> Snapshot:
        rig = self._rig
        return Snapshot(self.goals(), rig_match.read_animated_frame(rig), rig.solved_state())

    def match(self, kind: str, chain: str | None = None) -> bool:
        """IK/FK matching as one undo command: kind "ik_to_fk", "fk_to_ik" or "switch" (MATCHES),
        of one chain or (None) the whole body. False when there is nothing to match."""
        text, run = MATCHES[kind]
        rig = self._rig
        if not any(rig.chain(n).kind.reaches for n in ([chain] if chain else rig.chain_names)):
            return False
        before = self.snapshot()
        run(rig, chain)
        after = self.snapshot()
        self.undo_stack.push(MatchCommand(self, f"{text} ({chain or 'whole body'})", before, after))
        return True

    def _apply_snapshot(self, snap: Snapshot) -> None:
        rig = self._rig
        frame = rig_match.read_animated_frame(rig)
        new_frame = snap.frame
        if not (frame.frame == new_frame.frame and np.array_equal(frame.rotations, new_frame.rotations)
                and np.array_equal(frame.translations, new_frame.translations)):
            rig_match.write_animated_frame(rig, new_frame)
            self.body_changed.emit()
        changed = []
        for name, settings in snap.settings.items():
            ch = rig.chain(name)
            if ch.settings() != settings:
                ch.apply(settings)
                changed.append(name)
        for name in changed:
            self.chain_changed.emit(name)
        self.restore_solution(snap.solved)

    # --- solver results -------------------------------------------------------------------

    def goals(self) -> dict[str, ChainSettings]:
        return {name: self._rig.chain(name).settings() for name in self._rig.chain_names}

    def apply_solution(self, generation: int, pose, reports: Mapping[str, ChainReport],
                       errors: Mapping[str, tuple[float, ...]], solved=None) -> bool:
        """Adopt a pose the solver thread handed back; False when it was for an older rig.
        `solved` (Rig.solved_state of the solver's rig) goes with it, so the rig saved is
        the rig shown: a file keeps the warm starts that pose came from."""
        if generation != self.generation:
            return False
        if solved is not None:
            self._rig.restore_state(solved, solve=False)
        self._rig.pose = pose
        self.reports = dict(reports)
        self.errors.update(errors)
        self.pose_changed.emit()
        return True


def _as_offsets(ch, changes: dict[str, Any]) -> dict[str, Any]:
    """A new world goal for a chain following the clip is an offset keyed at the rig's
    time (core/clip_goals.py): its target is the animated tip plus its offset curve."""
    if "target" in changes and ch.following:
        changes = dict(changes)
        goal = changes.pop("target")
        if goal != tuple(float(v) for v in ch.target):  # the goal it has: no key to add
            changes["offset_keys"] = ch.keys_for_goal(goal)
    return changes


def _normalised(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Vectors as plain float tuples and limits as a sorted tuple, as ChainSettings holds them,
    so an unchanged value compares equal and undo restores exactly what was there."""
    out = dict(changes)
    for key in ("target", "pole"):
        if key in out and out[key] is not None:
            out[key] = tuple(float(v) for v in out[key])
    if "limits" in out:
        lim = out["limits"]
        items = lim.items() if isinstance(lim, Mapping) else lim
        out["limits"] = tuple(sorted(items))
    return out
