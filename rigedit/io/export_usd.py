"""Export a rig's result to USD (.usda, .usdc, .usd) as a UsdSkel Skeleton with a SkelAnimation.

Needs usd-core (`pip install rigedit[usd]`); without it `require_usd` raises a ValueError that
says so, before any work is done.

Layout: /<name> is a SkelRoot, /<name>/Skeleton the Skeleton (joint paths such as
"Hips/Spine/Chest", the joints' own names as jointNames, the rest pose as restTransforms, its world matrices as bindTransforms),
/<name>/Skeleton/Animation the SkelAnimation bound to it: per frame, every joint's local
translation and rotation (float, as UsdSkel stores them), at the clip's frame rate as
timeCodesPerSecond, frame i at time code i. The stage is Y up, in metres, as rigedit is.
USD matrices act on row vectors, so each is the transpose of rigedit's column-vector one.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.transforms import quat_normalize, quat_to_matrix

from . import formats
from .float32 import as_float32
from .atomic import file_mode

USD_SUFFIXES = formats.USD.suffixes


def require_usd():
    """The pxr modules, or a ValueError saying how to install them."""
    formats.USD.require("export")
    from pxr import Gf, Sdf, Usd, UsdGeom, UsdSkel, Vt  # usd-core is an optional extra: checked just above

    return Gf, Sdf, Usd, UsdGeom, UsdSkel, Vt


def joint_paths(skeleton: Skeleton) -> list[str]:
    """UsdSkel joint paths ("Hips/Spine"), each name made a valid, unique prim name."""
    _, Sdf, *_ = require_usd()
    from pxr import Tf

    paths: list[str] = []
    taken: set[str] = set()
    for i, name in enumerate(skeleton.names):
        base = Tf.MakeValidIdentifier(name) or f"joint{i}"
        parent = int(skeleton.parents[i])
        prefix = "" if parent < 0 else paths[parent] + "/"
        path, k = prefix + base, 2
        while path in taken:
            path, k = f"{prefix}{base}_{k}", k + 1
        taken.add(path)
        paths.append(path)
    return paths


def write_usd(path: str | os.PathLike, skeleton: Skeleton, clip: Clip, *, name: str = "rig", meshes=(), bind=None) -> None:
    """Write `clip` on `skeleton` to `path`, atomically (a temporary file beside it, renamed).

    meshes: usd_skin.SkinnedMesh list, bound to the skeleton with `bind` (n, 4, 4) as its
    bindTransforms (usd_skin.skinned_meshes gives both); without them the bindTransforms are
    the rest pose's world transforms."""
    Gf, Sdf, Usd, UsdGeom, UsdSkel, Vt = require_usd()
    from pxr import Tf

    path = Path(path)
    if not formats.USD.matches(path):
        raise ValueError(f"{path}: a USD file ends in {formats.listing([formats.USD], 'or')}")
    if clip.rotations.shape[1] != len(skeleton):
        raise ValueError(f"clip has {clip.rotations.shape[1]} joints, skeleton has {len(skeleton)}")
    translations = as_float32(clip.translations, path, "the SkelAnimation's translations", "frame", skeleton.names)
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    stage.SetTimeCodesPerSecond(clip.frame_rate)
    stage.SetFramesPerSecond(clip.frame_rate)
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(max(clip.n_frames - 1, 0))

    root_path = Sdf.Path("/" + (Tf.MakeValidIdentifier(name) or "rig"))
    root = UsdSkel.Root.Define(stage, root_path)
    stage.SetDefaultPrim(root.GetPrim())
    skel = UsdSkel.Skeleton.Define(stage, root_path.AppendChild("Skeleton"))
    joints = Vt.TokenArray(joint_paths(skeleton))
    skel.CreateJointsAttr(joints)
    skel.CreateJointNamesAttr(Vt.TokenArray(list(skeleton.names)))  # the names as they are; paths must be identifiers
    rest = skeleton.rest_pose()
    skel.CreateRestTransformsAttr(_matrices(Gf, Vt, rest.rotations, rest.translations))
    if bind is None:
        skel.CreateBindTransformsAttr(_matrices(Gf, Vt, *_world(skeleton, rest)))
    else:
        skel.CreateBindTransformsAttr(Vt.Matrix4dArray.FromNumpy(np.ascontiguousarray(np.swapaxes(bind, -1, -2))))

    anim = UsdSkel.Animation.Define(stage, skel.GetPath().AppendChild("Animation"))
    anim.CreateJointsAttr(joints)
    t_attr, r_attr, s_attr = anim.CreateTranslationsAttr(), anim.CreateRotationsAttr(), anim.CreateScalesAttr()
    s_attr.Set(Vt.Vec3hArray.FromNumpy(np.ones((len(skeleton), 3), dtype=np.float16)))
    rotations = quat_normalize(clip.rotations)
    for f in range(clip.n_frames):
        t_attr.Set(Vt.Vec3fArray.FromNumpy(translations[f]), f)
        # GfQuatf holds (imaginary x, y, z, real w) in memory, as rigedit does (USD prints w first).
        r_attr.Set(Vt.QuatfArray.FromNumpy(rotations[f].astype(np.float32)), f)
    UsdSkel.BindingAPI.Apply(skel.GetPrim()).CreateAnimationSourceRel().SetTargets([anim.GetPath()])
    taken = {"Skeleton"}
    for mesh in meshes:
        base = Tf.MakeValidIdentifier(mesh.name) or "mesh"
        prim_name, k = base, 2
        while prim_name in taken:
            prim_name, k = f"{base}_{k}", k + 1
        taken.add(prim_name)
        _bound_mesh(stage, root_path.AppendChild(prim_name), skel, mesh)
    _export(stage, path)


