"""Handles: a target sphere per chain (red when out of reach) and a smaller pole sphere joined
to the chain's mid joint by a thin line. Picking casts the mouse ray at the spheres.

The spheres are drawn without depth test (with back faces culled, so each still shades as a
solid ball) and after everything else: a handle inside a hand or behind the body must stay
visible and grabbable, as in every rigging tool.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from PySide6.QtGui import QMatrix4x4

from . import palette
from .camera import ray_spheres
from .shading import headlight

POLE_SCALE = 0.6  # pole sphere radius relative to the target's
MIN_PICK_PIXELS = 7.0  # a handle far away still catches the mouse within this many pixels

_ON_TOP = {
    GL.GL_DEPTH_TEST: False,
    GL.GL_BLEND: True,
    GL.GL_CULL_FACE: True,
    "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA),
}


@dataclass(frozen=True)
class Handle:
    chain: str
    kind: str  # "target" | "pole"


class _Ball:
    def __init__(self, view: gl.GLViewWidget, mesh: gl.MeshData) -> None:
        self.item = gl.GLMeshItem(meshdata=mesh, shader=headlight(), smooth=True, glOptions=_ON_TOP)
        self.item.setDepthValue(20)
        view.addItem(self.item)
        self.center = np.zeros(3)
        self.radius = 0.0
        self.colour = None

    def place(self, center: np.ndarray, radius: float) -> None:
        center = np.asarray(center, dtype=np.float64)
        if self.radius == radius and np.array_equal(self.center, center):
            return
        self.center, self.radius = center.copy(), float(radius)
        m = QMatrix4x4()
        m.translate(*[float(v) for v in center])
        m.scale(float(radius))
        self.item.setTransform(m)

    def paint(self, colour) -> None:
        if colour != self.colour:
            self.colour = colour
            self.item.setColor(colour)

    def remove(self, view: gl.GLViewWidget) -> None:
        view.removeItem(self.item)


class GizmoView:
    def __init__(self, view: gl.GLViewWidget) -> None:
        self._view = view
        self._mesh = gl.MeshData.sphere(rows=14, cols=20, radius=1.0)
        self._targets: dict[str, _Ball] = {}
        self._poles: dict[str, _Ball] = {}
        self._order: list[str] = []
        self.lines = gl.GLLinePlotItem(pos=np.zeros((0, 3)), mode="lines", width=1.5, antialias=True)
        self.lines.setGLOptions("translucent")
        self.lines.setDepthValue(19)
        view.addItem(self.lines)
        self.radius = 0.03
        self.hover: Handle | None = None
        self.active: Handle | None = None
        self._last_lines: np.ndarray | None = None

    def set_chains(self, names: list[str], radius: float) -> None:
        """Rebuild the handle set (a new rig); moving and recolouring never rebuild."""
        for ball in list(self._targets.values()) + list(self._poles.values()):
            ball.remove(self._view)
        self._targets = {n: _Ball(self._view, self._mesh) for n in names}
        self._poles = {n: _Ball(self._view, self._mesh) for n in names}
        self._order = list(names)
        self.radius = radius
        self.hover = self.active = None

    def update(self, targets: dict, poles: dict, mids: dict, out_of_reach: set, selected: str) -> None:
        line_pos, line_col = [], []
        for k, name in enumerate(self._order):
            base = palette.chain_colour(k)
            if name != selected:
                base = palette.dimmed(base, 0.3)
            t = self._targets[name]
            t.place(targets[name], self.radius)
            colour = palette.OUT_OF_REACH if name in out_of_reach else base
            t.paint(self._highlight(Handle(name, "target"), colour, 0.9))
            p = self._poles[name]
            pole = poles.get(name)
            if pole is None:
                p.item.hide()
                continue
            p.item.show()
            p.place(pole, self.radius * POLE_SCALE)
            p.paint(self._highlight(Handle(name, "pole"), palette.mix(base, (0.1, 0.1, 0.1, 1.0), 0.25), 0.9))
            if name in mids:
                line_pos += [mids[name], pole]
                line_col += [base[:3] + (0.55,)] * 2
        pos = np.array(line_pos, dtype=np.float32).reshape(-1, 3)
        if self._last_lines is None or not np.array_equal(pos, self._last_lines):
            self._last_lines = pos
            self.lines.setData(pos=pos, color=np.array(line_col, dtype=np.float32).reshape(-1, 4))

    def _highlight(self, h: Handle, colour, alpha: float):
        c = tuple(colour[:3]) + (alpha,)
        if h == self.active:
            return palette.lifted(c, 0.5)
        if h == self.hover:
            return palette.lifted(c)
        return c

    def spheres(self) -> list[tuple[Handle, np.ndarray, float]]:
        out = []
        for name in self._order:
            t = self._targets[name]
            out.append((Handle(name, "target"), t.center, t.radius))
            p = self._poles[name]
            if p.item.visible():
                out.append((Handle(name, "pole"), p.center, p.radius))
        return out

    def pick(self, origin: np.ndarray, direction: np.ndarray, pixel_size: Callable[[np.ndarray], float]) -> Handle | None:
        """The nearest handle the ray passes through (or passes within MIN_PICK_PIXELS of)."""
        spheres = self.spheres()
        if not spheres:
            return None
        centers = np.array([c for _, c, _ in spheres])
        radii = np.array([max(r, MIN_PICK_PIXELS * pixel_size(c)) for _, c, r in spheres])
        t = ray_spheres(origin, direction, centers, radii)
        i = int(np.argmin(t))
        return spheres[i][0] if np.isfinite(t[i]) else None
