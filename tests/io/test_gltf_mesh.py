"""glTF meshes bound to the imported skeleton: skinned as the glTF spec does it (joint world
matrices times inverse bind matrices, from the nodes read plainly), at rest and on the
animation's keys, turned with the skeleton, and small hand-made files for weights, rigid
meshes, colours and errors."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pygltflib
import pytest

from rigedit.core.skeleton import Pose
from rigedit.core.skinning import skin_mesh
from rigedit.io.bvh_axes import UP_TO_Y
from rigedit.io.gltf import GltfError, read_gltf
from rigedit.io.gltf_data import GltfDocument
from rigedit.io.gltf_mesh import read_gltf_mesh
from rigedit.core.transforms import quat_to_matrix
from tests.io.test_gltf import accessor, node_local
from tests.js_readers import readers

DATA = Path("/work/shared/data")


def node_worlds(g, overrides=None):
    overrides = overrides or {}
    parent = {c: i for i, n in enumerate(g.nodes) for c in (n.children or [])}

    def world(i):
        m = node_local(g.nodes[i], overrides.get(i))
        return m if i not in parent else world(parent[i]) @ m

    return [world(i) for i in range(len(g.nodes))]


def spec_skinning(path, overrides=None) -> np.ndarray:
    """Every skinned primitive's vertices as the glTF spec poses them, in file order."""
    g = pygltflib.GLTF2().load(str(path))
    raw = GltfDocument(path)
    world = node_worlds(g, overrides)
    out = []
    for node in g.nodes:
        if node.mesh is None or node.skin is None:
            continue
        skin = g.skins[node.skin]
        ibm = raw.accessor(skin.inverseBindMatrices).reshape(-1, 4, 4).transpose(0, 2, 1)
        joint_mats = np.array([world[j] @ ibm[k] for k, j in enumerate(skin.joints)])
        for prim in g.meshes[node.mesh].primitives:
            v = raw.accessor(prim.attributes.POSITION)
            j = raw.accessor(prim.attributes.JOINTS_0).astype(int)
            w = raw.accessor(prim.attributes.WEIGHTS_0)
            w = w / w.sum(axis=1, keepdims=True)
            m = np.einsum("vk,vkab->vab", w, joint_mats[j])
            out.append(np.einsum("vab,vb->va", m, np.c_[v, np.ones(len(v))])[:, :3])
    return np.concatenate(out)


def posed(imp, mesh, pose):
    pos, rot = imp.skeleton.fk_matrices(pose)
    return skin_mesh(mesh, pos, rot)


def size_of(points):
    return float(np.ptp(points, axis=0).max())


# threejs_SimpleSkinning: the mesh node is a sibling of the joints' root under a translated
# 'Armature', below a -90 degree X turn no joint holds; the spec ignores the mesh node's own
# transform, so only the joints' worlds (with those ancestors) place its vertices.
@pytest.mark.parametrize("name, vertices", [("RiggedSimple.glb", 160), ("CesiumMan.glb", 3273),
                                            ("threejs_SimpleSkinning.gltf", 64)])
def test_rest_pose_mesh_is_where_the_spec_puts_it(name, vertices):
    imp = read_gltf(DATA / name)
    got = read_gltf_mesh(DATA / name, imp)
    assert len(got.mesh) == vertices
    p, n = posed(imp, got.mesh, imp.skeleton.rest_pose())
    want = spec_skinning(DATA / name)
    np.testing.assert_allclose(p, want, atol=1e-6 * size_of(want))
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0, atol=1e-9)


