"""The rig's ground in the viewport (issue 8): the height field as a shaded mesh, built when
the ground changes (a new rig), never per frame."""
from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl

# The part of the ground drawn: this far (m) around the rig, at most this many cells a side
# (a 20 m field at 5 cm is 400 x 400 cells: more triangles than a floor needs on screen).
# Each triangle costs the software GL ~0.3 us a frame whatever its size: 160 cells (6 cm,
# 51,200 triangles) held the uneven-ground scene at 25-30 fps in bench_editor, 100 cells
# (10 cm, 20,000 triangles) at 31-32; a step's edge then shows a little softer.
SHOWN_HALF_SIZE = 5.0
MAX_CELLS = 100


def ground_mesh(field, centre=(0.0, 0.0), half: float = SHOWN_HALF_SIZE, cells: int = MAX_CELLS):
    """Vertices (n, 3), faces (m, 3) and vertex colours (n, 4) of the field around `centre` (x, z)."""
    n = cells + 1
    xs = np.linspace(centre[0] - half, centre[0] + half, n)
    zs = np.linspace(centre[1] - half, centre[1] + half, n)
    x, z = np.meshgrid(xs, zs)
    y = field.height(x, z)
    verts = np.stack([x, y, z], axis=-1).reshape(-1, 3)
    i = np.arange(cells)
    a = (i[:, None] * n + i[None, :]).ravel()  # each cell's corner (row iz, column ix)
    faces = np.concatenate([np.stack([a, a + 1, a + n], 1), np.stack([a + 1, a + n + 1, a + n], 1)])
    # Shade by the surface's slope toward a light up and to the side, plus a hint of height,
    # so steps and bumps read without a lighting shader.
    normal = field.normal(x, z).reshape(-1, 3)
    light = np.array([0.35, 0.85, 0.4]) / np.linalg.norm([0.35, 0.85, 0.4])
    lum = 0.35 + 0.45 * np.clip(normal @ light, 0.0, 1.0)
    # Height bands every 6 cm (half a bundled step) so steps and slopes read at a glance.
    band = 0.85 + 0.15 * (np.floor(verts[:, 1] / 0.06) % 2)
    lum = lum * band
    colours = np.stack([lum * 0.62, lum * 0.6, lum * 0.45, np.full_like(lum, 0.9)], axis=1)
    return verts.astype(np.float32), faces.astype(np.uint32), colours.astype(np.float32)


class GroundView:
    def __init__(self, view) -> None:  # view: the Viewport (addItem, removeItem)
        self.view = view
        self.item: gl.GLMeshItem | None = None
        self._shown = None  # the Ground the mesh was built for

    def set_ground(self, ground, centre=(0.0, 0.0)) -> None:
        if ground is self._shown:
            return
        self._shown = ground
        if self.item is not None:
            self.view.removeItem(self.item)
            self.item = None
        if ground is None:
            return
        verts, faces, colours = ground_mesh(ground.field, centre)
        # Indexed (smooth) and without normals: the shading is baked into the colours, and an
        # unindexed mesh sends every triangle's three corners through the software GL's vertex
        # stage each frame (six times the vertices). The draw call still costs ~16 ms a frame
        # under llvmpipe for 51,200 triangles (21 ms unindexed): the triangles, not the
        # vertices, are what the uneven-ground scene's frame rate pays for.
        self.item = gl.GLMeshItem(vertexes=verts, faces=faces, vertexColors=colours, smooth=True,
                                  computeNormals=False, drawEdges=False)
        self.item.setGLOptions("translucent")
        self.view.addItem(self.item)
