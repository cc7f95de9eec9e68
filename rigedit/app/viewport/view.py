"""The 3D viewport: pyqtgraph's GL view showing the document's rig, with handles to drag.

A left press on a handle drags it; a left drag anywhere else leaves the camera alone. Orbit,
pan and zoom follow the navigation preset (navigation.py: Blender's middle button or Maya's
Alt+buttons), the wheel zooms. Esc during a drag puts the handle back and ends the drag: the
mouse does nothing more until its buttons are let go.

A left click that no handle takes selects the bone's joint (joint_tool.py; Shift adds, empty
space clears); with joints selected, R rotates them and their gizmo's rings drag a rotation
(rotate_mode.py, rotate_gizmo.py).

It draws on a GL window (gl_window.py says why not a widget); `Viewport.container` is the
widget the main window holds, and mouse and key events go to the Viewport itself.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph.opengl as gl
from PySide6.QtCore import QEvent, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QMatrix4x4, QVector3D
from PySide6.QtWidgets import QWidget

from rigedit.core.ik import registry

from ..document import Document
from ..status import gave_way
from . import camera, navigation, palette
from .drag import DragController
from .gizmos import GizmoView, Handle
from .gl_window import GLWindow
from .ground_view import GroundView
from .joint_tool import JointTool
from .overlays import LineOverlay, limit_lines, reach_shell
from .rotate_gizmo import RotateGizmo
from .rotate_mode import RotateMode
from .skeleton_view import SkeletonView
from .skinned_mesh import GRID_DEPTH, SkinnedMeshView

_Y_UP = QMatrix4x4(*camera.Y_UP_TO_GL.flatten().tolist())
DEFAULT_AZIMUTH = -62.0  # degrees: a three-quarter view from the character's front-left
DEFAULT_ELEVATION = 12.0
MAX_MOVE_WAIT_MS = 50  # a drag move waits at most this long for the frame before it
ORBIT_DEG_PER_PX = 0.5
ZOOM_PER_PX = 0.995  # a drag zoom: the distance shrinks by this per pixel right or up
# Frame Selected shows a short chain (a neck, a finger) at least this fraction of the rig's size
# across, so it does not zoom in to the millimetre.
MIN_FRAME_FRACTION = 0.12


class Viewport(GLWindow):
    handle_hovered = Signal(object)  # Handle or None
    dragging = Signal(bool)  # a handle drag began (True) or ended, let go or cancelled (False)
    rotating = Signal(str)  # a joint rotation's status line ("" when it ends)
    _sync_pending = False  # class defaults: pyqtgraph's __init__ asks for updates before ours runs
    _disposed = False

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self.drag = DragController(document)
        self.show_limits = False
        self.show_reach = True
        self.setBackgroundColor(tuple(int(255 * c) for c in palette.BACKGROUND))

        self.grid = gl.GLGridItem(color=tuple(int(255 * c) for c in palette.GRID))
        self.grid.rotate(90, 1, 0, 0)  # the grid is drawn in its own XY plane; the floor is world XZ
        self.grid.setDepthValue(GRID_DEPTH)  # before the mesh (skinned_mesh.py says why)
        self.addItem(self.grid)
        self.axes = gl.GLLinePlotItem(pos=np.zeros((4, 3)), mode="lines", width=1.5, antialias=True)
        self.axes.setGLOptions("translucent")
        self.axes.setDepthValue(GRID_DEPTH)
        self.addItem(self.axes)
        self.ground = GroundView(self)  # issue 8: the rig's ground, if it has one
        self.mesh_view = SkinnedMeshView(self)  # issue 15: the character's skinned mesh
        self.skeleton = SkeletonView(self)
        self.gizmos = GizmoView(self)
        self.reach = LineOverlay(self, palette.REACH_SHELL)
        self.limits = LineOverlay(self, width=1.5)
        self.rotate = RotateMode(self)  # R, and the gizmo's rings: turning the selected joints
        self.rings = RotateGizmo(self)
        self.joint_tool = JointTool(self)

        self._sync_pending = False
        self._disposed = False
        self._reach_key = None
        self.navigation = navigation.DEFAULT_PRESET
        self._gesture: tuple[str, Qt.MouseButton] | None = None  # the camera drag under way
        self._spent = False  # Esc ended a drag: the mouse does nothing until its buttons are up
        self._camera_moved = False  # by the user, since the start view (or Home)
        self.mousePos = QPointF()  # pyqtgraph's name: where the last mouse event was
        # The newest drag position not yet applied: moves are coalesced to one per drawn frame
        # (a busy GUI gets several at once, and each applied move costs a goal post and a solve,
        # which a frame that never shows its pose only wastes: the solver thread holds the GIL).
        self._drag_pos: QPointF | None = None
        self._drawn_since_move = True
        self._apply_timer = QTimer(self)  # a frame that does not come does not hold the drag up
        self._apply_timer.setSingleShot(True)
        self._apply_timer.setInterval(MAX_MOVE_WAIT_MS)
        self._apply_timer.timeout.connect(self._apply_drag)
        document.rig_replaced.connect(self.rebuild)
        document.chain_changed.connect(self._chain_changed)
        document.selection_changed.connect(self._selection_changed)
        document.pose_changed.connect(self.schedule_sync)
        document.full_body_changed.connect(self._full_body_changed)  # anchors are drawn pinned
        document.joints_selected.connect(self._joints_selected)
        self.rebuild()
        self.reset_camera()

    # --- the scene --------------------------------------------------------------------------

    def rebuild(self) -> None:
        """A new rig: new handles, new colours, a grid sized to it."""
        if self.drag.active is not None:
            self.drag.active = None
        if self.rotate.active:  # the rig it was turning is gone: nothing to put back
            self.rotate.state = None
            self.rotating.emit("")
        rig = self.doc.rig
        pos = rig.world_positions()
        height = float(np.ptp(pos[:, 1])) if len(pos) else 1.0
        extent = float(max(np.ptp(pos, axis=0).max(), 1e-3)) if len(pos) else 1.0
        size = max(height, extent)
        self.gizmos.set_chains(rig.chain_names, radius=max(0.022 * size, 0.004))
        step = _nice_step(size / 7.0)
        half = step * math.ceil(1.6 * size / step)
        self.grid.setSize(2 * half, 2 * half)
        self.grid.setSpacing(step, step)
        floor = min(0.0, float(pos[:, 1].min())) if len(pos) else 0.0
        self.grid.resetTransform()
        self.grid.rotate(90, 1, 0, 0)
        self.grid.translate(0, floor, 0)
        a = half
        y = floor + 2e-3 * size  # just above the grid's own lines through the origin, which would hide them
        self.axes.setData(
            pos=np.array([[-a, y, 0], [a, y, 0], [0, y, -a], [0, y, a]], dtype=np.float32),
            color=np.array([palette.GRID_AXIS_X] * 2 + [palette.GRID_AXIS_Z] * 2, dtype=np.float32),
        )
        ground = getattr(rig, "ground", None)
        self.ground.set_ground(ground, (float(pos[0, 0]), float(pos[0, 2])) if len(pos) else (0.0, 0.0))
        # A rig on a ground stands on that, not on the y = 0 grid, which would cut through
        # every dip and step of it.
        self.grid.setVisible(ground is None)
        self.axes.setVisible(ground is None)
        self.mesh_view.set_mesh(getattr(self.doc, "mesh", None), len(rig.skeleton))
        self.skeleton.set_shown(self.mesh_view.shows_bones)
        self._pose_mesh()
        self._restyle()

    def _chain_changed(self, _name: str) -> None:
        self.schedule_sync()

    def _full_body_changed(self, _on: bool) -> None:
        self.schedule_sync()

    def _selection_changed(self, _name: str) -> None:
        self._restyle()

    def _joints_selected(self, _names: tuple) -> None:
        if self.rotate.active:  # the selection went from under it (an undo, a new rig)
            self.rotate.cancel()
        self._restyle()

    def select_joint(self, name: str | None, add: bool = False) -> None:
        """What a click on joint `name`'s bone does (None: a click on empty space); `add`:
        with Shift held (adds the joint, or takes it out when selected)."""
        self.joint_tool.select(name, add)

    def _restyle(self) -> None:
        rig = self.doc.rig
        chains = [rig.skeleton.chain_indices(rig.chain(n).joints) for n in rig.chain_names]
        sel = rig.chain_names.index(self.doc.selected) if self.doc.selected in rig.chain_names else None
        joints = [rig.skeleton.index(n) for n in self.doc.selected_joints]
        self.skeleton.set_structure(rig.skeleton.parents, chains, sel, joints)
        self.schedule_sync()

    def schedule_sync(self) -> None:
        """Coalesce redraw requests: the items take the document's state once, just before the
        next frame (before_frame), however many solver results and mouse moves came since."""
        if not self._sync_pending and not self._disposed:
            self._sync_pending = True
            if self.isExposed():
                self.request_frame()
            else:  # no frame is coming; picking and tests still see the new state
                QTimer.singleShot(0, self._sync_if_pending)

    def _sync_if_pending(self) -> None:
        if self._sync_pending:
            self.sync()

    def before_frame(self) -> None:
        self._sync_if_pending()
        self.rings.refresh()  # their size on screen follows the camera

    def sync(self) -> None:
        """Push the document's current pose and handles into the GL items."""
        self._sync_pending = False
        if self._disposed:  # a sync queued before the window closed
            return
        rig = self.doc.rig
        pos = rig.world_positions()
        self.skeleton.set_positions(pos)
        self._pose_mesh()
        targets, poles, mids, out = {}, {}, {}, set()
        for name in rig.chain_names:
            ch = rig.chain(name)
            targets[name] = rig.shown_target(name)  # a grounded foot's where the ground puts it
            if ch.pole is not None:
                poles[name] = np.asarray(ch.pole)
            idx = rig.skeleton.chain_indices(ch.joints)
            mids[name] = pos[idx[len(idx) // 2]] if len(idx) > 2 else pos[idx[0]]
            rep = self.doc.reports.get(name)
            # A goal outpulled under full body (the spine's, left behind as the body leans
            # to a hand) is no failure to put right: drawn in its colour, not red.
            if rep is not None and not rep.reached and not gave_way(rig, name, rep):
                out.add(name)
        anchors = {n for n in rig.chain_names if rig.chain(n).pull == 0.0 and registry.get(rig.chain(n).solver).reaches} \
            if rig.full_body else ()
        self.gizmos.update(targets, poles, mids, out, self.doc.selected, anchors=anchors)
        self._sync_overlays(pos)
        self.update()

    def _sync_overlays(self, pos: np.ndarray) -> None:
        rig = self.doc.rig
        d = self.drag.active
        if self.show_reach and d is not None and d.handle.kind == "target" and _has_reach_shell(rig, d.handle.chain):
            idx = rig.skeleton.chain_indices(rig.chain(d.handle.chain).joints)
            a = np.linalg.norm(pos[idx[1]] - pos[idx[0]])
            b = np.linalg.norm(pos[idx[2]] - pos[idx[1]])
            # Rounded: each solve puts the same bone lengths back with new round-off, and the
            # shell only needs redoing when the root really moves.
            key = tuple(np.round(np.append(pos[idx[0]], (a, b)), 7))
            if key != self._reach_key:
                self._reach_key = key
                self.reach.show_lines(reach_shell(pos[idx[0]], a, b))
        else:
            self._reach_key = None
            self.reach.clear()
        if self.show_limits:
            _, world_rot = rig.skeleton.fk(rig.pose)
            pairs, colours = [], []
            for name in rig.chain_names:
                ch = rig.chain(name)
                idx = rig.skeleton.chain_indices(ch.joints)
                lims = {rig.skeleton.index(j): lim for j, lim in ch.limits.items()}
                p, c = limit_lines(pos, world_rot, rig.skeleton.parents, idx, lims)
                pairs.append(p)
                colours.append(c)
            self.limits.show_lines(np.concatenate(pairs) if pairs else np.zeros((0, 3)),
                                   np.concatenate(colours) if colours else None)
        else:
            self.limits.clear()

    def _pose_mesh(self) -> None:
        if self.mesh_view.shows_mesh:
            rig = self.doc.rig
            self.mesh_view.set_pose(*rig.skeleton.fk_matrices(rig.pose))

    @property
    def view_mode(self) -> str:
        """"mesh", "bones" or "both" (View > Mesh / Bones / Both)."""
        return self.mesh_view.mode

    def set_view_mode(self, mode: str) -> None:
        self.mesh_view.set_mode(mode)
        self.skeleton.set_shown(self.mesh_view.shows_bones)
        self._pose_mesh()
        self.schedule_sync()

    def set_show_limits(self, on: bool) -> None:
        self.show_limits = bool(on)
        self.schedule_sync()

    def set_show_reach(self, on: bool) -> None:
        self.show_reach = bool(on)
        self.schedule_sync()

    # --- camera -----------------------------------------------------------------------------

    def viewMatrix(self) -> QMatrix4x4:  # noqa: N802 (Qt's name)
        # pyqtgraph orbits about Z; the rig is Y up (see camera.Y_UP_TO_GL).
        return super().viewMatrix() * _Y_UP

    def matrices(self) -> tuple[np.ndarray, np.ndarray]:
        vp = self.getViewport()
        view = camera.qmatrix_to_numpy(self.viewMatrix())
        proj = camera.qmatrix_to_numpy(self.projectionMatrix(vp, vp))
        return view, proj

    def _size(self) -> tuple[float, float]:
        return float(max(self.container.width(), 1)), float(max(self.container.height(), 1))

    def world_to_screen(self, xyz) -> QPointF:
        """Widget coordinates (logical pixels, as mouse events use) of a world point."""
        view, proj = self.matrices()
        pt, _ = camera.project(proj @ view, self._size(), np.asarray(xyz, dtype=np.float64))
        return QPointF(float(pt[0]), float(pt[1]))

    def ray(self, pos: QPointF) -> tuple[np.ndarray, np.ndarray]:
        view, proj = self.matrices()
        return camera.screen_ray(proj @ view, self._size(), pos.x(), pos.y())

    def camera_forward(self) -> np.ndarray:
        return camera.camera_forward(self.matrices()[0])

    def pixel_size(self, world: np.ndarray) -> float:
        """World size of one pixel at this point."""
        view, _ = self.matrices()
        dist = float(np.linalg.norm(camera.camera_position(view) - world))
        return dist * 2.0 * math.tan(0.5 * math.radians(self.opts["fov"])) / self._size()[0]

    def look_at(self, center, distance: float | None = None, azimuth: float | None = None,
                elevation: float | None = None) -> None:
        gl_center = camera.Y_UP_TO_GL[:3, :3] @ np.asarray(center, dtype=np.float64)
        self.setCameraPosition(pos=QVector3D(*[float(v) for v in gl_center]), distance=distance,
                               azimuth=azimuth, elevation=elevation)
        self._camera_moved = True

    def set_navigation(self, preset: str) -> None:
        if preset not in navigation.PRESETS:
            raise ValueError(f"unknown navigation preset {preset!r} (one of {', '.join(navigation.PRESETS)})")
        self.navigation = preset
        self._gesture = None

    def view_from(self, name: str) -> None:
        """Look from one side (navigation.VIEWS: front, back, right, left, top, bottom),
        about the same centre and at the same distance."""
        azimuth, elevation = navigation.VIEWS[name]
        self.setCameraPosition(azimuth=azimuth, elevation=elevation)
        self._camera_moved = True

    def frame_points(self, points: np.ndarray, **angles) -> None:
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        lo, hi = points.min(axis=0), points.max(axis=0)
        center = (lo + hi) / 2
        radius = float(np.linalg.norm(hi - lo)) / 2
        w, h = self._size()
        self.look_at(center, camera.framing_distance(radius, self.opts["fov"], w / h), **angles)

    def reset_camera(self) -> None:
        """The start view (Home): the whole scene from the front-left, for the view's size now."""
        self.frame_points(self._scene_points(), azimuth=DEFAULT_AZIMUTH, elevation=DEFAULT_ELEVATION)
        self._camera_moved = False

    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(ev)
        # The view is framed when built, before the window has its size (and aspect); until the
        # user moves the camera, the start view is framed again for each new size, so it is
        # the very view Home gives.
        if not self._camera_moved and not self._disposed and self.drag.active is None:
            self.reset_camera()

    def frame_selected(self) -> None:
        """Frame the selected joints (with their bones' ends), else the selected chain (its
        joints, target and pole); the whole scene without either."""
        rig = self.doc.rig
        if not self.doc.selected and not self.doc.selected_joints:
            self.frame_points(self._scene_points())
            return
        if self.doc.selected_joints:
            sk = rig.skeleton
            idx = [sk.index(n) for n in self.doc.selected_joints]
            idx += [c for c in range(len(sk.parents)) if sk.parents[c] in idx]
            pts = rig.world_positions()[idx]
        else:
            ch = rig.chain(self.doc.selected)
            pts = [rig.world_position(j) for j in ch.joints] + [rig.shown_target(ch.name)]
            if ch.pole is not None:
                pts.append(np.asarray(ch.pole))
            pts = np.array(pts)
        scene = self._scene_points()
        least = MIN_FRAME_FRACTION * max(float(np.ptp(scene, axis=0).max()), 1e-3)
        centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
        half = np.maximum((pts.max(axis=0) - pts.min(axis=0)) / 2, least / 2)
        self.frame_points(np.array([centre - half, centre + half]))

    def _scene_points(self) -> np.ndarray:
        rig = self.doc.rig
        pts = [rig.world_positions()] + [rig.shown_target(n)[None] for n in rig.chain_names]
        # --- issue 8 (INTEGRATION): a clip that carries the body away (a walk) is framed
        # whole: the rig as it stands, moved to each end of the root's path.
        clip = rig.clip
        if clip is not None and clip.n_frames > 1:
            here = pts[0] - pts[0][0]
            for f in (0, clip.n_frames // 2, clip.n_frames - 1):
                pts.append(here + clip.translations[f, 0])
        # --- end issue 8
        box = self.mesh_view.bounds()  # issue 15: the mesh reaches past the joints (the head's top)
        if box is not None:
            pts.append(box)
        return np.concatenate(pts)

    # --- drawing ----------------------------------------------------------------------------

    def after_frame(self) -> None:
        self._drawn_since_move = True
        if self._drag_pos is not None:  # a move that waited for this frame
            QTimer.singleShot(0, self._apply_drag)

    def dispose(self) -> None:
        """The main window closes: stop following the document and delete the GL window now."""
        for signal, slot in ((self.doc.rig_replaced, self.rebuild), (self.doc.chain_changed, self._chain_changed),
                             (self.doc.selection_changed, self._selection_changed),
                             (self.doc.pose_changed, self.schedule_sync),
                             (self.doc.full_body_changed, self._full_body_changed),
                             (self.doc.joints_selected, self._joints_selected)):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass
        self._disposed = True
        self.delete_window()

    # --- mouse and keys ---------------------------------------------------------------------

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


def _nice_step(x: float) -> float:
    """The largest of 1, 2, 5 x 10^k not above x."""
    k = math.floor(math.log10(max(x, 1e-9)))
    base = 10.0**k
    for m in (5, 2, 1):
        if m * base <= x:
            return m * base
    return base


def _has_reach_shell(rig, chain: str) -> bool:
    """A limb solved in closed form: its reach is the shell |a - b| .. a + b about its root."""
    return registry.get(rig.chain(chain).solver).method.limb
