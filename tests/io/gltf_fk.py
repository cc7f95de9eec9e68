"""Node world positions of a glTF animation, read with pygltflib and evaluated here from the
glTF 2.0 specification (node TRS or matrix, channels sampled at the animation's key times,
parents composed from each scene's roots down): a reader that shares no code with rigedit's."""
from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pygltflib
from scipy.spatial.transform import Rotation

WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def _buffer(g: pygltflib.GLTF2, path: Path, index: int) -> bytes:
    uri = g.buffers[index].uri
    if uri is None:
        return g.binary_blob()
    if uri.startswith("data:"):
        return base64.b64decode(uri.split(",", 1)[1])
    return (path.parent / uri).read_bytes()


def _floats(g: pygltflib.GLTF2, buffers: list[bytes], path: Path, index: int) -> np.ndarray:
    """Accessor `index` as (count, width) float64; animation data is float32 in rigedit's exports
    (a quantized one is refused here rather than misread)."""
    acc = g.accessors[index]
    if acc.componentType != pygltflib.FLOAT:
        raise ValueError(f"{path}: accessors[{index}] has componentType {acc.componentType}; this reader takes float")
    view = g.bufferViews[acc.bufferView]
    width = WIDTH[acc.type]
    start = (view.byteOffset or 0) + (acc.byteOffset or 0)
    stride = view.byteStride or 4 * width
    rows = np.ndarray((acc.count, width), "<f4", buffers[view.buffer], start, (stride, 4))
    return rows.astype(np.float64)


def _local(node) -> np.ndarray:
    if node.matrix is not None:
        return np.array(node.matrix, dtype=np.float64).reshape(4, 4).T  # column-major in the file
    return _trs(node.translation or (0, 0, 0), node.rotation or (0, 0, 0, 1), node.scale or (1, 1, 1))


def _trs(t, r, s) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = Rotation.from_quat(r).as_matrix() * np.asarray(s, dtype=np.float64)
    m[:3, 3] = t
    return m


def node_positions(path, animation: str, frames: list[int]) -> dict[int, np.ndarray]:
    """node index -> world positions (len(frames), 3) at those keys of `animation`."""
    path = Path(path)
    g = pygltflib.GLTF2().load(str(path))
    anim = next((a for a in g.animations if a.name == animation), None)
    if anim is None:
        raise ValueError(f"{path}: no animation {animation!r}; it has {[a.name for a in g.animations]}")
    buffers = [_buffer(g, path, b) for b in range(len(g.buffers))]
    keyed: dict[int, dict[str, np.ndarray]] = {}
    for ch in anim.channels:
        sampler = anim.samplers[ch.sampler]
        values = _floats(g, buffers, path, sampler.output)
        if sampler.interpolation == "CUBICSPLINE":
            values = values.reshape(-1, 3, values.shape[1])[:, 1]  # in-tangent, value, out-tangent
        if len(values) != len(_floats(g, buffers, path, sampler.input)):
            raise ValueError(f"{path}: animation {animation!r}'s channels are keyed at different times; this reader reads keys")
        keyed.setdefault(ch.target.node, {})[ch.target.path] = values
    parent = {c: i for i, n in enumerate(g.nodes) for c in (n.children or [])}
    order = _parents_first(g, parent)
    out = {i: np.zeros((len(frames), 3)) for i in order}
    for k, f in enumerate(frames):
        world: dict[int, np.ndarray] = {}
        for i in order:
            node, keys = g.nodes[i], keyed.get(i)
            local = _local(node)
            if keys:
                t = keys["translation"][f] if "translation" in keys else (node.translation or (0, 0, 0))
                r = keys["rotation"][f] if "rotation" in keys else (node.rotation or (0, 0, 0, 1))
                s = keys["scale"][f] if "scale" in keys else (node.scale or (1, 1, 1))
                local = _trs(t, r, s)
            world[i] = local if i not in parent else world[parent[i]] @ local
            out[i][k] = world[i][:3, 3]
    return out


def _parents_first(g: pygltflib.GLTF2, parent: dict[int, int]) -> list[int]:
    kids: dict[int, list[int]] = {}
    for c, p in parent.items():
        kids.setdefault(p, []).append(c)
    order, stack = [], [i for i in range(len(g.nodes)) if i not in parent]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(kids.get(i, []))
    return order
