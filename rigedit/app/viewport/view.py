"""The 3D viewport: pyqtgraph's GL view showing the document's rig, with handles to drag.

A left press on a handle drags it; a left drag anywhere else leaves the camera alone. Orbit,
pan and zoom follow the navigation preset (navigation.py: Blender's middle button or Maya's
Alt+buttons), the wheel zooms. Esc during a drag puts the handle back and ends the drag: the
mouse does nothing more until its buttons are let go.

A left click that no handle takes selects the bone's joint (joint_tool.py; Shift adds, empty
space clears); with joints selected, R rotates them and their gizmo's rings drag a rotation
(rotate_mode.py, rotate_gizmo.py).

It draws on a GL window (gl_window.py says why not a widget); `Viewport.container` is the
widget the main window holds, and mouse and key events go to the Viewport itself. The camera
(view_camera.py) and the mouse and keys (view_input.py) are the Viewport's mixins.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph.opengl as gl
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtWidgets import QWidget

from rigedit.core.ik import registry

from ..document import Document
from ..status import gave_way
from . import navigation, palette
from .drag import DragController
from .gizmos import GizmoView
from .gl_window import GLWindow
from .ground_view import GroundView
from .joint_tool import JointTool
from .overlays import LineOverlay, limit_lines, reach_shell
from .rotate_gizmo import RotateGizmo
from .rotate_mode import RotateMode
from .skeleton_view import SkeletonView
from .skinned_mesh import GRID_DEPTH, SkinnedMeshView
from .view_camera import ViewCamera
from .view_input import ViewInput

MAX_MOVE_WAIT_MS = 50  # a drag move waits at most this long for the frame before it


class Viewport(ViewInput, ViewCamera, GLWindow):
    handle_hovered = Signal(object)  # Handle or None
    dragging = Signal(bool)  # a handle drag began (True) or ended, let go or cancelled (False)
    rotating = Signal(str)  # a joint rotation's status line ("" when it ends)
    rotated = Signal(str)  # a confirmed rotation's note for the status bar (one under an IK)
    _sync_pending = False  # class defaults: pyqtgraph's __init__ asks for updates before ours runs
    _disposed = False

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Left / Right step a frame, as in Blender's 3D view (the timeline's Previous / Next
        # Frame); pyqtgraph turned the camera with them. Up / Down still orbit.
        self.noRepeatKeys = [k for k in self.noRepeatKeys if k not in (Qt.Key.Key_Left, Qt.Key.Key_Right)]
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
