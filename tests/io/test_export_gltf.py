"""glTF export (issue 15): the source document kept with the result added as an animation,
valid by the Khronos validator, read by three.js as rigedit shows it (every shared file's:
test_export_readers.py)."""
from __future__ import annotations

import numpy as np
import pygltflib
import pytest

from rigedit.io.export import export_rig
from rigedit.io.figure import world_positions
from rigedit.io.gltf import read_gltf

from ..js_readers import readers
from .export_checks import DATA, READER_RTOL, SHARED, Result

GLTF_SOURCES = [n for n in SHARED if n.endswith((".glb", ".gltf"))]


def _js():
    js = readers()
    if isinstance(js, str):
        pytest.skip(js)
    return js


def _expected(result: Result) -> np.ndarray:
    return result.in_gltf_frame()


# Every shared file's export read by three.js and the Khronos validator: test_export_readers.py.


@pytest.mark.parametrize("name", GLTF_SOURCES)
@pytest.mark.parametrize("only_result", [False, True])
def test_the_source_document_is_kept(name, only_result, tmp_path):
    result = Result(DATA / name)
    out = tmp_path / "out.glb"
    export_rig(result.rig, out, result.source, only_result=only_result)
    before, after = pygltflib.GLTF2().load(str(DATA / name)), pygltflib.GLTF2().load(str(out))
    assert [n.name for n in after.nodes] == [n.name for n in before.nodes]
    assert [n.children for n in after.nodes] == [n.children for n in before.nodes]
    assert [(n.mesh, n.skin) for n in after.nodes] == [(n.mesh, n.skin) for n in before.nodes]
    assert len(after.meshes) == len(before.meshes) and len(after.materials) == len(before.materials)
    assert [s.joints for s in after.skins] == [s.joints for s in before.skins]
    names = [a.name for a in after.animations]
    assert names[0] == result.animation_name
    assert names[1:] == ([] if only_result else [a.name for a in before.animations])
    # The mesh data itself came along: the same vertex positions.
    a, b = _first_positions(DATA / name), _first_positions(out)
    np.testing.assert_array_equal(a, b)


def _first_positions(path) -> np.ndarray:
    from rigedit.io.gltf_data import GltfDocument

    doc = GltfDocument(path)
    return doc.accessor(doc.gltf.meshes[0].primitives[0].attributes.POSITION)


def test_a_bvh_gives_a_skeleton_with_its_animation(tmp_path):
    result = Result(DATA / "cmu_12_01_walk.bvh")
    out = tmp_path / "walk.glb"
    export_rig(result.rig, out, result.source)
    g = pygltflib.GLTF2().load(str(out))
    assert [n.name for n in g.nodes] == result.names
    assert not g.meshes and len(g.skins) == 1 and len(g.animations) == 1
    back = read_gltf(out)
    assert back.skeleton.names == result.names
    assert back.clip.n_frames == result.clip.n_frames
    assert back.clip.frame_rate == pytest.approx(result.clip.frame_rate, rel=1e-6)


def test_animation_option_picks_the_clip(tmp_path):
    from rigedit.core.autochains import propose_chains
    from rigedit.io.export import load_for_export

    result = Result(DATA / "CesiumMan.glb")
    rig = result.rig
    for c in propose_chains(rig.skeleton, rig.clip.frame(0)):
        rig.add_chain(c.name, c.joints, solver=c.solver, target=np.asarray(c.target) + 0.05, pole=c.pole)
    out = tmp_path / "two.glb"
    export_rig(rig, out, result.source)  # animations: the IK result, then the source's own
    g = pygltflib.GLTF2().load(str(out))
    g.animations[0].name, g.animations[1].name = "first", "second"
    g.save(str(out))
    original = Result(DATA / "CesiumMan.glb").clip
    picked = {name: load_for_export(out, animation=name)[0].clip for name in ("first", "second")}
    np.testing.assert_allclose(picked["second"].rotations, original.rotations, atol=1e-5)
    assert np.abs(picked["first"].rotations - original.rotations).max() > 1e-2
    with pytest.raises(ValueError, match="no animation named 'nope'"):
        load_for_export(out, animation="nope")