def _bound_mesh(stage, prim_path, skel, mesh) -> None:
    Gf, Sdf, Usd, UsdGeom, UsdSkel, Vt = require_usd()
    geom = UsdGeom.Mesh.Define(stage, prim_path)
    points = mesh.points.astype(np.float32)
    geom.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(points))
    geom.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(len(mesh.triangles), 3, dtype=np.int32)))
    geom.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(mesh.triangles.reshape(-1).astype(np.int32)))
    geom.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)  # glTF triangles are the surface, not a cage
    geom.CreateExtentAttr(Vt.Vec3fArray.FromNumpy(np.stack([points.min(axis=0), points.max(axis=0)])))
    if mesh.color is not None:
        geom.CreateDisplayColorPrimvar(UsdGeom.Tokens.constant).Set(Vt.Vec3fArray([Gf.Vec3f(*mesh.color)]))
    binding = UsdSkel.BindingAPI.Apply(geom.GetPrim())
    binding.CreateSkeletonRel().SetTargets([skel.GetPath()])
    per_vertex = mesh.joints.shape[1]
    binding.CreateJointIndicesPrimvar(False, per_vertex).Set(Vt.IntArray.FromNumpy(mesh.joints.reshape(-1).astype(np.int32)))
    binding.CreateJointWeightsPrimvar(False, per_vertex).Set(Vt.FloatArray.FromNumpy(mesh.weights.reshape(-1).astype(np.float32)))
    binding.CreateGeomBindTransformAttr(Gf.Matrix4d(1.0))


def _world(skeleton: Skeleton, pose: Pose):
    pos, q = skeleton.fk(pose)
    return q, pos


def _matrices(Gf, Vt, rotations: np.ndarray, translations: np.ndarray):
    m = np.zeros((len(rotations), 4, 4))
    m[:, :3, :3] = np.swapaxes(quat_to_matrix(quat_normalize(rotations)), -1, -2)  # row-vector convention
    m[:, 3, :3] = translations
    m[:, 3, 3] = 1.0
    return Vt.Matrix4dArray.FromNumpy(m)


def _export(stage, path: Path) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix, dir=folder)
    os.close(fd)
    try:
        if not stage.GetRootLayer().Export(tmp):
            raise ValueError(f"{path}: USD could not write the file")
        os.chmod(tmp, file_mode(path))  # mkstemp's 0600 would make the export private
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
