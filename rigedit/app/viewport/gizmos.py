"""Handles: a target sphere per chain (red when out of reach) and a smaller pole sphere joined
to the chain's mid joint by a thin line, a pinned plate under an anchor's target (full body
on, a chain of pull 0: it holds the body, its goal is not moved by it), and the body handle (a box in a ring, body_handle.py)
at the hips (or the root). Picking casts the mouse ray at the spheres first, then at the body.

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
from .mesh_item import ArrayMeshItem
from .shading import headlight

POLE_SCALE = 0.6  # pole sphere radius relative to the target's
# An anchor (full body on, pull 0: a planted foot) is pinned: a square plate under its target
# sphere and a pin through it, ANCHOR_SCALE times the sphere's radius across.
ANCHOR_SCALE = 1.9
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
        self.balls = ArrayMeshItem(shader=headlight(), glOptions=_ON_TOP)
        self.balls.setDepthValue(20)
        self.balls.hide()
        view.addItem(self.balls)
        self.lines = gl.GLLinePlotItem(pos=np.zeros((0, 3)), mode="lines", width=1.5, antialias=True)
        self.lines.setGLOptions("translucent")
        self.lines.setDepthValue(19)
        view.addItem(self.lines)
        self._order: list[str] = []
        self._spheres: list[tuple[Handle, np.ndarray, float, tuple]] = []
        self._last = None  # what the GPU holds: (shape, colours, body colour, centers, radii, body)
        self._box_vertex_count = 0
        self.radius = 0.03
        self.hover: Handle | None = None
        self.active: Handle | None = None
        self._last_lines: tuple[np.ndarray, np.ndarray] | None = None
        self.body: np.ndarray | None = None  # where the body handle is drawn (the animated root)
        self.anchors: frozenset = frozenset()  # chains drawn pinned

    def set_chains(self, names: list[str], radius: float) -> None:
        """A new rig: its chains, and the handle size that suits it."""
        self._order = list(names)
        self.radius = radius
        self.hover = self.active = None
        self._spheres = []
        self._last = None

    def update(self, targets: dict, poles: dict, mids: dict, out_of_reach: set, selected: str,
               body=None, anchors=frozenset()) -> None:
        """body: the root's position for the body handle; None asks the view's document
        (Document.body_position), so a view that passes only the chains still gets one.
        anchors: the chains drawn pinned (full body on, pull 0)."""
        self.anchors = frozenset(anchors)
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
            if name in self.anchors:
                pin = anchor_lines(np.asarray(targets[name], dtype=np.float64), ANCHOR_SCALE * self.radius)
                line_pos += list(pin)
                line_col += [palette.ANCHOR] * len(pin)
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
        """Send the GPU only what changed: vertices when a handle moves, colours when one
        lights up, faces and normals when handles come or go (a drag frame moves vertices)."""
        centers = np.array([c for _, c, _, _ in spheres], dtype=np.float64).reshape(-1, 3)
        radii = np.array([r for _, _, r, _ in spheres], dtype=np.float64)
        colours = np.array([col for _, _, _, col in spheres], dtype=np.float32).reshape(-1, 4)
        body = None if self.body is None else self.body.copy()
        n = len(spheres)
        if n == 0 and body is None:
            self.balls.hide()
            self._last = None
            return
        last = self._last or (None, None, None, None, None, None)
        shape = (n, body is not None)
        faces = normals = new_colours = None
        if shape != last[0]:
            faces, normals = self._topology_for(n, body)
        if faces is not None or not (np.array_equal(colours, last[1]) and body_colour == last[2]):
            new_colours = self._colours_for(colours, body_colour)
        moved = faces is not None or not (np.array_equal(centers, last[3]) and np.array_equal(radii, last[4])
                                          and _same(body, last[5]))
        if not moved and new_colours is None:
            return
        self._last = (shape, colours, body_colour, centers, radii, body)
        verts = None
        if moved:
            verts = (self._unit_verts[None] * radii[:, None, None] + centers[:, None, :]).reshape(-1, 3)
            if body is not None:
                verts = np.concatenate([verts, box_mesh(body, BOX_SCALE * self.radius)[0]])
        self.balls.set_indexed(verts, faces, normals, new_colours)
        self.balls.show()

    def _topology_for(self, n: int, body):
        """Faces and normals of n spheres and the body's box: they change with the count only."""
        n_v = len(self._unit_verts)
        faces = (self._unit_faces[None] + (n_v * np.arange(n, dtype=np.uint32))[:, None, None]).reshape(-1, 3)
        normals = np.tile(self._unit_normals, (n, 1))
        if body is not None:  # the body's box rides in the same mesh: one GL item draws every handle
            _, b_faces, b_normals = box_mesh(body, BOX_SCALE * self.radius)
            faces = np.concatenate([faces, b_faces + np.uint32(n * n_v)])
            normals = np.concatenate([normals, b_normals])
        self._box_vertex_count = 0 if body is None else len(b_normals)
        return faces, normals

    def _colours_for(self, colours: np.ndarray, body_colour) -> np.ndarray:
        out = np.repeat(colours, len(self._unit_verts), axis=0)
        if self._box_vertex_count:
            out = np.concatenate([out, np.tile(np.array(body_colour, dtype=np.float32), (self._box_vertex_count, 1))])
        return out

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


def anchor_lines(center: np.ndarray, size: float) -> np.ndarray:
    """Line-segment ends (2k, 3) of an anchor's pin: a square plate of side `size` level
    under the sphere, its diagonals, and a pin from the plate up through the sphere."""
    h = 0.5 * size
    y = center[1] - h
    c = [center + (dx, 0.0, dz) for dx, dz in ((-h, -h), (h, -h), (h, h), (-h, h))]
    corners = [np.array((p[0], y, p[2])) for p in c]
    segs = []
    for k in range(4):
        segs += [corners[k], corners[(k + 1) % 4]]
    segs += [corners[0], corners[2], corners[1], corners[3]]
    segs += [np.array((center[0], y, center[2])), center + (0.0, h, 0.0)]
    return np.array(segs, dtype=np.float64)
