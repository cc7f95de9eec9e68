"""The meshes of a glTF character, bound to the skeleton read_gltf imported (a core Mesh).

What is read, from the nodes of the file's scene:
- Skinned primitives (a node with `mesh` and `skin`): POSITION, JOINTS_n/WEIGHTS_n (every
  set, so more than four influences work), the skin's inverseBindMatrices. Weights are
  normalised per vertex where a file's do not sum to 1 (RobotExpressive's are off by up to
  1e-7; some exporters' by much more); a vertex with no weight at all follows its first
  joint. As the spec says, the skinned node's own transform is ignored.
- Rigid meshes: a node with a mesh and no skin, under a joint (or a joint itself), follows
  that joint; a mesh under no joint stays where the file puts it.
- Colour: the material's base colour times COLOR_0, and its base colour texture (the
  encoded image and each vertex's TEXCOORD) for the app to look up (gltf_material.py).
- Triangles (mode 4), strips and fans (turned into triangles). Points and lines are skipped
  with a warning; morph targets are ignored (the base shape is drawn).
- Draco-compressed primitives (KHR_draco_mesh_compression) through gltf_draco.py, and
  meshopt-compressed buffer views (EXT_meshopt_compression) through GltfDocument, both codecs
  of gltf_codecs.py; a file whose meshes cannot be read (a decoder not installed, an unknown
  required extension) gives no mesh and one warning saying why.

The binding (mesh.py) keeps the mesh consistent with rigedit's skeleton, which holds only
the rigid part of each joint's world matrix: C = S @ inverse_bind, with S the joint's world
matrix over its rigid frame (the scale read_gltf drops), so at the rest pose the mesh is
exactly where the file puts it. An up-axis turn Q of the skeleton (read_gltf's up_axis,
GltfImport.turn) conjugates every joint frame, so each C is Q C and the mesh turns with it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from rigedit.core.mesh import Mesh, Texture
from rigedit.core.transforms import quat_to_matrix

from .gltf import GltfImport, _nearest_rotation, _node_matrix, _node_parents, compose_world
from .gltf_data import GltfDocument, GltfError
from .gltf_draco import PrimitiveArrays, unreadable
from .gltf_material import material_arrays

__all__ = ["GltfMesh", "read_gltf_mesh"]

# glTF sampler wrap modes: 33071 clamps to the edge; 10497 repeats, 33648 mirrors (drawn as repeat).
# A file's weights that sum this far from 1 on some vertex are reported as normalised.
WEIGHT_SUM_TOL = 1e-3


@dataclass
class GltfMesh:
    mesh: Mesh | None  # None: the file has no mesh in its scene
    warnings: list[str] = field(default_factory=list)


def read_gltf_mesh(path: str | os.PathLike, imported: GltfImport) -> GltfMesh:
    """The meshes of `path`, bound to `imported` (read_gltf of the same file). Raises GltfError."""
    doc = GltfDocument(path)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            return _read(doc, imported)
    except GltfError:
        raise
    except (TypeError, AttributeError, KeyError, IndexError, OverflowError, ValueError, np.linalg.LinAlgError) as e:
        raise doc.error(None, f"malformed mesh data ({type(e).__name__}: {e})") from None


def loaded_mesh(path: str | os.PathLike, loaded) -> tuple[Mesh | None, list[str]]:
    """The format table's mesh reader: the mesh of a file read by load_gltf (an io.loaded.Loaded)."""
    got = read_gltf_mesh(path, loaded.gltf)
    return got.mesh, got.warnings


class _Parts:
    """The arrays of every part so far, joined into one Mesh at the end."""

    def __init__(self) -> None:
        self.rest, self.faces, self.infl, self.weights = [], [], [], []
        self.colours, self.uv, self.texture = [], [], []
        self.bind_joints: list[int] = []
        self.binds: list[np.ndarray] = []
        self.textures: list[Texture] = []
        self.texture_of: dict[int, int] = {}  # glTF texture index -> ours
        self.names: list[tuple[str, int, int]] = []
        self.count = 0

    def add_binds(self, joints: list[int], mats: list[np.ndarray]) -> int:
        first = len(self.binds)
        self.bind_joints.extend(joints)
        self.binds.extend(m[:3] for m in mats)
        return first

    def mesh(self) -> Mesh | None:
        if not self.rest:
            return None
        k = max(a.shape[1] for a in self.infl)
        pad = [(np.pad(i, ((0, 0), (0, k - i.shape[1]))), np.pad(w, ((0, 0), (0, k - w.shape[1]))))
               for i, w in zip(self.infl, self.weights)]
        return Mesh(
            rest=np.concatenate(self.rest), faces=np.concatenate(self.faces),
            influences=np.concatenate([p[0] for p in pad]), weights=np.concatenate([p[1] for p in pad]),
            bind_joints=np.array(self.bind_joints, dtype=np.int64), binds=np.array(self.binds).reshape(-1, 3, 4),
            colours=np.concatenate(self.colours), uv=np.concatenate(self.uv), texture=np.concatenate(self.texture),
            textures=self.textures, parts=self.names,
        )


