"""glTF import against node data read plainly from pygltflib: rest pose and every key of the animation."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pygltflib
import pytest

from rigedit.core.skeleton import Pose
from rigedit.io.gltf import GltfError, read_gltf

DATA = Path("/work/shared/data")


def quat_matrix(q):
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def trs_matrix(t, r, s):
    m = np.eye(4)
    m[:3, :3] = quat_matrix(np.asarray(r, float)) @ np.diag(s)
    m[:3, 3] = t
    return m


def node_local(node, override=None):
    """A node's local matrix; `override` maps 'translation'/'rotation'/'scale' to animated values."""
    override = override or {}
    if node.matrix is not None and not override:
        return np.array(node.matrix, dtype=float).reshape(4, 4).T
    t = override.get("translation", node.translation or [0, 0, 0])
    r = override.get("rotation", node.rotation or [0, 0, 0, 1])
    s = override.get("scale", node.scale or [1, 1, 1])
    return trs_matrix(t, r, s)


def world_positions(g, overrides=None):
    overrides = overrides or {}
    parent = {c: i for i, n in enumerate(g.nodes) for c in (n.children or [])}

    def world(i):
        m = node_local(g.nodes[i], overrides.get(i))
        return m if i not in parent else world(parent[i]) @ m

    return {g.nodes[j].name: world(j)[:3, 3] for s in g.skins for j in s.joints}


def accessor(g, index):
    acc = g.accessors[index]
    view = g.bufferViews[acc.bufferView]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc.type]
    start = (view.byteOffset or 0) + (acc.byteOffset or 0)
    data = np.frombuffer(g.binary_blob(), dtype="<f4", count=acc.count * width, offset=start)
    return data.reshape(acc.count, width).astype(float)


def skeleton_positions(imp, pose):
    pos, _ = imp.skeleton.fk_matrices(pose)
    return {n: pos[..., i, :] for i, n in enumerate(imp.skeleton.names)}


@pytest.mark.parametrize("name, joints", [("RiggedSimple.glb", 2), ("CesiumMan.glb", 19)])
def test_rest_pose_matches_the_nodes(name, joints):
    g = pygltflib.GLTF2().load(str(DATA / name))
    imp = read_gltf(DATA / name)
    assert len(imp.skeleton) == joints
    assert imp.skins == ["Armature"]
    want = world_positions(g)
    got = skeleton_positions(imp, imp.skeleton.rest_pose())
    assert sorted(got) == sorted(want)
    for n in want:
        np.testing.assert_allclose(got[n], want[n], atol=1e-9, err_msg=n)


@pytest.mark.parametrize("name", ["RiggedSimple.glb", "CesiumMan.glb"])
def test_every_key_of_the_animation_matches_the_nodes(name):
    g = pygltflib.GLTF2().load(str(DATA / name))
    imp = read_gltf(DATA / name)
    anim = g.animations[0]
    inputs = {anim.samplers[c.sampler].input for c in anim.channels}
    times = accessor(g, inputs.pop())[:, 0]
    assert not inputs or all(np.array_equal(accessor(g, i)[:, 0], times) for i in inputs)
    # Keys are evenly spaced, so the clip's frames are the keys themselves.
    assert imp.clip.n_frames == len(times)
    assert imp.clip.frame_time == pytest.approx(np.diff(times).mean(), rel=1e-6)
    outputs = {(c.target.node, c.target.path): accessor(g, anim.samplers[c.sampler].output) for c in anim.channels}
    got_all = skeleton_positions(imp, Pose(imp.clip.rotations, imp.clip.translations))
    for k in range(len(times)):
        overrides = {}
        for (node, path), values in outputs.items():
            overrides.setdefault(node, {})[path] = values[k]
        want = world_positions(g, overrides)
        for n in want:
            np.testing.assert_allclose(got_all[n][k], want[n], atol=1e-6, err_msg=f"{n} key {k}")


def test_cesium_man_stands_up_in_y_and_walks():
    imp = read_gltf(DATA / "CesiumMan.glb")
    pos, _ = imp.skeleton.fk_matrices(Pose(imp.clip.rotations, imp.clip.translations))
    head = imp.skeleton.index("Skeleton_neck_joint_2")
    foot = imp.skeleton.index("leg_joint_L_5")
    up = pos[:, head] - pos[:, foot]
    # The Z_UP node is baked in: Y is up in every frame, by a person's height less a lifted foot.
    assert np.all(up[:, 1] > 0.8)
    assert np.all(up[:, 1] > np.abs(up[:, [0, 2]]).max(axis=1))


def test_resampling_at_another_rate_interpolates_between_keys():
    at24 = read_gltf(DATA / "CesiumMan.glb")
    at48 = read_gltf(DATA / "CesiumMan.glb", fps=48)
    assert at48.clip.frame_time == pytest.approx(1 / 48)
    assert at48.clip.n_frames == 2 * at24.clip.n_frames - 1
    p24, _ = at24.skeleton.fk_matrices(Pose(at24.clip.rotations, at24.clip.translations))
    p48, _ = at48.skeleton.fk_matrices(Pose(at48.clip.rotations, at48.clip.translations))
    np.testing.assert_allclose(p48[::2], p24, atol=1e-5)  # the even frames fall on keys (float32 times)
    # Between keys the root's translation is the midpoint (LINEAR).
    mid = 0.5 * (at24.clip.translations[:-1, 0] + at24.clip.translations[1:, 0])
    np.testing.assert_allclose(at48.clip.translations[1::2, 0], mid, atol=1e-5)


