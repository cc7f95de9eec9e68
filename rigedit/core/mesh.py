"""A mesh bound to a skeleton: what linear blend skinning needs, in plain arrays.

Every part of a character (each skinned primitive, each rigid mesh under a joint) is put
into one set of arrays, so one kernel call poses them all (skinning.skin_mesh).

Binding. Vertex v sits in `rest` (the space its skin's inverse bind matrices expect). Each
influence names a bind: a skeleton joint (`bind_joints`, -1 for none) and a 3x4 matrix C
(`binds`). Posed, a bind's matrix is F_joint(pose) @ C, where F is the joint's rigid world
frame as rigedit's skeleton has it; a bind with no joint is just C (a mesh that never moves).
For a glTF skin, C = S @ inverse_bind, S being whatever the file's joint world matrix holds
beyond its rigid frame (scale): at the rest pose F @ C is the file's own joint matrix times
its inverse bind matrix (gltf_mesh adds the up-axis turn read_gltf may apply).

Colour is per vertex (RGBA, linear as glTF's factors are); a vertex may also name a texture
(`texture`, -1 for none) to look up at `uv`. Textures stay encoded (PNG or JPEG bytes): the
core decodes no images, the app does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# Vertices this close (relative to the mesh's size) count as one point when normals are
# recomputed, so a UV seam (a vertex split in two) does not show as a crease.
WELD_RTOL = 1e-6


@dataclass(frozen=True)
class Texture:
    data: bytes  # the encoded image
    mime: str  # "image/png", "image/jpeg" or "" when not given
    wrap: tuple[bool, bool] = (True, True)  # repeat in u, v (False: clamp)


@dataclass
class Mesh:
    rest: np.ndarray  # (n, 3) float64
    faces: np.ndarray  # (m, 3) int64 triangles
    influences: np.ndarray  # (n, k) int64, into binds
    weights: np.ndarray  # (n, k) float64, each row sums to 1
    bind_joints: np.ndarray  # (b,) int64 skeleton joint, -1 for none
    binds: np.ndarray  # (b, 3, 4) float64
    colours: np.ndarray  # (n, 4) float64 linear RGBA
    uv: np.ndarray  # (n, 2) float64
    texture: np.ndarray  # (n,) int64 into textures, -1 for none
    textures: list[Texture] = field(default_factory=list)
    parts: list[tuple[str, int, int]] = field(default_factory=list)  # (name, first vertex, end)
    weld: np.ndarray = field(init=False, repr=False)  # (n,) int64: one id per distinct point

    def __post_init__(self) -> None:
        self.rest = _array(self.rest, np.float64, (-1, 3), "rest")
        n = len(self.rest)
        self.faces = _array(self.faces, np.int64, (-1, 3), "faces")
        self.influences = _array(self.influences, np.int64, (n, -1), "influences")
        self.weights = _array(self.weights, np.float64, self.influences.shape, "weights")
        self.bind_joints = _array(self.bind_joints, np.int64, (-1,), "bind_joints")
        self.binds = _array(self.binds, np.float64, (len(self.bind_joints), 3, 4), "binds")
        self.colours = _array(self.colours, np.float64, (n, 4), "colours")
        self.uv = _array(self.uv, np.float64, (n, 2), "uv")
        self.texture = _array(self.texture, np.int64, (n,), "texture")
        for name, a in (("rest", self.rest), ("weights", self.weights), ("binds", self.binds),
                        ("colours", self.colours), ("uv", self.uv)):
            if not np.all(np.isfinite(a)):
                raise ValueError(f"mesh {name} must be finite")
        if len(self.faces) and (self.faces.min() < 0 or self.faces.max() >= n):
            raise ValueError(f"mesh faces must index the {n} vertices")
        if self.influences.size and (self.influences.min() < 0 or self.influences.max() >= len(self.binds)):
            raise ValueError(f"mesh influences must index the {len(self.binds)} binds")
        if self.texture.size and (self.texture.min() < -1 or self.texture.max() >= len(self.textures)):
            raise ValueError(f"mesh texture indices must be -1 or index the {len(self.textures)} textures")
        if np.any(self.weights < 0) or (n and not np.allclose(self.weights.sum(axis=1), 1.0, atol=1e-6)):
            raise ValueError("mesh weights must be at least 0 and sum to 1 per vertex")
        self.weld = weld_ids(self.rest)

    def __len__(self) -> int:
        return len(self.rest)

    def joints_used(self) -> np.ndarray:
        """Skeleton joints some vertex follows (sorted)."""
        used = np.unique(self.influences[self.weights > 0])
        j = self.bind_joints[used]
        return np.unique(j[j >= 0])


def weld_ids(points: np.ndarray) -> np.ndarray:
    """One id per distinct point: points within WELD_RTOL of the size of the set share one."""
    if len(points) == 0:
        return np.zeros(0, dtype=np.int64)
    size = float(np.ptp(points, axis=0).max()) or 1.0
    keys = np.round(points / (WELD_RTOL * size)).astype(np.int64)
    _, ids = np.unique(keys, axis=0, return_inverse=True)
    return ids.reshape(-1).astype(np.int64)


def _array(a, dtype, shape, name) -> np.ndarray:
    """`a` as a C-contiguous array of `dtype` whose shape matches `shape` (-1: any length)."""
    try:
        out = np.ascontiguousarray(a, dtype=dtype)
    except (TypeError, ValueError):
        raise ValueError(f"mesh {name} must be numbers of type {np.dtype(dtype).name}") from None
    if out.ndim != len(shape) or any(want not in (-1, got) for want, got in zip(shape, out.shape)):
        raise ValueError(f"mesh {name} must have shape {tuple(shape)} (-1: any), got {out.shape}")
    return out
