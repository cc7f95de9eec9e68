"""A glTF source's skinned meshes, made ready to bind to the exported UsdSkel skeleton.

glTF skins a vertex v as  sum_i w_i G_i(t) IBM_i v  with G_i the joint node's world matrix
(its scale included) and IBM_i the skin's inverse bind matrix. rigedit's joint frames are
rigid (the importer folded scale into offsets, and may have turned the figure upright by T),
so at any time G_i(t) = T^-1 W_i(t) C_i, with W_i rigedit's world transform and C_i constant:
C_i = W_i^-1 T G_i at rest. UsdSkel skins  sum_i w_i W_i(t) B_i^-1 v  (B_i the skeleton's
bindTransforms), so B_i = (C_i IBM_i)^-1 makes USD's skinned points rigedit's world of the
glTF ones, with the points as the file stores them and no geomBindTransform.

One bindTransform per joint: when two skins bind one joint differently, the meshes of the
later skin are left out (with a warning). Only triangle primitives with JOINTS_0/WEIGHTS_0
are taken; weights are normalised where a file's do not sum to 1; rigid meshes under
joints are not exported.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_to_matrix

from .export_gltf import rest_world as rest_world_of
from .gltf_data import GltfDocument
from .gltf_draco import PrimitiveArrays, unreadable

# Two skins' bind matrices for one joint closer than this (relative) are the same binding.
SAME_BIND_RTOL = 1e-5
TRIANGLES = 4


@dataclass
class SkinnedMesh:
    name: str
    points: np.ndarray  # (v, 3) as the file stores them
    triangles: np.ndarray  # (t, 3) vertex indices
    joints: np.ndarray  # (v, k) skeleton joint indices
    weights: np.ndarray  # (v, k), each row summing to 1
    color: tuple[float, float, float] | None = None  # the material's base colour factor


def skinned_meshes(source, skeleton: Skeleton, warnings: list[str]) -> tuple[list[SkinnedMesh], np.ndarray | None]:
    """The source's skinned meshes and the skeleton's bindTransforms (n, 4, 4), column-vector
    convention, or ([], None) when it has none."""
    doc = GltfDocument(source.path)
    g = doc.gltf
    why_not = unreadable(doc)  # e.g. Draco meshes without DracoPy: the skeleton goes out alone
    if why_not is not None:
        warnings.append(why_not.replace("mesh not shown", "meshes left out of the USD file"))
        return [], None
    joint_of = {node: j for j, node in enumerate(source.nodes)}
    rest_world = rest_world_of(g)
    pos, rot = skeleton.fk(skeleton.rest_pose())
    rigid = np.zeros((len(skeleton), 4, 4))
    rigid[:, :3, :3] = quat_to_matrix(rot)
    rigid[:, :3, 3] = pos
    rigid[:, 3, 3] = 1.0
    turn = np.eye(4)
    if source.turn is not None:
        turn[:3, :3] = quat_to_matrix(np.asarray(source.turn, dtype=np.float64))
    bind = rigid.copy()
    bound: dict[int, np.ndarray] = {}
    meshes: list[SkinnedMesh] = []
    for n, node in enumerate(g.nodes):
        if node.mesh is None or node.skin is None:
            continue
        skin = g.skins[node.skin]
        ibm = (doc.accessor(skin.inverseBindMatrices).reshape(-1, 4, 4).transpose(0, 2, 1)
               if skin.inverseBindMatrices is not None else np.broadcast_to(np.eye(4), (len(skin.joints), 4, 4)))
        wanted = {}
        for k, node_j in enumerate(skin.joints):
            j = joint_of[node_j]
            c = np.linalg.inv(rigid[j]) @ turn @ rest_world[node_j]
            wanted[j] = np.linalg.inv(c @ ibm[k])
        clash = [j for j, b in wanted.items() if j in bound and not np.allclose(bound[j], b, rtol=0, atol=SAME_BIND_RTOL * max(1.0, np.abs(b).max()))]
        if clash:
            warnings.append(f"mesh {node.name or n}: its skin binds {skeleton.names[clash[0]]} unlike an earlier skin; left out of the USD file")
            continue
        for j, b in wanted.items():
            bound[j] = bind[j] = b
        skin_joints = np.array([joint_of[node_j] for node_j in skin.joints])
        for p, prim in enumerate(g.meshes[node.mesh].primitives):
            mesh = _primitive(doc, node.mesh, p, prim, skin_joints, f"{node.name or f'node{n}'}_{p}")
            if mesh is not None:
                meshes.append(mesh)
    return meshes, (bind if meshes else None)


def _primitive(doc, m: int, p: int, prim, skin_joints: np.ndarray, name: str) -> SkinnedMesh | None:
    a = prim.attributes
    if (prim.mode if prim.mode is not None else TRIANGLES) != TRIANGLES or a.POSITION is None or a.JOINTS_0 is None or a.WEIGHTS_0 is None:
        return None
    arrays = PrimitiveArrays(doc, f"meshes[{m}].primitives[{p}]", prim)  # plain or Draco-compressed
    points = arrays.attribute("POSITION")
    count = len(points)
    indices = arrays.indices()
    indices = np.arange(count) if indices is None else indices
    extra = ("JOINTS_1", "WEIGHTS_1") if None not in (getattr(a, "JOINTS_1", None), getattr(a, "WEIGHTS_1", None)) else None
    sets = [("JOINTS_0", "WEIGHTS_0")] + ([extra] if extra else [])
    joints = np.concatenate([arrays.attribute(j) for j, _ in sets], axis=1).astype(np.int64)
    weights = np.concatenate([arrays.attribute(w) for _, w in sets], axis=1)
    if np.any(joints < 0) or np.any(joints >= len(skin_joints)) or len(indices) % 3 or np.any(indices >= count):
        raise doc.error(f"meshes[{m}].primitives[{p}]", "joint or vertex indices out of range")
    total = weights.sum(axis=1, keepdims=True)
    weights = np.where(total > 0, weights / np.where(total > 0, total, 1.0), 0.0)
    weights[total[:, 0] <= 0, 0] = 1.0  # an unweighted vertex follows its first joint
    color = None
    if prim.material is not None and 0 <= prim.material < len(doc.gltf.materials or []):
        pbr = doc.gltf.materials[prim.material].pbrMetallicRoughness
        if pbr is not None and pbr.baseColorFactor is not None:
            color = tuple(float(c) for c in pbr.baseColorFactor[:3])
    return SkinnedMesh(name, points, indices.reshape(-1, 3), skin_joints[joints], weights, color)