# --- Small hand-made files for what the samples do not have ---------------------------------


def write_gltf(path: Path, nodes, skins, animation=None):
    """A .gltf with an embedded data: URI buffer; animation = [(node, path, interp, times, values)]."""
    blob = bytearray()
    accessors, views = [], []

    def add(array, kind):
        a = np.asarray(array, dtype="<f4")
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": a.nbytes})
        accessors.append({"bufferView": len(views) - 1, "componentType": 5126, "count": len(a), "type": kind})
        blob.extend(a.tobytes())
        return len(accessors) - 1

    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes, "skins": skins}
    if animation:
        samplers, channels = [], []
        for node, target, interp, times, values in animation:
            kind = "VEC4" if target == "rotation" else "VEC3"
            samplers.append({"input": add(np.array(times)[:, None].ravel(), "SCALAR"), "output": add(values, kind), "interpolation": interp})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": target}})
        doc["animations"] = [{"samplers": samplers, "channels": channels}]
    doc["buffers"] = [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}]
    doc["bufferViews"] = views
    doc["accessors"] = accessors
    path.write_text(json.dumps(doc))
    return path


def rot(axis, deg):
    a = np.radians(deg) / 2
    v = np.asarray(axis, float) / np.linalg.norm(axis)
    return [*(v * np.sin(a)), np.cos(a)]


SCALED_NODES = [
    # 0: a rotated, non-uniformly scaled armature above the joints (no skin lists it)
    {"name": "Armature", "children": [1], "rotation": rot([1, 0, 0], -90), "scale": [2.0, 0.5, 1.5], "translation": [1, 2, 3]},
    {"name": "hip", "children": [2, 5], "translation": [0, 0, 1]},
    {"name": "helper", "children": [3], "matrix": list(trs_matrix([0.1, 0.2, 0.3], rot([0, 0, 1], 30), [1, 1, 1]).T.ravel())},
    {"name": "knee", "children": [4], "translation": [0, 0.4, -0.5], "rotation": rot([1, 1, 0], 40), "scale": [1, 3, 1]},
    {"name": "foot", "translation": [0, -0.5, 0.2]},
    {"name": "tail", "translation": [0.3, 0, 0], "rotation": rot([0, 1, 0], 20)},
]


def test_scaled_ancestors_matrix_nodes_and_unlisted_nodes_between_joints(tmp_path):
    skins = [{"name": "legs", "joints": [1, 3, 4]}, {"name": "tail", "joints": [1, 5]}]
    path = write_gltf(tmp_path / "scaled.gltf", SCALED_NODES, skins)
    imp = read_gltf(path)
    assert imp.skins == ["legs", "tail"]
    assert imp.skeleton.names == ["hip", "helper", "knee", "foot", "tail"]  # helper kept: it joins hip and knee
    assert [imp.skeleton.names[p] if p >= 0 else None for p in imp.skeleton.parents] == [None, "hip", "helper", "knee", "hip"]
    g = pygltflib.GLTF2().load(str(path))
    want = world_positions(g)
    got = skeleton_positions(imp, imp.skeleton.rest_pose())
    for n in want:
        np.testing.assert_allclose(got[n], want[n], atol=1e-12, err_msg=n)
    only_tail = read_gltf(path, skin="tail")
    assert only_tail.skeleton.names == ["hip", "tail"]


def test_an_empty_leaf_node_under_a_leaf_joint_is_kept_as_its_bone_end(tmp_path):
    # FBX converters (RobotExpressive) write a leaf bone's end as an empty child node: kept,
    # it gives the bone its length (a leg down to the foot). Meshes, nodes with children and
    # nodes under joints that have joint children are not joints.
    nodes = [
        {"name": "hip", "children": [1, 5], "translation": [0, 1, 0]},
        {"name": "knee", "children": [2, 3, 4], "translation": [0.1, -0.5, 0]},
        {"name": "knee_end", "translation": [0, -0.45, 0]},
        {"name": "knee_mesh", "mesh": 0},
        {"name": "knee_group", "children": [6]},
        {"name": "hip_end", "translation": [0, 0.2, 0]},
        {"name": "deep", "translation": [0, 0.1, 0]},
    ]
    path = write_gltf(tmp_path / "ends.gltf", nodes, [{"joints": [0, 1]}])
    doc = json.loads(path.read_text())
    doc["meshes"] = [{"primitives": [{"attributes": {}}]}]
    path.write_text(json.dumps(doc))
    imp = read_gltf(path)
    assert imp.skeleton.names == ["hip", "knee", "knee_end"]  # hip_end: hip has a joint child
    pos = skeleton_positions(imp, imp.skeleton.rest_pose())
    np.testing.assert_allclose(pos["knee_end"], [0.1, 0.05, 0.0], atol=1e-12)


