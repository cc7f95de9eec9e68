"""The skeleton as octahedral bones and joint dots; chain bones in their chain's colour, the
bones leaving a selected joint (the ones its rotation turns) in the selection's colour."""
from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl

from . import palette
from .geometry import OCTA_FACES, octahedral_bones
from .mesh_item import ArrayMeshItem, face_normals
from .shading import headlight

_FACES_PER_BONE = len(OCTA_FACES)


class SkeletonView:
    """Owns two GL items made once; `set_structure` recolours, `set_positions` moves them. A new
    pose uploads the bones' vertices and normals and the joints' positions; colours go to the
    GPU only when the structure or the selection changes."""

    def __init__(self, view) -> None:
        self.bones = ArrayMeshItem(shader=headlight(), glOptions="opaque")
        self.joints = gl.GLScatterPlotItem(pos=np.zeros((0, 3)), size=6.0, color=palette.JOINT, pxMode=True)
        self.joints.setGLOptions("translucent")
        self.joints.setDepthValue(1)  # over the bones they sit in
        self.bones.hide()  # until there is a mesh: an empty GLMeshItem fails to paint
        view.addItem(self.bones)
        view.addItem(self.joints)
        self._heads = np.zeros(0, dtype=np.int64)
        self._tails = np.zeros(0, dtype=np.int64)
        self._face_colours = np.zeros((0, 4), dtype=np.float32)
        self._positions: np.ndarray | None = None
        self._colours_sent = False
        self._shown = True  # View > Mesh hides the bones (set_shown)

    def set_shown(self, on: bool) -> None:
        self._shown = bool(on)
        self.joints.setVisible(self._shown)
        self.bones.setVisible(self._shown and self._has_bones())

    @property
    def shown(self) -> bool:
        return self._shown

    def _has_bones(self) -> bool:
        return self.bones.vertexes is not None and len(self._tails) > 0

    def set_structure(self, parents: np.ndarray, chains: list[list[int]], selected: int | None,
                      selected_joints=()) -> None:
        """Which bones to draw and their colours: chain `k`'s bones in chain colour k, brighter
        when k is the selected chain; the bones leaving `selected_joints` (indices) highlighted."""
        parents = np.asarray(parents)
        if self._positions is not None and len(self._positions) != len(parents):
            self._positions = None  # another rig: its first pose comes with the next sync
        tails = np.nonzero(parents >= 0)[0]
        self._heads = parents[tails]
        self._tails = tails
        colours = np.tile(np.array(palette.BONE, dtype=np.float32), (len(tails), 1))
        where = {int(t): i for i, t in enumerate(tails)}
        for k, chain in enumerate(chains):
            c = palette.chain_colour(k)
            if k != selected:
                c = palette.dimmed(c)
            for child in chain[1:]:
                if child in where:
                    colours[where[child]] = c
        picked = np.isin(self._heads, np.asarray(list(selected_joints), dtype=np.int64))
        colours[picked] = palette.SELECTED_BONE
        self._face_colours = np.repeat(colours, _FACES_PER_BONE, axis=0)
        self._colours_sent = False
        if self._positions is not None:
            self._upload(self._positions)

    def set_positions(self, positions: np.ndarray) -> None:
        positions = np.asarray(positions, dtype=np.float64)
        if self._positions is not None and self._positions.shape == positions.shape and np.array_equal(self._positions, positions):
            return
        self._positions = positions.copy()
        self._upload(positions)

    def _upload(self, positions: np.ndarray) -> None:
        verts, faces = octahedral_bones(positions[self._heads], positions[self._tails])
        if len(faces) == 0:
            self.bones.hide()
        else:
            corners = verts[faces]  # (faces, 3, 3)
            colours = None
            if not self._colours_sent:
                colours = np.repeat(self._face_colours[:, None, :], 3, axis=1)
                self._colours_sent = True
            self.bones.set_triangles(corners, face_normals(corners), colours)
            if self._shown and not self.bones.visible():
                self.bones.show()
        self.joints.setData(pos=positions.astype(np.float32))
