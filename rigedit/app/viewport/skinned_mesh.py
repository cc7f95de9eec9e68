"""The character's skinned mesh in the viewport, posed with the rig, and the Mesh / Bones /
Both display modes.

Each new pose runs the skinning kernel (core.skinning) and hands the GPU the vertices and
normals only; faces and colours go once per mesh. A pose equal to the last one drawn is not
skinned again, and nothing is skinned while the mesh is hidden (View > Bones).

Draw order (pyqtgraph sorts its items by depth value): the grid (view.py puts it first),
the mesh, then an item that clears the depth buffer, then the bones, joints, overlays and
handles. So the bones are drawn over the mesh in Both, and the handles stay visible and
pickable-looking inside the body in Mesh and Both.
"""
from __future__ import annotations

import numpy as np
from OpenGL import GL
from pyqtgraph.opengl import GLGraphicsItem

from rigedit.core.mesh import Mesh
from rigedit.core.skinning import Skinner

from .mesh_colours import vertex_colours
from .mesh_item import ArrayMeshItem
from .shading import vertex_lit

MODES = ("mesh", "bones", "both")
DEFAULT_MODE = "both"
GRID_DEPTH = -20.0  # view.py's grid and axes: under everything
MESH_DEPTH = -10.0
CLEAR_DEPTH = -5.0  # after the mesh, before the bones (0) and everything else


class _ClearDepth(GLGraphicsItem.GLGraphicsItem):
    """Forget the depth of what was drawn so far: what comes after is drawn over it."""

    def paint(self) -> None:
        GL.glClear(GL.GL_DEPTH_BUFFER_BIT)


class SkinnedMeshView:
    def __init__(self, view) -> None:
        self.item = ArrayMeshItem(shader=vertex_lit(), glOptions="opaque")  # shading.py: why per vertex
        self.item.setDepthValue(MESH_DEPTH)
        self.item.hide()  # until there is a mesh: an empty GLMeshItem fails to paint
        self.clear = _ClearDepth()
        self.clear.setDepthValue(CLEAR_DEPTH)
        self.clear.hide()
        view.addItem(self.item)
        view.addItem(self.clear)
        self.mode = DEFAULT_MODE
        self.mesh: Mesh | None = None
        self.notes: list[str] = []
        self.skins = 0  # kernel runs, for tests and benchmarks
        self._skinner: Skinner | None = None
        self._last: tuple[np.ndarray, np.ndarray] | None = None
        self._bounds: np.ndarray | None = None

    # --- what to show ---------------------------------------------------------------------

    def set_mesh(self, mesh: Mesh | None, n_joints: int) -> None:
        """A new rig: its mesh (None for none). A mesh that does not fit the skeleton is dropped."""
        self._skinner, self.mesh, self._last, self._bounds, self.notes = None, None, None, None, []
        if mesh is not None and len(mesh.faces):
            try:
                self._skinner = Skinner(mesh, n_joints)
            except ValueError as e:
                self.notes.append(f"mesh not shown: {e}")
            else:
                self.mesh = mesh
                colours, self.notes = vertex_colours(mesh)
                self.item.set_indexed(mesh.rest, mesh.faces, np.zeros_like(mesh.rest), colours)
        self._update_visibility()

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown view mode {mode!r} (one of {', '.join(MODES)})")
        self.mode = mode
        self._update_visibility()

    @property
    def shows_mesh(self) -> bool:
        return self.mesh is not None and self.mode in ("mesh", "both")

    @property
    def shows_bones(self) -> bool:
        """Bones are drawn in Bones and Both, and in Mesh when there is no mesh to draw."""
        return self.mode != "mesh" or self.mesh is None

    def _update_visibility(self) -> None:
        shown = self.shows_mesh
        self.item.setVisible(shown and self._last is not None)
        self.clear.setVisible(shown)

    # --- the pose -------------------------------------------------------------------------

    def set_pose(self, joint_positions: np.ndarray, joint_rotations: np.ndarray) -> bool:
        """Skin for this pose (world positions (j, 3), rotation matrices (j, 3, 3)) and upload
        the vertices and normals; returns whether anything was sent."""
        if not self.shows_mesh:
            return False
        last = self._last
        if last is not None and np.array_equal(last[0], joint_positions) and np.array_equal(last[1], joint_rotations):
            return False
        pos, nrm = self._skinner.pose(joint_positions, joint_rotations)
        self.skins += 1
        self._last = (np.array(joint_positions, copy=True), np.array(joint_rotations, copy=True))
        self._bounds = np.array([pos.min(axis=0), pos.max(axis=0)])
        self.item.set_indexed(pos, None, nrm, None)
        self._update_visibility()
        return True

    @property
    def positions(self) -> np.ndarray | None:
        """(n, 3) the posed vertices last sent (the Skinner's array: overwritten by the next pose)."""
        return None if self._skinner is None or self._last is None else self._skinner.positions

    def bounds(self) -> np.ndarray | None:
        """(2, 3) corners of the posed mesh's box, None when no mesh is shown."""
        return self._bounds if self.shows_mesh else None