def test_a_figure_the_import_stood_up_goes_back_into_its_document(tmp_path):
    """A glTF whose figure lies along +Z (as a file exported without the Y-up conversion
    does): the import turns it to +Y; the export writes into the document as it is, so the
    file's own frame (and three.js) has the figure where the file had it, turned back."""
    walk = Result(DATA / "cmu_12_01_walk.bvh")
    flat = tmp_path / "lying.glb"
    export_rig(walk.rig, flat, walk.source)
    g = pygltflib.GLTF2().load(str(flat))
    h = float(np.sqrt(0.5))
    g.nodes.append(pygltflib.Node(name="Z_UP", rotation=[h, 0.0, 0.0, h], children=list(g.scenes[0].nodes)))
    g.scenes[0].nodes = [len(g.nodes) - 1]
    g.save(str(flat))
    lying = Result(flat)
    assert lying.source.gltf.turn is not None
    np.testing.assert_allclose(lying.positions, walk.positions, atol=1e-5 * walk.size)  # stood up as rigedit shows it
    out = tmp_path / "out.glb"
    export_rig(lying.rig, out, lying.source)
    assert len(pygltflib.GLTF2().load(str(out)).nodes) == len(g.nodes)
    back = read_gltf(out, up_axis="auto")
    index = [back.skeleton.index(n) for n in lying.names]
    got = world_positions(back.skeleton, back.clip)[:, index]
    np.testing.assert_allclose(got, lying.positions, atol=1e-6 * lying.size)
    js = readers()
    if isinstance(js, str):
        pytest.skip(js)
    seen = js.gltf_positions(out, lying.animation_name)
    expected = _expected(lying)
    worst = max(np.abs(np.array(seen["nodes"][str(n)]) - expected[:, j]).max() for j, n in enumerate(lying.source.gltf.nodes))
    assert worst <= READER_RTOL * lying.size


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_scaled_ancestors_and_matrix_nodes_keep_every_joint_in_place(suffix, tmp_path):
    """test_gltf's hand-made file: a non-uniformly scaled, rotated armature, a joint given by
    a matrix (which an animated node may not have: it becomes TRS), a non-uniform scale on a
    joint; and a source animation without the min/max glTF requires (added)."""
    from .test_gltf import SCALED_NODES, rot
    from .test_gltf import write_gltf as write_source

    times = [0.0, 0.5, 1.0]
    anim = [(3, "rotation", "LINEAR", times, np.array([rot([1, 1, 0], 40), rot([1, 0, 0], 90), rot([0, 1, 1], 10)])),
            (1, "translation", "LINEAR", times, np.array([[0, 0, 1], [0, 1, 1], [1, 1, 1.0]]))]
    skins = [{"name": "legs", "joints": [1, 3, 4]}, {"name": "tail", "joints": [1, 5]}]
    src = write_source(tmp_path / "scaled.gltf", SCALED_NODES, skins, anim)
    result = Result(src)
    out = tmp_path / f"out{suffix}"
    export_rig(result.rig, out, result.source)
    g = pygltflib.GLTF2().load(str(out))
    assert g.nodes[2].matrix is None and g.nodes[2].translation is not None
    back = read_gltf(out, up_axis="auto")
    index = [back.skeleton.index(n) for n in result.names]
    np.testing.assert_allclose(world_positions(back.skeleton, back.clip)[:, index], result.positions, atol=1e-6 * result.size)
    js = _js()
    report = js.validate(out)
    assert report["numErrors"] == 0, report["errors"]
    seen = js.gltf_positions(out, result.animation_name)
    expected = _expected(result)
    worst = max(np.abs(np.array(seen["nodes"][str(n)]) - expected[:, j]).max() for j, n in enumerate(result.source.gltf.nodes))
    assert worst <= READER_RTOL * result.size


def test_a_gltf_with_files_beside_it_is_exported_whole(tmp_path):
    """A .gltf whose buffer and texture are files next to it: the .glb export carries both."""
    g = pygltflib.GLTF2().load(str(DATA / "CesiumMan.glb"))
    blob = g.binary_blob()
    view = g.bufferViews[g.images[0].bufferView]
    image = blob[view.byteOffset : view.byteOffset + view.byteLength]
    (tmp_path / "skin.jpg").write_bytes(image)
    g.images[0].bufferView, g.images[0].uri, g.images[0].mimeType = None, "skin.jpg", None
    (tmp_path / "data.bin").write_bytes(blob)
    g.buffers[0].uri = "data.bin"
    src = tmp_path / "cesium.gltf"
    src.write_text(g.gltf_to_json())
    result = Result(src)
    out = tmp_path / "elsewhere" / "out.glb"
    out.parent.mkdir()
    export_rig(result.rig, out, result.source)
    after = pygltflib.GLTF2().load(str(out))
    assert after.images[0].uri is None and after.images[0].mimeType == "image/jpeg"
    view = after.bufferViews[after.images[0].bufferView]
    assert after.binary_blob()[view.byteOffset : view.byteOffset + view.byteLength] == image
    np.testing.assert_array_equal(_first_positions(out), _first_positions(DATA / "CesiumMan.glb"))
    js = readers()
    if isinstance(js, str):
        pytest.skip(js)
    assert js.validate(out)["numErrors"] == 0


@pytest.mark.parametrize("name", GLTF_SOURCES)
def test_the_sources_own_animations_and_bind_matrices_are_copied_unstrided_and_unchanged(name, tmp_path):
    """glTF forbids byteStride on the views of animation samplers and inverse bind matrices;
    a source that has it (three.js's SimpleSkinning) is copied with each of those accessors
    tightly packed, holding the same values."""
    from rigedit.io.gltf_data import GltfDocument

    result = Result(DATA / name)
    out = tmp_path / "out.glb"
    export_rig(result.rig, out, result.source)
    src, got = GltfDocument(DATA / name), GltfDocument(out)
    pairs = [(s, a) for s, a in zip(src.gltf.animations or [], got.gltf.animations[1:])]
    assert len(pairs) == len(src.gltf.animations or [])
    used = [(s.input, t.input) for sa, ga in pairs for s, t in zip(sa.samplers, ga.samplers)]
    used += [(s.output, t.output) for sa, ga in pairs for s, t in zip(sa.samplers, ga.samplers)]
    used += [(s.inverseBindMatrices, t.inverseBindMatrices) for s, t in zip(src.gltf.skins or [], got.gltf.skins or [])
             if s.inverseBindMatrices is not None]
    assert used
    for a, b in used:
        assert got.gltf.bufferViews[got.gltf.accessors[b].bufferView].byteStride is None
        np.testing.assert_array_equal(got.accessor(b), src.accessor(a))
