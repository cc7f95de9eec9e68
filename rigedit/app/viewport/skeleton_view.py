"""The skeleton as octahedral bones and joint dots; chain bones in their chain's colour."""
from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl

from . import palette
from .geometry import OCTA_FACES, octahedral_bones
from .shading import headlight

_FACES_PER_BONE = len(OCTA_FACES)


class SkeletonView:
    """Owns two GL items made once; `set_structure` recolours, `set_positions` moves them."""

    def __init__(self, view: gl.GLViewWidget) -> None:
        self.bones = gl.GLMeshItem(shader=headlight(), smooth=False, computeNormals=True, glOptions="opaque")
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
        self._faces: np.ndarray | None = None

    def set_structure(self, parents: np.ndarray, chains: list[list[int]], selected: int | None) -> None:
        """Which bones to draw and their colours: chain `k`'s bones in chain colour k, brighter
        when k is the selected chain."""
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
        self._face_colours = np.repeat(colours, _FACES_PER_BONE, axis=0)
        self._faces = None
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
        if self._faces is None or len(self._faces) != len(faces):
            self._faces = faces
        if len(faces) == 0:
            self.bones.hide()
        else:
            self.bones.setMeshData(vertexes=verts.astype(np.float32), faces=self._faces, faceColors=self._face_colours)
            self.bones.show()
        self.joints.setData(pos=positions.astype(np.float32))
