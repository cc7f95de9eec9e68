"""Handles: a target sphere per chain (red when out of reach) and a smaller pole sphere joined
to the chain's mid joint by a thin line, and the body handle (a box in a ring, body_handle.py)
at the root joint. Picking casts the mouse ray at the spheres first, then at the body.

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

from . import palette
from .body_handle import BODY_COLOUR, BOX_SCALE, RING_SCALE, box_mesh, pick_body, ring_lines
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
    kind: str  # "target" | "pole" | "body" (the rig's root joint; chain "")


BODY = Handle("", "body")


class _BallsMesh(gl.MeshData):
    """Many spheres in one mesh, with their normals given (pyqtgraph would average face
    normals in a Python loop per vertex: milliseconds for a few thousand vertices)."""

    def __init__(self, vertexes, faces, colours, normals) -> None:
        super().__init__(vertexes=vertexes, faces=faces, vertexColors=colours)
        self._normals = normals

    def vertexNormals(self, indexed=None):  # noqa: N802 (pyqtgraph's name)
        return self._normals if indexed is None else self._normals[self.faces()]


class GizmoView:
    """Every handle sphere is one GL mesh: each GL item costs about 2 ms of Python per frame
    to draw, so sixteen handles as sixteen items would halve the frame rate. The mesh is
    rebuilt only when a handle moves, recolours or appears."""

    def __init__(self, view: gl.GLViewWidget) -> None:
        self._view = view
        unit = gl.MeshData.sphere(rows=14, cols=20, radius=1.0)
        self._unit_verts = unit.vertexes().astype(np.float64)
        self._unit_faces = unit.faces().astype(np.uint32)
        self._unit_normals = (self._unit_verts / np.linalg.norm(self._unit_verts, axis=1, keepdims=True)).astype(np.float32)
        self.balls = gl.GLMeshItem(shader=headlight(), smooth=True, glOptions=_ON_TOP)
        self.balls.setDepthValue(20)
        self.balls.hide()
        view.addItem(self.balls)
        self.lines = gl.GLLinePlotItem(pos=np.zeros((0, 3)), mode="lines", width=1.5, antialias=True)
        self.lines.setGLOptions("translucent")
        self.lines.setDepthValue(19)
        view.addItem(self.lines)
        self._order: list[str] = []
        self._spheres: list[tuple[Handle, np.ndarray, float, tuple]] = []
        self._last_key = None
        self._topology = None  # (sphere count, faces, normals)
        self.radius = 0.03
        self.hover: Handle | None = None
        self.active: Handle | None = None
        self._last_lines: tuple[np.ndarray, np.ndarray] | None = None
        self.body: np.ndarray | None = None  # where the body handle is drawn (the animated root)

    def set_chains(self, names: list[str], radius: float) -> None:
        """A new rig: its chains, and the handle size that suits it."""
        self._order = list(names)
        self.radius = radius
        self.hover = self.active = None
        self._spheres = []
        self._last_key = None
        self._topology = None

    def update(self, targets: dict, poles: dict, mids: dict, out_of_reach: set, selected: str,
               body=None) -> None:
        """body: the root's position for the body handle; None asks the view's document
        (Document.body_position), so a view that passes only the chains still gets one."""
        if body is None:
            doc = getattr(self._view, "doc", None)
            body = doc.body_position() if doc is not None and hasattr(doc, "body_position") else None
        self.body = None if body is None else np.asarray(body, dtype=np.float64)
        spheres, line_pos, line_col = [], [], []
        for k, name in enumerate(self._order):
            base = palette.chain_colour(k)
            if name != selected:
                base = palette.dimmed(base, 0.3)
            colour = palette.OUT_OF_REACH if name in out_of_reach else base
            h = Handle(name, "target")
            spheres.append((h, np.asarray(targets[name], dtype=np.float64), self.radius, self._highlight(h, colour, 0.9)))
            pole = poles.get(name)
            if pole is None:
                continue
            h = Handle(name, "pole")
            pole_colour = palette.mix(base, (0.1, 0.1, 0.1, 1.0), 0.25)
            spheres.append((h, np.asarray(pole, dtype=np.float64), self.radius * POLE_SCALE, self._highlight(h, pole_colour, 0.9)))
            if name in mids:
                line_pos += [mids[name], pole]
                line_col += [base[:3] + (0.55,)] * 2
        self._spheres = spheres
        body_colour = self._highlight(BODY, BODY_COLOUR, BODY_COLOUR[3])
        if self.body is not None:
            ring = ring_lines(self.body, RING_SCALE * self.radius)
            line_pos += list(ring)
            line_col += [body_colour[:3] + (0.8,)] * len(ring)
        self._upload_balls(spheres, body_colour)
        pos = np.array(line_pos, dtype=np.float32).reshape(-1, 3)
        col = np.array(line_col, dtype=np.float32).reshape(-1, 4)
        if self._last_lines is None or not (np.array_equal(pos, self._last_lines[0]) and np.array_equal(col, self._last_lines[1])):
            self._last_lines = (pos, col)  # colours too: the ring lights up under the mouse
            self.lines.setData(pos=pos, color=col)

    def _upload_balls(self, spheres, body_colour) -> None:
        handles = tuple(h for h, _, _, _ in spheres)
        centers = np.array([c for _, c, _, _ in spheres], dtype=np.float64).reshape(-1, 3)
        radii = np.array([r for _, _, r, _ in spheres], dtype=np.float64)
        colours = np.array([col for _, _, _, col in spheres], dtype=np.float32).reshape(-1, 4)
        body = None if self.body is None else self.body.copy()
        last = self._last_key
        if last is not None and last[0] == handles and np.array_equal(last[1], centers) \
                and np.array_equal(last[2], radii) and np.array_equal(last[3], colours) \
                and _same(last[4], body) and last[5] == body_colour:
            return
        self._last_key = (handles, centers, radii, colours, body, body_colour)
        n = len(spheres)
        if n == 0 and body is None:
            self.balls.hide()
            return
        n_v = len(self._unit_verts)
        if self._topology is None or self._topology[0] != n:  # faces and normals depend on the count only
            faces = (self._unit_faces[None] + (n_v * np.arange(n, dtype=np.uint32))[:, None, None]).reshape(-1, 3)
            self._topology = (n, faces, np.tile(self._unit_normals, (n, 1)))
        _, faces, normals = self._topology
        verts = (self._unit_verts[None] * radii[:, None, None] + centers[:, None, :]).reshape(-1, 3)
        colours = np.repeat(colours, n_v, axis=0)
        if body is not None:  # the body's box rides in the same mesh: one GL item draws every handle
            b_verts, b_faces, b_normals = box_mesh(body, BOX_SCALE * self.radius)
            faces = np.concatenate([faces.reshape(-1, 3), b_faces + np.uint32(len(verts))])
            verts = np.concatenate([verts, b_verts])
            colours = np.concatenate([colours, np.tile(np.array(body_colour, dtype=np.float32), (len(b_verts), 1))])
            normals = np.concatenate([normals.reshape(-1, 3), b_normals])
        self.balls.setMeshData(meshdata=_BallsMesh(verts.astype(np.float32), faces, colours, normals))
        self.balls.show()

    def _highlight(self, h: Handle, colour, alpha: float):
        c = tuple(colour[:3]) + (alpha,)
        if h == self.active:
            return palette.lifted(c, 0.5)
        if h == self.hover:
            return palette.lifted(c)
        return c

    def spheres(self) -> list[tuple[Handle, np.ndarray, float]]:
        return [(h, c, r) for h, c, r, _ in self._spheres]

    def pick(self, origin: np.ndarray, direction: np.ndarray, pixel_size: Callable[[np.ndarray], float]) -> Handle | None:
        """The nearest handle sphere the ray passes through (or passes within MIN_PICK_PIXELS
        of); failing that, the body handle. Spheres come first: the body's box and ring are
        big and sit among the legs' and arms' handles, which must stay grabbable."""
        spheres = self.spheres()
        if spheres:
            centers = np.array([c for _, c, _ in spheres])
            radii = np.array([max(r, MIN_PICK_PIXELS * pixel_size(c)) for _, c, r in spheres])
            t = ray_spheres(origin, direction, centers, radii)
            i = int(np.argmin(t))
            if np.isfinite(t[i]):
                return spheres[i][0]
        if self.body is not None:
            t = pick_body(origin, direction, self.body, self.radius, MIN_PICK_PIXELS * pixel_size(self.body))
            if np.isfinite(t):
                return BODY
        return None


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))
