"""The viewport's mouse and keys: handle drags (coalesced to one applied move per drawn
frame), camera gestures of the navigation preset, the numpad views, R to rotate the selected
joints, and Esc, which ends a drag for good until the buttons are let go.

A mixin of Viewport (view.py), which holds the state it reads and writes: `drag`, `rotate`,
`rings`, `gizmos`, `joint_tool`, `_gesture`, `_spent`, `_drag_pos`, `_apply_timer`.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt, QTimer

from . import navigation
from .gizmos import Handle

ORBIT_DEG_PER_PX = 0.5
ZOOM_PER_PX = 0.995  # a drag zoom: the distance shrinks by this per pixel right or up


class ViewInput:

    def handle_at(self, pos: QPointF) -> Handle | None:
        self._sync_if_pending()  # the handles where the document has them, drawn yet or not
        origin, direction = self.ray(pos)
        return self.gizmos.pick(origin, direction, self.pixel_size)

    def mousePressEvent(self, ev) -> None:  # noqa: N802
        pos = ev.position()
        self.mousePos = pos
        ev.accept()
        if self._spent and ev.buttons() == ev.button():
            self._spent = False  # the buttons were let go since Esc (a release seen elsewhere)
        if self.rotate.active:  # a left click confirms a rotation, a right one cancels it
            self.rotate.mouse_press(ev.button())
            self._spent = not self.rotate.active  # its release, and moves till then, do nothing
            return
        if self._spent or self.drag.active is not None or self._gesture is not None:
            return  # a second button during a drag or a camera move: ignored
        g = navigation.gesture(self.navigation, ev.button(), ev.modifiers())
        if g is not None:
            self._gesture = (g, ev.button())
            return
        # Ctrl+left picked no handle before (it panned); Shift+left does (the body handle's up and down).
        if ev.button() == Qt.MouseButton.LeftButton and not (ev.modifiers() & Qt.KeyboardModifier.ControlModifier):
            handle = self.handle_at(pos)
            if handle is not None:
                origin, direction = self.ray(pos)
                if self.drag.begin(handle, origin, direction, self.camera_forward()):
                    self.gizmos.active = handle
                    self.dragging.emit(True)
                    self.schedule_sync()
            elif self.joint_tool.press(pos, ev.modifiers()):
                self.request_frame()  # the dragged ring lights up

    def mouseMoveEvent(self, ev) -> None:  # noqa: N802
        pos = ev.position()
        ev.accept()
        if self.rotate.active:
            self.rotate.mouse_move(pos)
            self.mousePos = pos
            return
        if self.drag.active is not None:
            if ev.buttons() & Qt.MouseButton.LeftButton:
                if self._drag_pos is None:
                    if self._drawn_since_move or not self.isExposed():
                        QTimer.singleShot(0, self._apply_drag)
                    else:  # paintGL applies it once the last move's frame is drawn
                        self._apply_timer.start()
                self._drag_pos = QPointF(pos)
            self.mousePos = pos
            return
        diff = pos - self.mousePos
        self.mousePos = pos
        if self._spent:
            if ev.buttons() == Qt.MouseButton.NoButton:
                self._spent = False
            return
        if self._gesture is not None:
            if ev.buttons() & self._gesture[1]:
                self._navigate(self._gesture[0], diff.x(), diff.y())
                return
            self._gesture = None  # its release went elsewhere
        if ev.buttons() == Qt.MouseButton.NoButton:
            hover = self.handle_at(pos)
            ring = None if hover is not None else self.rings.pick(pos)
            if ring != self.rings.hover:
                self.rings.hover = ring
                self.request_frame()
            if hover != self.gizmos.hover:
                self.gizmos.hover = hover
                self.setCursor(Qt.CursorShape.OpenHandCursor if hover else Qt.CursorShape.ArrowCursor)
                self.handle_hovered.emit(hover)
                self.schedule_sync()

    def _navigate(self, gesture: str, dx: float, dy: float) -> None:
        if gesture == navigation.ORBIT:
            self.orbit(-dx * ORBIT_DEG_PER_PX, dy * ORBIT_DEG_PER_PX)
        elif gesture == navigation.PAN:
            self.pan(dx, dy, 0, relative="view")  # the scene follows the mouse, in the screen's plane
        else:
            self.opts["distance"] *= ZOOM_PER_PX ** (dx - dy)
            self.update()
        self._camera_moved = True

    def wheelEvent(self, ev) -> None:  # noqa: N802
        super().wheelEvent(ev)
        self._camera_moved = True

    @property
    def move_pending(self) -> bool:
        """A drag move not applied yet: it waits for the frame of the move before it."""
        return self._drag_pos is not None

    def _apply_drag(self) -> None:
        pos, self._drag_pos = self._drag_pos, None
        self._apply_timer.stop()
        if pos is not None and self.drag.active is not None:
            self._drawn_since_move = False
            self.drag.move(*self.ray(pos))

    def mouseReleaseEvent(self, ev) -> None:  # noqa: N802
        ev.accept()
        if self.rotate.active:  # a ring let go: the rotation it dragged is done
            self.rotate.mouse_release(ev.button())
            self.request_frame()
        if ev.buttons() == Qt.MouseButton.NoButton:
            self._spent = False
        if self._gesture is not None and ev.button() == self._gesture[1]:
            self._gesture = None
        if self.drag.active is not None and ev.button() == Qt.MouseButton.LeftButton:
            self._apply_drag()  # the release lands where the last move went
            self.drag.finish()
            self.gizmos.active = None
            self.dragging.emit(False)
            self.schedule_sync()

    def event(self, ev) -> bool:
        # The numpad is the viewport's own (navigation.numpad_command says why): claimed
        # before the window's shortcuts see it, so numpad 7 is not Home (Reset Camera).
        if ev.type() == QEvent.Type.ShortcutOverride and (
                navigation.numpad_command(ev.key(), ev.modifiers()) or self.rotate.active):
            ev.accept()  # a rotation owns the keyboard, as Blender's modal tools: no shortcut runs
            return True
        return super().event(ev)

    def keyPressEvent(self, ev) -> None:  # noqa: N802
        if ev.key() == Qt.Key.Key_Escape and self.drag.active is not None:
            self.cancel_drag()
            ev.accept()
            return
        if self.rotate.key(ev.key(), ev.modifiers()):
            ev.accept()
            self.request_frame()
            return
        if ev.key() == Qt.Key.Key_R and not ev.modifiers() and self.drag.active is None and self.doc.selected_joints:
            self.rotate.begin(self.mousePos)
            ev.accept()
            return
        command = navigation.numpad_command(ev.key(), ev.modifiers())
        if command is not None:  # before pyqtgraph, whose PageDown (numpad 3) would zoom
            ev.accept()
            if command == navigation.FRAME:
                self.frame_selected()
            else:
                self.view_from(command)
            return
        if ev.key() in self.noRepeatKeys:  # pyqtgraph's arrow keys orbit
            self._camera_moved = True
        super().keyPressEvent(ev)

    def keyReleaseEvent(self, ev) -> None:  # noqa: N802
        if navigation.numpad_command(ev.key(), ev.modifiers()) is None:
            super().keyReleaseEvent(ev)

    def cancel_drag(self) -> None:
        """Put the dragged handle back and end the drag for good: moving on with the button
        still held neither moves the handle nor the camera. A rotation in progress is
        cancelled too."""
        self.rotate.cancel()
        if self.drag.active is not None:
            self._drag_pos = None
            self._apply_timer.stop()
            self.drag.cancel()
            self.gizmos.active = None
            self._spent = True
            self.dragging.emit(False)
            self.schedule_sync()