@pytest.mark.parametrize("name", ["RiggedSimple.glb", "CesiumMan.glb", "threejs_SimpleSkinning.gltf"])
def test_keys_of_the_animation_skin_as_the_spec_does(name):
    g = pygltflib.GLTF2().load(str(DATA / name))
    g.convert_buffers(pygltflib.BufferFormat.BINARYBLOB)  # a .gltf's data URI into the blob accessor() reads
    imp = read_gltf(DATA / name)
    mesh = read_gltf_mesh(DATA / name, imp).mesh
    anim = g.animations[0]
    outputs = {(c.target.node, c.target.path): accessor(g, anim.samplers[c.sampler].output) for c in anim.channels}
    keys = imp.clip.n_frames
    for k in sorted({0, keys // 3, keys // 2, keys - 1}):
        overrides = {}
        for (node, path), values in outputs.items():
            overrides.setdefault(node, {})[path] = values[k]
        want = spec_skinning(DATA / name, overrides)
        got, _ = posed(imp, mesh, imp.clip.frame(k))
        np.testing.assert_allclose(got, want, atol=1e-5 * size_of(want), err_msg=f"key {k}")


def test_simple_skinning_poses_as_three_js_shows_it():
    # The file three.js ships for its skinning example: the tentacles hang below y = 0 and the
    # joints lie along X in three.js too, so rigedit must draw exactly that.
    name = "threejs_SimpleSkinning.gltf"
    imp = read_gltf(DATA / name)
    mesh = read_gltf_mesh(DATA / name, imp).mesh
    js = readers()
    if isinstance(js, str):
        pytest.skip(js)
    keys = imp.clip.n_frames
    frames = sorted({0, int(np.random.default_rng().integers(1, keys - 1)), keys - 1})
    arg = ",".join(map(str, frames))
    skinned = js.run("skin", DATA / name, imp.animation, arg)["meshes"]["0:0"]
    seen = js.batch([{"mode": "gltf", "file": DATA / name, "animation": imp.animation, "frames": frames}])[0]
    for k, f in enumerate(frames):
        pos, _ = imp.skeleton.fk_matrices(imp.clip.frame(f))
        three_joints = np.array([seen["nodes"][str(n)][k] for n in imp.nodes])
        np.testing.assert_allclose(pos, three_joints, atol=1e-5, err_msg=f"joints, key {f}")
        got, _ = posed(imp, mesh, imp.clip.frame(f))
        three = np.array(skinned[k]).reshape(-1, 3)
        # three.js poses in float32: its vertices sit up to 1e-5 of the size (7e-5 m) from the
        # float64 spec's, which rigedit's meet to 1e-7 m (the tests above).
        np.testing.assert_allclose(got, three, atol=5e-5 * size_of(three), err_msg=f"vertices, key {f}")
    assert three[:, 1].min() < -0.5 * size_of(three) < 0.0 < three[:, 1].max()  # it does hang below the ground


def test_the_mesh_turns_with_the_skeleton():
    plain = read_gltf(DATA / "CesiumMan.glb")
    turned = read_gltf(DATA / "CesiumMan.glb", up_axis="z")
    a, _ = posed(plain, read_gltf_mesh(DATA / "CesiumMan.glb", plain).mesh, plain.clip.frame(5))
    b, _ = posed(turned, read_gltf_mesh(DATA / "CesiumMan.glb", turned).mesh, turned.clip.frame(5))
    q = quat_to_matrix(UP_TO_Y["+z"])
    np.testing.assert_allclose(b, a @ q.T, atol=1e-9 * size_of(a))


def test_cesium_man_has_its_texture_and_uvs():
    imp = read_gltf(DATA / "CesiumMan.glb")
    mesh = read_gltf_mesh(DATA / "CesiumMan.glb", imp).mesh
    assert len(mesh.textures) == 1 and mesh.textures[0].mime == "image/jpeg"
    assert mesh.textures[0].data[:3] == b"\xff\xd8\xff"  # a JPEG's start-of-image marker
    assert np.all(mesh.texture == 0)
    assert np.ptp(mesh.uv, axis=0).min() > 0.5  # the UVs spread over the image
    np.testing.assert_allclose(mesh.colours, 1.0)  # the material's factor is white


def test_rigged_simple_takes_the_material_colour():
    imp = read_gltf(DATA / "RiggedSimple.glb")
    mesh = read_gltf_mesh(DATA / "RiggedSimple.glb", imp).mesh
    factor = pygltflib.GLTF2().load(str(DATA / "RiggedSimple.glb")).materials[0].pbrMetallicRoughness.baseColorFactor
    np.testing.assert_allclose(mesh.colours, np.tile(factor, (len(mesh), 1)), atol=1e-12)
    assert np.all(mesh.texture == -1)


# --- hand-made files --------------------------------------------------------------------------


def write(path: Path, doc: dict, arrays: list[tuple[np.ndarray, str, int]]) -> Path:
    """A .gltf with the arrays (values, type, componentType) as accessors 0.. in one data: buffer."""
    blob = bytearray()
    doc = dict(doc, asset={"version": "2.0"}, accessors=[], bufferViews=[])
    dtypes = {5126: "<f4", 5121: "u1", 5123: "<u2"}
    for values, kind, ctype in arrays:
        a = np.ascontiguousarray(values, dtype=dtypes[ctype])
        while len(blob) % 4:
            blob.append(0)
        doc["bufferViews"].append({"buffer": 0, "byteOffset": len(blob), "byteLength": a.nbytes})
        doc["accessors"].append({"bufferView": len(doc["bufferViews"]) - 1, "componentType": ctype,
                                 "count": len(a), "type": kind})
        blob += a.tobytes()
    doc["buffers"] = [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}]
    path.write_text(json.dumps(doc))
    return path


QUAD = np.array([[0, 0, 0], [1, 0, 0], [0, 2, 0], [1, 2, 0]], float)


def small_character(tmp_path, weights=None, joints=None, *, rigid_scale=2.0, root_scale=1.0) -> Path:
    """Two joints up +Y (0 at the origin, 1 a metre up); a quad skinned to them, its top on
    joint 1; and a rigid quad under joint 1 in a node scaled by rigid_scale."""
    weights = np.array([[1, 0, 0, 0]] * 2 + [[0, 1, 0, 0]] * 2, float) if weights is None else weights
    joints = np.array([[0, 1, 0, 0]] * 4) if joints is None else joints
    ibm = np.array([np.eye(4), np.eye(4)])
    ibm[1][1, 3] = -1.0
    nodes = [
        {"name": "root", "children": [1], "scale": [root_scale] * 3},
        {"name": "upper", "translation": [0, 1, 0], "children": [3]},
        {"name": "skinned", "mesh": 0, "skin": 0},
        {"name": "prop", "mesh": 1, "translation": [0.5, 0, 0], "scale": [rigid_scale] * 3},
    ]
    doc = {
        "scene": 0, "scenes": [{"nodes": [0, 2]}], "nodes": nodes,
        "skins": [{"joints": [0, 1], "inverseBindMatrices": 3}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "indices": 4, "material": 0}]},
                   {"primitives": [{"attributes": {"POSITION": 0}, "indices": 4}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.25, 1.0, 1.0]}}],
    }
    arrays = [(QUAD, "VEC3", 5126), (joints, "VEC4", 5121), (weights, "VEC4", 5126),
              (ibm.transpose(0, 2, 1).reshape(2, 16), "MAT4", 5126), (np.array([0, 1, 2, 2, 1, 3]), "SCALAR", 5123)]
    return write(tmp_path / "small.gltf", doc, arrays)