def _read(doc: GltfDocument, imp: GltfImport) -> GltfMesh:
    g = doc.gltf
    why_not = unreadable(doc)
    if why_not is not None:
        return GltfMesh(None, [why_not])
    parent_of = _node_parents(doc)
    nodes = _scene_nodes(doc, parent_of)
    local = {n: _node_matrix(doc, n) for n in range(len(g.nodes))}
    world = compose_world(local, list(range(len(g.nodes))), parent_of)
    joint_of = {node: i for i, node in enumerate(imp.nodes)}
    # read_gltf's up-axis turn Q makes every joint frame Q F Q^-1, so each bind starts with Q:
    # (Q F Q^-1) (Q C) = Q (F C), the file's mesh turned.
    turn = _rigid(quat_to_matrix(np.asarray(imp.turn, dtype=np.float64)), np.zeros(3))

    parts = _Parts()
    warnings: list[str] = []
    skin_binds: dict[int, int] = {}
    normalised = 0
    for n in nodes:
        node = g.nodes[n]
        if node.mesh is None:
            continue
        if not 0 <= node.mesh < len(g.meshes):
            raise doc.error(f"nodes[{n}].mesh", f"names mesh {node.mesh}, which does not exist")
        if node.skin is not None:
            if node.skin not in skin_binds:
                skin_binds[node.skin] = _skin_binds(doc, node.skin, world, joint_of, turn, parts)
            first, n_joints = skin_binds[node.skin]
        else:
            a = n
            while a not in joint_of and a in parent_of:
                a = parent_of[a]
            if a in joint_of:
                bind = turn @ np.linalg.inv(_rigid_of(world[a])) @ world[n]
                first = parts.add_binds([joint_of[a]], [bind])
            else:
                first = parts.add_binds([-1], [turn @ world[n]])
            n_joints = 1
        for p, prim in enumerate(g.meshes[node.mesh].primitives or []):
            where = f"meshes[{node.mesh}].primitives[{p}]"
            got = _primitive(doc, where, prim, node.skin is not None, first, n_joints, parts, warnings)
            if got is not None:
                name = g.meshes[node.mesh].name or node.name or f"nodes[{n}]"
                parts.names.append((name if len(g.meshes[node.mesh].primitives) == 1 else f"{name}[{p}]",
                                    parts.count - got[0], parts.count))
                normalised += got[1]
    if normalised:
        warnings.append(f"weights normalised to sum to 1 on {normalised} vertices")
    return GltfMesh(parts.mesh(), warnings)


def _scene_nodes(doc: GltfDocument, parent_of: dict[int, int]) -> list[int]:
    """The nodes the file's scene shows (every node when it names no scene)."""
    g = doc.gltf
    if not g.scenes:
        return list(range(len(g.nodes)))
    s = g.scene if g.scene is not None else 0
    if not 0 <= s < len(g.scenes):
        raise doc.error("scene", f"names scene {s}, which does not exist")
    kids: dict[int, list[int]] = {}
    for c, p in parent_of.items():
        kids.setdefault(p, []).append(c)
    out, stack = [], [r for r in (g.scenes[s].nodes or []) if 0 <= r < len(g.nodes)]
    seen = set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        out.append(n)
        stack.extend(kids.get(n, []))
    return sorted(out)


def _rigid(rot: np.ndarray, pos: np.ndarray) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = rot
    m[:3, 3] = pos
    return m


def _rigid_of(world: np.ndarray) -> np.ndarray:
    """The rigid frame rigedit's skeleton keeps of a world matrix (gltf._local_rigid)."""
    return _rigid(_nearest_rotation(world[None, :3, :3])[0], world[:3, 3])


def _skin_binds(doc: GltfDocument, s: int, world, joint_of: dict[int, int], turn, parts: _Parts) -> tuple[int, int]:
    """Add skin s's binds; returns the first one's index and how many."""
    if not 0 <= s < len(doc.gltf.skins):
        raise doc.error("skins", f"has no skin {s}")
    skin = doc.gltf.skins[s]
    joints = list(skin.joints or [])
    if skin.inverseBindMatrices is None:
        ibm = np.broadcast_to(np.eye(4), (len(joints), 4, 4))
    else:
        raw = doc.accessor(skin.inverseBindMatrices)
        if raw.shape != (len(joints), 16):
            raise doc.error(f"skins[{s}].inverseBindMatrices", f"holds {len(raw)} matrices for {len(joints)} joints")
        ibm = raw.reshape(-1, 4, 4).transpose(0, 2, 1)  # column by column in the file
    mats = []
    for k, j in enumerate(joints):
        if j not in joint_of:
            raise doc.error(f"skins[{s}].joints[{k}]", f"node {j} is not in the imported skeleton")
        mats.append(turn @ np.linalg.inv(_rigid_of(world[j])) @ world[j] @ ibm[k])
    return parts.add_binds([joint_of[j] for j in joints], mats), len(joints)


