"""A GL mesh item fed ready-made arrays, sending to the GPU only the arrays that changed.

pyqtgraph's GLMeshItem.setMeshData starts over from a MeshData: every call recomputes the
normals and uploads positions, normals, colours and faces, though a pose change moves only the
vertices. Here each array is handed over on its own (unindexed triangles: (faces, 3, 3)
positions and normals, (faces, 3, 4) colours) and only those given are uploaded at the next
frame; a drag frame sends the vertices and normals, the colours stay on the GPU.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from pyqtgraph.opengl.items.GLMeshItem import DirtyFlag


class ArrayMeshItem(gl.GLMeshItem):
    def __init__(self, **kwds) -> None:
        super().__init__(smooth=False, computeNormals=False, **kwds)
        self._dirty = DirtyFlag(0)

    def set_triangles(self, vertexes: np.ndarray, normals: np.ndarray | None = None,
                      colours: np.ndarray | None = None) -> None:
        """New triangle corners (and their normals, when the shader needs them); colours only
        when they changed (None keeps the ones on the GPU)."""
        self.vertexes = np.ascontiguousarray(vertexes, dtype=np.float32).reshape(-1, 3, 3)
        self._dirty |= DirtyFlag.POSITION
        if normals is not None:
            self.normals = np.ascontiguousarray(normals, dtype=np.float32).reshape(-1, 3, 3)
            self._dirty |= DirtyFlag.NORMAL
        if colours is not None:
            self.colors = np.ascontiguousarray(colours, dtype=np.float32).reshape(-1, 3, 4)
            self._dirty |= DirtyFlag.COLOR
        self.faces = None  # unindexed: glDrawArrays over the corners
        self.update()

    def set_indexed(self, vertexes: np.ndarray | None, faces: np.ndarray | None = None,
                    normals: np.ndarray | None = None, colours: np.ndarray | None = None) -> None:
        """An indexed mesh: (n, 3) vertices, (m, 3) faces, (n, 3) normals and (n, 4) colours,
        each only when it changed (None keeps the one on the GPU)."""
        if vertexes is not None:
            self.vertexes = np.ascontiguousarray(vertexes, dtype=np.float32).reshape(-1, 3)
            self._dirty |= DirtyFlag.POSITION
        if faces is not None:
            self.faces = np.ascontiguousarray(faces, dtype=np.uint32).reshape(-1, 3)
            self._dirty |= DirtyFlag.FACES
        if normals is not None:
            self.normals = np.ascontiguousarray(normals, dtype=np.float32).reshape(-1, 3)
            self._dirty |= DirtyFlag.NORMAL
        if colours is not None:
            self.colors = np.ascontiguousarray(colours, dtype=np.float32).reshape(-1, 4)
            self._dirty |= DirtyFlag.COLOR
        self.update()

    def parseMeshData(self) -> DirtyFlag:  # noqa: N802 (pyqtgraph's name)
        # The base class would rebuild every array from its MeshData; ours are already built.
        dirty, self._dirty = self._dirty, DirtyFlag(0)
        return dirty

    def meshDataChanged(self) -> None:  # noqa: N802
        # GLMeshItem.__init__ calls this through setMeshData: it would clear our arrays.
        self.update()


def face_normals(corners: np.ndarray) -> np.ndarray:
    """(faces, 3, 3) flat normals (unnormalised: the shader normalises) for (faces, 3, 3) corners."""
    n = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    return np.repeat(n[:, None, :], 3, axis=1)
