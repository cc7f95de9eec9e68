"""The rotate gizmo: rings round the active selected joint, X red, Y green, Z blue (each in
the plane its global axis is normal to) and a wider white ring facing the view, as in
Blender. Dragging a ring rotates the selected joints about its axis (rotate_mode.py).

The rings keep their size on screen (RING_PIXELS), so they are made afresh each frame from
the camera (refresh, cheap: four circles) and uploaded only when they change. Drawn over
everything (no depth test), like the handles: a ring behind the body must stay grabbable.
Picking is in screen pixels, as the bones' (joint_pick.py).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from PySide6.QtCore import QPointF

from . import camera
from .geometry import circle, polyline_segments
from .joint_pick import segment_distances
from .rotate_math import AXES
from .rotate_mode import VIEW

RING_PIXELS = 55.0  # the axis rings' radius on screen
VIEW_RING_SCALE = 1.25  # the view ring is this much wider
RING_PICK_PIXELS = 7.0
SEGMENTS = 72
RING_COLOURS = ((0.96, 0.28, 0.3, 0.95), (0.45, 0.88, 0.3, 0.95), (0.3, 0.55, 1.0, 0.95))
VIEW_RING_COLOUR = (0.92, 0.92, 0.95, 0.8)
LIT = 0.55  # how far a hovered or dragged ring goes toward white

_ON_TOP = {
    GL.GL_DEPTH_TEST: False,
    GL.GL_BLEND: True,
    "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA),
}


class RotateGizmo:
    def __init__(self, view) -> None:  # view: the Viewport
        self.view = view
        self.item = gl.GLLinePlotItem(pos=np.zeros((0, 3)), mode="lines", width=2.5, antialias=True)
        self.item.setGLOptions(_ON_TOP)
        self.item.setDepthValue(21)  # over the handles' lines
        self.item.hide()
        view.addItem(self.item)
        self.hover: tuple[str, int] | None = None
        self._last: tuple[np.ndarray, np.ndarray] | None = None
        self._key_drawn: tuple | None = None

    def rings(self) -> list[tuple[tuple[str, int], np.ndarray]]:
        """(axis, closed polyline) of each ring; none without a selected joint."""
        view = self.view
        names = view.doc.selected_joints
        if not names:
            return []
        rig = view.doc.rig
        centre = rig.world_positions()[rig.skeleton.index(names[-1])]
        r = RING_PIXELS * view.pixel_size(centre)
        out = [(("global", k), circle(centre, AXES[k], r, SEGMENTS)) for k in range(3)]
        out.append(((VIEW, -1), circle(centre, view.camera_forward(), r * VIEW_RING_SCALE, SEGMENTS)))
        return out

    def _key(self) -> tuple:
        """Everything the rings are made from: the joint, where it is, the camera, the lit rings."""
        view = self.view
        names = view.doc.selected_joints
        if not names:
            return ()
        rig = view.doc.rig
        o = view.opts
        c = o["center"]
        return (names[-1], rig.world_positions()[rig.skeleton.index(names[-1])].tobytes(), o["distance"],
                o["azimuth"], o["elevation"], (c.x(), c.y(), c.z()), o["fov"], view._size(), frozenset(self._lit()))

    def refresh(self) -> None:
        """Build the rings for the camera and selection now; upload when they changed (each
        frame asks: its cost is the key's, unless something moved)."""
        key = self._key()
        if key == self._key_drawn:
            return
        self._key_drawn = key
        rings = self.rings()
        if not rings:
            if self.item.visible():
                self.item.hide()
            self._last = None
            return
        lit = self._lit()
        pos, col = [], []
        for axis, line in rings:
            segs = polyline_segments(line)
            colour = VIEW_RING_COLOUR if axis[0] == VIEW else RING_COLOURS[axis[1]]
            if axis in lit:
                colour = tuple(c + (1.0 - c) * LIT for c in colour[:3]) + (1.0,)
            pos.append(segs)
            col.append(np.tile(colour, (len(segs), 1)))
        pos = np.concatenate(pos).astype(np.float32)
        col = np.concatenate(col).astype(np.float32)
        if self._last is None or not (np.array_equal(pos, self._last[0]) and np.array_equal(col, self._last[1])):
            self._last = (pos, col)
            self.item.setData(pos=pos, color=col)
        if not self.item.visible():
            self.item.show()

    def _lit(self) -> set:
        state = self.view.rotate.state
        lit = {self.hover} if self.hover is not None else set()
        if state is not None and state.axis is not None:
            lit.add(("global", state.axis[1]) if state.axis[0] == "local" else state.axis)
        return lit

    def pick(self, pos: QPointF) -> tuple[str, int] | None:
        """The axis of the ring within RING_PICK_PIXELS of the mouse, the nearest; None."""
        rings = self.rings()
        if not rings:
            return None
        view, proj = self.view.matrices()
        size = self.view._size()
        p = np.array([pos.x(), pos.y()])
        best, best_d = None, RING_PICK_PIXELS
        for axis, line in rings:
            screen, in_front = camera.project(proj @ view, size, line)
            if not in_front.all():
                continue
            d, _ = segment_distances(screen[:-1], screen[1:], p)
            if d.min() <= best_d:
                best, best_d = axis, float(d.min())
        return best
