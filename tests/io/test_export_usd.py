"""USD export (issue 15): a UsdSkel Skeleton and SkelAnimation whose joints pxr puts where
rigedit shows them."""
from __future__ import annotations

import builtins

import numpy as np
import pytest

from rigedit.core.skeleton import Pose
from rigedit.core.transforms import quat_to_matrix
from rigedit.io.export import export_rig

from .export_checks import DATA, READER_RTOL, SHARED, Result, usd_world

pxr = pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'rigedit[usd]')")


@pytest.mark.parametrize("suffix", [".usda", ".usdc", ".usd"])
@pytest.mark.parametrize("name", SHARED)
def test_pxr_puts_every_joint_where_rigedit_shows_it(name, suffix, exports):
    result, out = exports.result(name), exports.file(name, suffix)
    joints, world = usd_world(out)
    assert len(joints) == len(result.names)
    assert world.shape[:2] == (result.clip.n_frames, len(result.names))
    np.testing.assert_allclose(world[..., 3, :3], result.positions, rtol=0, atol=READER_RTOL * result.size)
    _, rot = result.rig.skeleton.fk(Pose(result.clip.rotations, result.clip.translations))
    np.testing.assert_allclose(np.swapaxes(world[..., :3, :3], -1, -2), quat_to_matrix(rot), rtol=0, atol=1e-5)


def test_stage_says_y_up_metres_and_the_frame_rate(tmp_path):
    from pxr import Usd, UsdGeom

    result = Result(DATA / "cmu_12_01_walk.bvh")
    out = tmp_path / "walk.usda"
    export_rig(result.rig, out, result.source)
    stage = Usd.Stage.Open(str(out))
    assert UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.y
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    assert stage.GetTimeCodesPerSecond() == pytest.approx(result.clip.frame_rate, rel=1e-9)


def test_joint_names_usd_cannot_take_are_made_valid_and_unique(tmp_path):
    from rigedit.core.clip import Clip
    from rigedit.core.rig import Rig
    from rigedit.core.skeleton import Skeleton

    sk = Skeleton(["Bip01 Pelvis", "Bip01 L.Thigh", "Bip01 L Thigh", "3d"], [-1, 0, 0, 0], np.eye(4)[:, :3], np.tile([0, 0, 0, 1.0], (4, 1)))
    rest = sk.rest_pose()
    rig = Rig(sk, clip=Clip(rest.rotations[None], rest.translations[None], 1 / 30))
    out = tmp_path / "names.usda"
    export_rig(rig, out)
    joints, world = usd_world(out)
    assert len(set(joints)) == 4 and all("/" not in j or j.startswith("Bip01_Pelvis/") for j in joints)
    np.testing.assert_allclose(world[0, :, 3, :3], sk.fk(rest)[0], atol=1e-7)


def test_without_usd_core_the_message_says_how_to_install(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def no_pxr(name, *args, **kwargs):
        if name == "pxr" or name.startswith("pxr."):
            raise ImportError("No module named 'pxr'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pxr)
    result = Result(DATA / "pybvh_bvh_test1.bvh")
    with pytest.raises(ValueError, match=r"rigedit\[usd\]"):
        export_rig(result.rig, tmp_path / "x.usda", result.source)
    assert not (tmp_path / "x.usda").exists()


GLTF_SOURCES = [n for n in SHARED if n.endswith((".glb", ".gltf"))]


def usd_skinned_points(path, frame: int) -> list[np.ndarray]:
    """Each bound mesh's points skinned by pxr's UsdSkel at `frame`, in prim order."""
    from pxr import Usd, UsdGeom, UsdSkel

    stage = Usd.Stage.Open(str(path))
    cache = UsdSkel.Cache()
    root = UsdSkel.Root(stage.GetDefaultPrim())
    cache.Populate(root, Usd.PrimDefaultPredicate)
    out = []
    for binding in cache.ComputeSkelBindings(root, Usd.PrimDefaultPredicate):
        transforms = cache.GetSkelQuery(binding.GetSkeleton()).ComputeSkinningTransforms(Usd.TimeCode(frame))
        for target in binding.GetSkinningTargets():
            points = UsdGeom.Mesh(target.GetPrim()).GetPointsAttr().Get(Usd.TimeCode(frame))
            assert target.ComputeSkinnedPoints(transforms, points, Usd.TimeCode(frame))
            out.append(np.array(points, dtype=np.float64))
    return out


@pytest.mark.parametrize("name", GLTF_SOURCES)
def test_the_skinned_mesh_is_bound_and_deforms_as_three_js_skins_the_gltf(name, tmp_path):
    """The USD mesh, skinned by pxr, lands where three.js skins the glTF export of the same
    result (an independent skinning of the source's own bind matrices)."""
    import pygltflib

    from ..js_readers import readers

    result = Result(DATA / name)
    usd, glb = tmp_path / "out.usdc", tmp_path / "out.glb"
    export_rig(result.rig, usd, result.source)
    g = pygltflib.GLTF2().load(str(DATA / name))
    keys = [f"{n.mesh}:{p}" for n in g.nodes if n.mesh is not None and n.skin is not None for p in range(len(g.meshes[n.mesh].primitives))]
    # The frame whose joints have moved or turned most from the first frame's: a clip's middle
    # frame can be its rest pose (SimpleSkin bends and returns, at rest at frames 0, 5, 6 and
    # 11 of 12), and a joint can turn without moving (SimpleSkin's node2).
    q = result.clip.rotations
    turned = 2 * np.arccos(np.clip(np.abs(np.sum(q * q[:1], axis=-1)), 0.0, 1.0)).max(axis=1)
    moved = np.abs(result.positions - result.positions[:1]).max(axis=(1, 2)) / result.size
    farthest = int(np.argmax(turned + moved))
    frames = [0, farthest, result.clip.n_frames - 1]
    skinned = [usd_skinned_points(usd, f) for f in frames]
    assert len(skinned[0]) == len(keys) > 0
    assert np.abs(skinned[1][0] - skinned[0][0]).max() > 1e-3 * result.size  # it does deform
    js = readers()
    if isinstance(js, str):
        pytest.skip(js)
    export_rig(result.rig, glb, result.source)
    seen = js.run("skin", glb, result.animation_name, ",".join(map(str, frames)))["meshes"]
    for k in range(len(frames)):
        for key, points in zip(keys, skinned[k]):
            three = np.array(seen[key][k]).reshape(-1, 3)
            np.testing.assert_allclose(points, three, rtol=0, atol=READER_RTOL * result.size, err_msg=key)


def test_a_usd_export_gets_the_permissions_of_any_other_export(tmp_path):
    # pxr writes into a temporary file made private (0600) by mkstemp; the file renamed into
    # place must be readable as a .glb or .bvh export is, and keep an existing file's mode.
    import os
    import stat

    result = Result(DATA / "pybvh_bvh_test1.bvh")
    export_rig(result.rig, tmp_path / "a.glb", result.source)
    export_rig(result.rig, tmp_path / "a.usda", result.source)
    mode = lambda p: stat.S_IMODE(os.stat(p).st_mode)  # noqa: E731
    assert mode(tmp_path / "a.usda") == mode(tmp_path / "a.glb")
    os.chmod(tmp_path / "a.usda", 0o640)
    export_rig(result.rig, tmp_path / "a.usda", result.source)
    assert mode(tmp_path / "a.usda") == 0o640
    assert sorted(os.listdir(tmp_path)) == ["a.glb", "a.usda"]  # no temporary file left