@pytest.mark.parametrize("interp", ["LINEAR", "STEP", "CUBICSPLINE"])
def test_interpolation_modes(interp, tmp_path):
    times = [0.0, 0.5, 1.0]
    t_keys = np.array([[0, 0, 1], [0, 1, 1], [2, 1, 1]], float)
    r_keys = np.array([rot([0, 0, 1], 0), rot([0, 0, 1], 90), rot([0, 0, 1], 180)])
    if interp == "CUBICSPLINE":  # zero tangents: (in, value, out) per key
        t_vals = np.concatenate([np.stack([np.zeros(3), v, np.zeros(3)]) for v in t_keys])
        r_vals = np.concatenate([np.stack([np.zeros(4), v, np.zeros(4)]) for v in r_keys])
    else:
        t_vals, r_vals = t_keys, r_keys
    anim = [(1, "translation", interp, times, t_vals), (1, "rotation", interp, times, r_vals)]
    path = write_gltf(tmp_path / "anim.gltf", SCALED_NODES, [{"joints": [1, 3, 4]}], anim)
    imp = read_gltf(path, fps=4)
    assert imp.clip.n_frames == 5  # 0, .25, .5, .75, 1.0
    g = pygltflib.GLTF2().load(str(path))
    got = skeleton_positions(imp, Pose(imp.clip.rotations, imp.clip.translations))
    for f, t in enumerate(np.arange(5) * 0.25):
        k, u = min(int(t / 0.5), 1), (t % 0.5) / 0.5 if t < 1.0 else 1.0
        if interp == "STEP":
            tv, rv = (t_keys[k], r_keys[k]) if u < 1.0 else (t_keys[k + 1], r_keys[k + 1])
        else:
            w = u if interp == "LINEAR" else 3 * u**2 - 2 * u**3  # Hermite with zero tangents
            tv = (1 - w) * t_keys[k] + w * t_keys[k + 1]
            angle = 90 * (k + w)  # slerp about one axis is linear in angle
            rv = rot([0, 0, 1], angle)
            if interp == "CUBICSPLINE":  # the spline blends the quaternions linearly, then normalises
                q = (1 - w) * np.array(r_keys[k]) + w * np.array(r_keys[k + 1])
                rv = q / np.linalg.norm(q)
        want = world_positions(g, {1: {"translation": tv, "rotation": rv}})
        for n in want:
            np.testing.assert_allclose(got[n][f], want[n], atol=1e-6, err_msg=f"{interp} {n} t={t}")


def test_uneven_keys_resample_at_30_fps(tmp_path):
    anim = [(1, "translation", "LINEAR", [0.0, 0.1, 1.0], [[0, 0, 0], [1, 0, 0], [1, 1, 0]])]
    imp = read_gltf(write_gltf(tmp_path / "uneven.gltf", SCALED_NODES, [{"joints": [1, 3]}], anim))
    assert imp.clip.frame_time == pytest.approx(1 / 30)
    assert imp.clip.n_frames == 31


@pytest.mark.parametrize(
    "change, field, words",
    [
        (lambda d: d.update(skins=[]), "skins", "no skin"),
        (lambda d: d["skins"][0].update(joints=[1, 99]), "skins[0].joints[1]", "does not exist"),
        (lambda d: d["nodes"][3].update(translation=[0, 1]), "nodes[3].translation", "3 finite numbers"),
        (lambda d: d["nodes"][2].update(matrix=[1, 0, 0]), "nodes[2].matrix", "16 finite"),
        (lambda d: (d["nodes"][0].update(children=[]), d["nodes"][4].update(children=[1])), "nodes[", "cycle"),
        (lambda d: d["accessors"][1].update(count=99), "accessors[1]", "past the end"),
        (lambda d: d["animations"][0]["channels"][0]["target"].update(path="colour"), "animations[0].channels[0].target.path", "unknown path"),
        (lambda d: d["animations"][0]["samplers"][0].update(interpolation="SMOOTH"), "animations[0].samplers[0].interpolation", "unknown"),
        (lambda d: d["buffers"][0].update(uri="missing.bin"), "buffers[0].uri", "cannot read"),
    ],
)
def test_broken_files_name_the_field(change, field, words, tmp_path):
    anim = [(1, "translation", "LINEAR", [0.0, 1.0], [[0, 0, 0], [1, 0, 0]])]
    path = write_gltf(tmp_path / "broken.gltf", SCALED_NODES, [{"joints": [1, 3, 4]}], anim)
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(GltfError) as err:
        read_gltf(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}, {field}"), msg
    assert words in msg


def test_not_gltf_at_all(tmp_path):
    for content in [b"glTF\x02\x00\x00\x00garbage", b"{not json", b""]:
        p = tmp_path / "bad.glb"
        p.write_bytes(content)
        with pytest.raises(GltfError, match="bad.glb"):
            read_gltf(p)
    with pytest.raises(GltfError, match="cannot read"):
        read_gltf(tmp_path / "absent.glb")
    with pytest.raises(GltfError, match="no skin named"):
        read_gltf(DATA / "CesiumMan.glb", skin="Legs")