def _primitive(doc, where, prim, skinned, first, n_joints, parts: _Parts, warnings) -> tuple[int, int] | None:
    """Add one primitive; returns (vertices added, how many had their weights normalised),
    or None when skipped."""
    if getattr(prim.attributes, "POSITION", None) is None:
        warnings.append(f"{where} has no POSITION; skipped")
        return None
    a = PrimitiveArrays(doc, where, prim)
    pos = a.attribute("POSITION")
    if pos.shape[1] != 3:
        raise doc.error(f"{where}.attributes.POSITION", "must be VEC3")
    n = len(pos)
    faces = _triangles(doc, where, prim, a.indices(), n, warnings)
    if faces is None:
        return None
    normalised = 0
    if skinned:
        infl, w = _influences(doc, where, a, n, n_joints)
        sums = w.sum(axis=1)
        normalised = int(np.count_nonzero(np.abs(sums - 1.0) > WEIGHT_SUM_TOL))
        empty = sums <= 0
        w = np.where(empty[:, None], 0.0, w / np.where(empty, 1.0, sums)[:, None])
        w[empty, 0] = 1.0
        if empty.any():
            warnings.append(f"{where}: {int(empty.sum())} vertices have no joint weight; they follow their first joint")
        infl = infl + first
    else:
        infl, w = np.full((n, 1), first, dtype=np.int64), np.ones((n, 1))
    colour, tex, uv = material_arrays(doc, where, prim, a, n, parts)
    parts.rest.append(pos)
    parts.faces.append(faces + parts.count)
    parts.infl.append(infl)
    parts.weights.append(w)
    parts.colours.append(colour)
    parts.uv.append(uv)
    parts.texture.append(np.full(n, tex, dtype=np.int64))
    parts.count += n
    return n, normalised


def _triangles(doc, where, prim, idx, n, warnings) -> np.ndarray | None:
    mode = 4 if prim.mode is None else prim.mode
    if idx is None:
        idx = np.arange(n, dtype=np.int64)
    if len(idx) and (idx.min() < 0 or idx.max() >= n):
        raise doc.error(f"{where}.indices", f"index {int(idx.max())} is past the {n} vertices")
    if mode == 4:
        return idx[: len(idx) // 3 * 3].reshape(-1, 3)
    if mode == 5 and len(idx) >= 3:  # strip: every other triangle turned to keep the winding
        k = np.arange(len(idx) - 2)
        tri = np.stack([idx[k], idx[k + 1], idx[k + 2]], axis=1)
        tri[1::2] = tri[1::2][:, [1, 0, 2]]
        return tri
    if mode == 6 and len(idx) >= 3:  # fan
        k = np.arange(1, len(idx) - 1)
        return np.stack([np.full(len(k), idx[0]), idx[k], idx[k + 1]], axis=1)
    if mode in (5, 6):
        return np.zeros((0, 3), dtype=np.int64)
    warnings.append(f"{where} draws points or lines (mode {mode}); skipped")
    return None


def _influences(doc, where, a, n, n_joints) -> tuple[np.ndarray, np.ndarray]:
    sets = []
    k = 0
    while True:  # JOINTS_1, ... are extra attributes on pygltflib's object when a file has them
        j, w = a.attribute(f"JOINTS_{k}"), a.attribute(f"WEIGHTS_{k}")
        if j is None or w is None:
            break
        if j.shape != (n, 4) or w.shape != (n, 4):
            raise doc.error(f"{where}.attributes.JOINTS_{k}", f"JOINTS_{k} and WEIGHTS_{k} must be VEC4 for each of the {n} vertices")
        if np.any(w < 0):
            raise doc.error(f"{where}.attributes.WEIGHTS_{k}", "has negative weights")
        j = j.astype(np.int64)
        used = w > 0
        if np.any(used & ((j < 0) | (j >= n_joints))):
            raise doc.error(f"{where}.attributes.JOINTS_{k}", f"names a joint past the skin's {n_joints}")
        sets.append((np.where(used, j, 0), np.where(used, w, 0.0)))
        k += 1
    if not sets:
        raise doc.error(f"{where}.attributes", "a skinned mesh needs JOINTS_0 and WEIGHTS_0")
    return np.concatenate([s[0] for s in sets], axis=1), np.concatenate([s[1] for s in sets], axis=1)