def bend_upper(imp, deg):
    pose = imp.skeleton.rest_pose()
    rot = pose.rotations.copy()
    a = np.radians(deg) / 2
    rot[imp.skeleton.index("upper")] = [0, 0, np.sin(a), np.cos(a)]  # about +Z
    return Pose(rot, pose.translations)


def test_weights_that_do_not_sum_to_one_are_normalised(tmp_path):
    w = np.array([[0.5, 0, 0, 0], [0.2, 0.2, 0, 0], [0, 0.3, 0, 0], [0, 0.7, 0, 0]])
    path = small_character(tmp_path, weights=w)
    imp = read_gltf(path)
    got = read_gltf_mesh(path, imp)
    np.testing.assert_allclose(got.mesh.weights.sum(axis=1), 1.0, atol=1e-12)
    assert any("normalised" in m and "4 vertices" in m for m in got.warnings)
    p, _ = posed(imp, got.mesh, imp.skeleton.rest_pose())
    np.testing.assert_allclose(p[:4], QUAD, atol=1e-6)  # not shrunk toward the origin


def test_skinned_and_rigid_parts_follow_their_joints(tmp_path):
    path = small_character(tmp_path)
    imp = read_gltf(path)
    mesh = read_gltf_mesh(path, imp).mesh
    assert [p[0] for p in mesh.parts] == ["skinned", "prop"] or len(mesh.parts) == 2
    rest, _ = posed(imp, mesh, imp.skeleton.rest_pose())
    # The prop: under joint 1 (a metre up), shifted 0.5 in x and scaled 2.
    np.testing.assert_allclose(rest[4:], QUAD * 2.0 + [0.5, 1.0, 0.0], atol=1e-6)
    p, _ = posed(imp, mesh, bend_upper(imp, 90))
    turn = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]])  # 90 degrees about +Z
    np.testing.assert_allclose(p[:2], QUAD[:2], atol=1e-6)  # the bottom stays with the root
    np.testing.assert_allclose(p[2:4], (QUAD[2:4] - [0, 1, 0]) @ turn.T + [0, 1, 0], atol=1e-6)
    np.testing.assert_allclose(p[4:], (QUAD * 2.0 + [0.5, 0, 0]) @ turn.T + [0, 1, 0], atol=1e-6)


def test_material_colour_is_per_vertex(tmp_path):
    path = small_character(tmp_path)
    mesh = read_gltf_mesh(path, read_gltf(path)).mesh
    np.testing.assert_allclose(mesh.colours[:4], [[0.5, 0.25, 1.0, 1.0]] * 4)
    np.testing.assert_allclose(mesh.colours[4:], 1.0)  # no material: white


def test_a_joint_index_past_the_skin_names_the_field(tmp_path):
    path = small_character(tmp_path, joints=np.array([[0, 5, 0, 0]] * 4), weights=np.array([[0.5, 0.5, 0, 0]] * 4))
    with pytest.raises(GltfError, match=r"primitives\[0\]\.attributes\.JOINTS_0.*past the skin"):
        read_gltf_mesh(path, read_gltf(path))


@pytest.mark.parametrize("deg", [0.0, 50.0, -120.0])
def test_a_scaled_armature_skins_as_the_spec_does(deg, tmp_path):
    # rigedit's skeleton keeps only the joints' rigid frames; the binds carry the scale back.
    path = small_character(tmp_path, root_scale=0.5)
    imp = read_gltf(path)
    mesh = read_gltf_mesh(path, imp).mesh
    a = np.radians(deg) / 2
    want = spec_skinning(path, {1: {"rotation": [0, 0, np.sin(a), np.cos(a)]}})
    got, _ = posed(imp, mesh, bend_upper(imp, deg))
    np.testing.assert_allclose(got[:4], want, atol=1e-6)
