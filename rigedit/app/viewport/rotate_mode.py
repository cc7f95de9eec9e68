"""Rotating the selected joints, as Blender's R: a modal state between the viewport's mouse
and keys and the document's pose layer.

R starts it (the viewport focused, joints selected); the mouse turns them like a trackball.
X / Y / Z constrain the turn to that global axis, a second press of the same key to the
joint's local axis, a third frees it again; then the mouse sweeps the angle about the
joint's place on screen. Digits, "-" and "." type an exact angle in degrees (about the
axis, or the view's without one; Backspace edits it). Enter or a left click confirms (one
undo step; for joints an IK at weight 1 overrules its text says "(under IK)": the turn is
kept on the FK pose the IK hides, and `rotated` says so on the status bar); Esc or a right click cancels, putting the pose layer and the solution back
exactly. Dragging a ring of the rotate gizmo (rotate_gizmo.py) runs the same state with the
ring's axis, confirmed on release.

Each change goes to the document live (`set_rotations_live`, no undo command), through the
solver thread like a dragged goal; `text()` is what the status line shows meanwhile.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, Qt

from rigedit.core.fk_limits import joint_limit, overruling_chain

from ..pose_edit import hidden_by_ik, under_ik_tag
from . import camera
from .rotate_math import AXIS_NAMES, axis_turn, swept_angle, turned_locals, world_axis

TRACKBALL_DEG_PER_PX = 0.5
_K = Qt.Key
AXIS_KEYS = {_K.Key_X: 0, _K.Key_Y: 1, _K.Key_Z: 2}
DIGIT_KEYS = {getattr(_K, f"Key_{d}"): str(d) for d in range(10)}
CONFIRM_KEYS = {_K.Key_Return, _K.Key_Enter}
_HELD = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
# Help > Keyboard Shortcuts' rows for selecting and rotating joints (help_menu.py).
HELP_ROWS = (
    ("Left click on a bone", "select its joint (the bone's white); on empty space: clear the selection"),
    ("Shift+left click on a bone", "add its joint to the selection, or take it out"),
    ("R", "rotate the selected joints: the mouse turns them as a trackball"),
    ("X, Y, Z (rotating)", "rotate about that global axis; the same key again: the joint's own axis"),
    ("0-9, -, . (rotating)", "type the angle in degrees (- flips the sign, Backspace edits)"),
    ("Enter or left click (rotating)", "confirm the rotation (one undo step)"),
    ("Esc or right click (rotating)", "cancel the rotation: the pose goes back"),
    ("Left-drag a gizmo ring", "rotate the selected joints about its axis (X red, Y green, Z blue, white: the view's)"),
)
VIEW = "view"  # the axis of a turn about the line of sight (the view ring, a typed angle alone)


@dataclass
class Rotation:
    names: list[str]
    joints: list[int]
    start_pose: object  # core.skeleton.Pose shown when it began
    start_layer: object  # the pose layer then (what cancel and undo put back)
    start_solved: object  # the solved state then (Rig.solved_state), for an exact cancel
    limits: dict
    pivot: np.ndarray  # the active (last selected) joint's world position
    mouse: tuple[float, float]  # where the mouse was when it began
    last: tuple[float, float]
    axis: tuple[str, int] | None = None  # ("global" | "local", 0..2), (VIEW, -1) or None (trackball)
    by_ring: bool = False
    swept: float = 0.0  # counter-clockwise screen angle the mouse went round the pivot (radians)
    typed: str = ""
    angle: float = 0.0  # the turn now (radians), for the status line
    overruled: str = ""  # what the status line says of an IK that overrules the turn


class RotateMode:
    def __init__(self, view) -> None:  # view: the Viewport
        self.view = view
        self.doc = view.doc
        self.state: Rotation | None = None

    @property
    def active(self) -> bool:
        return self.state is not None

    def begin(self, pos: QPointF, axis: tuple[str, int] | None = None, by_ring: bool = False) -> bool:
        doc = self.doc
        names = list(doc.selected_joints)
        if not names or self.state is not None:
            return False
        rig = doc.rig
        sk = rig.skeleton
        joints = [sk.index(n) for n in names]
        limits = {j: jl for j, n in zip(joints, names) if (jl := joint_limit(rig, n)) is not None}
        mouse = (pos.x(), pos.y())
        self.state = Rotation(names, joints, rig.pose.copy(), doc.layer_snapshot(), rig.solved_state(), limits,
                              rig.world_positions()[joints[-1]].copy(), mouse, mouse, axis, by_ring)
        over = {c.name: c.weight for n in names if (c := overruling_chain(rig, n)) is not None}
        if over:
            self.state.overruled = "   (the IK of " + ", ".join(f"{c} at weight {w:.2f}" for c, w in over.items()) + \
                " overrules this: weight 0 or Match FK to IK in the dock)"
        self.view.rotating.emit(self.text())
        return True

    # --- input ---------------------------------------------------------------------------

    def key(self, key: int, modifiers=Qt.KeyboardModifier.NoModifier) -> bool:
        """A key press during the rotation; True when the mode took it. Keys held with Ctrl,
        Alt or Meta are not the mode's (nor anything else's while it runs: view.py)."""
        s = self.state
        if s is None:
            return False
        if modifiers & _HELD:
            return True
        if key == _K.Key_Escape:
            self.cancel()
        elif key in CONFIRM_KEYS:
            self.confirm()
        elif key in AXIS_KEYS:
            s.axis = _next_axis(s.axis, AXIS_KEYS[key])
            # About the new axis the angle is the mouse's from where it began (as Blender's).
            s.swept = swept_angle(self._centre(), s.mouse, s.last)
            self._apply()
        elif key == _K.Key_R:
            s.axis = None
            self._apply()
        elif key in DIGIT_KEYS or key in (_K.Key_Period, _K.Key_Comma, _K.Key_Minus, _K.Key_Backspace):
            s.typed = _edit_number(s.typed, key)
            self._apply()
        else:
            return False
        return True

    def mouse_move(self, pos: QPointF) -> None:
        s = self.state
        if s is None:
            return
        here = (pos.x(), pos.y())
        centre = self._centre()
        s.swept += swept_angle(centre, s.last, here)
        s.last = here
        if not s.typed:
            self._apply()

    def mouse_press(self, button: Qt.MouseButton) -> None:
        if button == Qt.MouseButton.RightButton:
            self.cancel()
        elif button == Qt.MouseButton.LeftButton and not (self.state and self.state.by_ring):
            self.confirm()

    def mouse_release(self, button: Qt.MouseButton) -> None:
        if button == Qt.MouseButton.LeftButton and self.state is not None and self.state.by_ring:
            self.confirm()

    # --- ending ----------------------------------------------------------------------------

    def confirm(self) -> bool:
        """End it keeping the turn: one undo step (none when nothing turned)."""
        s, self.state = self.state, None
        if s is None:
            return False
        self.view.rotating.emit("")
        what = s.names[0] if len(s.names) == 1 else f"{len(s.names)} joints"
        rig = self.doc.rig
        text = f"Rotate {what}{under_ik_tag(rig, s.names)}"
        done = self.doc.edit_layer(text, s.start_layer, tuple(s.names))
        hidden = hidden_by_ik(rig, s.names)
        if done and hidden:  # a step with nothing to see: say where the turn went
            chains = ", ".join(sorted(set(hidden.values())))
            self.view.rotated.emit(f"{text}: kept on the FK pose under the IK of {chains} at weight 1, "
                                   "so nothing moves; it shows as the weight is lowered (Ctrl+Z takes it back)")
        return done

    def cancel(self) -> None:
        """End it putting back the pose layer and the solution it began from."""
        s, self.state = self.state, None
        if s is None:
            return
        self.view.rotating.emit("")
        self.doc.restore_layer_live(s.start_layer, s.start_solved)

    # --- the turn --------------------------------------------------------------------------

    def _centre(self) -> tuple[float, float]:
        p = self.view.world_to_screen(self.state.pivot)
        return p.x(), p.y()

    def _apply(self) -> None:
        s = self.state
        turns, s.angle = self._turns()
        sk = self.doc.rig.skeleton
        new = turned_locals(sk, s.start_pose, s.joints, turns, s.limits)
        self.doc.set_rotations_live({sk.names[j]: q for j, q in new.items()})
        self.view.rotating.emit(self.text())

    def _turns(self) -> tuple[list[np.ndarray], float]:
        s = self.state
        view, _ = self.view.matrices()
        toward = -camera.camera_forward(view)
        number = _number(s.typed)
        if s.axis is None and number is None:  # the trackball: the mouse's offset is the turn
            right, up = camera.camera_right_up(view)
            vec = ((s.last[0] - s.mouse[0]) * up + (s.last[1] - s.mouse[1]) * right) * math.radians(TRACKBALL_DEG_PER_PX)
            angle = float(np.linalg.norm(vec))
            turn = axis_turn(vec / angle, angle) if angle > 0.0 else np.array([0.0, 0.0, 0.0, 1.0])
            return [turn] * len(s.joints), angle
        kind, k = s.axis if s.axis is not None else (VIEW, -1)
        if kind == VIEW:
            axes = [toward] * len(s.joints)
        else:
            axes = [world_axis(self.doc.rig.skeleton, s.start_pose, j, k, kind == "local") for j in s.joints]
        if number is not None:
            angle = math.radians(number)
        else:  # the mouse's sweep, turning the way it goes round on screen
            angle = s.swept if float(axes[-1] @ toward) >= 0.0 else -s.swept
        return [axis_turn(a, angle) for a in axes], angle

    def text(self) -> str:
        s = self.state
        if s is None:
            return ""
        what = s.names[0] if len(s.names) == 1 else f"{len(s.names)} joints"
        if s.axis is None and not s.typed:
            about = "trackball (X / Y / Z: an axis)"
        elif s.axis is None or s.axis[0] == VIEW:
            about = "the view axis"
        else:
            about = f"{s.axis[0]} {AXIS_NAMES[s.axis[1]]}"
        typed = f"  [typed {s.typed}]" if s.typed else ""
        return (f"Rotate {what}: {math.degrees(s.angle):.2f}° about {about}{typed}   "
                f"Enter / click: confirm, Esc / right-click: cancel{s.overruled}")


def _next_axis(axis, k: int):
    """X, X again, X a third time: global X, local X, free (Blender's order)."""
    if axis == ("global", k):
        return ("local", k)
    if axis == ("local", k):
        return None
    return ("global", k)


def _edit_number(typed: str, key: int) -> str:
    if key == _K.Key_Backspace:
        return typed[:-1]
    if key == _K.Key_Minus:  # toggles the sign, wherever the cursor is
        return typed[1:] if typed.startswith("-") else "-" + typed
    if key in (_K.Key_Period, _K.Key_Comma):
        return typed if "." in typed else typed + "."
    return typed + DIGIT_KEYS[key]


def _number(typed: str) -> float | None:
    try:
        return float(typed)
    except ValueError:
        return None
