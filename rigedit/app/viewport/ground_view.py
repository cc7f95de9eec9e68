"""The rig's ground in the viewport (issue 8): the height field as a shaded mesh, built when
the ground changes (a new rig), never per frame."""
from __future__ import annotations

import pyqtgraph.opengl as gl
from .ground_mesh import ground_mesh
from .shading import program

# The part of the ground drawn: this far (m) around the rig, on a grid of this many cells a
# side (7.8 cm: a bundled 12 cm step reads as a step), merged where it is plane
# (ground_mesh.py). The software GL pays ~0.4 us a frame for each triangle whatever its
# size: the full 100-cell grid's 20,000 triangles held the uneven-ground scene's drag at
# 47-58 fps in bench_editor; merged, the slope shows in ~2,000.
SHOWN_HALF_SIZE = 5.0
GRID_CELLS = 128

_VERTEX = """
uniform mat4 u_mvp;
attribute vec4 a_position;
attribute vec4 a_color;
varying vec4 v_color;
varying float v_height;
void main() {
    v_color = a_color;
    v_height = a_position.y;
    gl_Position = u_mvp * a_position;
}
"""

# Height bands every 6 cm (half a bundled step) so steps and slopes read at a glance: worked
# out per pixel from the height, so a band's edge needs no vertices along it.
_FRAGMENT = """
#ifdef GL_ES
precision mediump float;
#endif
varying vec4 v_color;
varying float v_height;
void main() {
    float band = 0.85 + 0.15 * mod(floor(v_height / 0.06), 2.0);
    gl_FragColor = vec4(v_color.rgb * band, v_color.a);
}
"""

def banded():
    return program("rigedit_ground", _VERTEX, _FRAGMENT)


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
        verts, faces, colours = ground_mesh(ground.field, centre, SHOWN_HALF_SIZE, GRID_CELLS)
        # Indexed (smooth) and without normals: the shading is baked into the colours.
        self.item = gl.GLMeshItem(vertexes=verts, faces=faces, vertexColors=colours, smooth=True,
                                  computeNormals=False, drawEdges=False, shader=banded())
        self.item.setGLOptions("translucent")
        self.view.addItem(self.item)
