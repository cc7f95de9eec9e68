"""glTF extensions: a file that requires one rigedit cannot read is refused for its skeleton and
animation as for its mesh, naming the file and the extension; meshopt-compressed buffer views
(EXT_meshopt_compression) are decoded for every reader, and without the meshopt package, or
with a broken stream, the message names the field and what to install."""
from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import numpy as np
import pygltflib
import pytest

from rigedit.import_cli import cmd_import
from rigedit.io.gltf import GltfError, read_gltf
from rigedit.io.gltf_codecs import MESHOPT
from rigedit.io.gltf_data import GltfDocument
from rigedit.io.gltf_draco import unreadable
from rigedit.io.gltf_mesh import read_gltf_mesh

pytest.importorskip("meshopt", reason="meshopt is not installed (pip install 'rigedit[meshopt]')")

DATA = Path("/work/shared/data")
MESHOPT_FILE = Path(__file__).parent.parent / "data" / "CesiumMan_meshopt.glb"


def _requiring(tmp_path, *extensions, name="needs.glb") -> Path:
    g = pygltflib.GLTF2().load(str(DATA / "RiggedSimple.glb"))
    g.extensionsUsed = list(extensions)
    g.extensionsRequired = list(extensions)
    g.save_binary(str(tmp_path / name))
    return tmp_path / name


@pytest.mark.parametrize("animation", [0, None])
def test_a_required_extension_rigedit_cannot_read_refuses_the_file(tmp_path, animation):
    path = _requiring(tmp_path, "KHR_materials_emissive_strength", "EXT_made_up_keys", "KHR_animation_pointer")
    with pytest.raises(GltfError) as e:
        read_gltf(path, animation=animation)
    assert e.value.path == str(path) and e.value.field == "extensionsRequired"
    assert e.value.problem == "needs EXT_made_up_keys, KHR_animation_pointer, which rigedit cannot read"
    # The mesh reader, asked on its own, says the same of the same extensions.
    assert unreadable(GltfDocument(path)) == (
        "mesh not shown: needs.glb needs EXT_made_up_keys, KHR_animation_pointer, which rigedit cannot read")


def test_import_names_the_file_and_the_extension_in_one_line(tmp_path, capsys):
    path = _requiring(tmp_path, "EXT_made_up_keys")
    assert cmd_import([str(path), "-o", str(tmp_path / "rig.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(str(path)) and "\n" not in err, err
    assert "extensionsRequired: needs EXT_made_up_keys" in err
    assert not (tmp_path / "rig.json").exists()


def test_required_extensions_that_change_nothing_read_are_read(tmp_path):
    path = _requiring(tmp_path, "KHR_materials_emissive_strength", "KHR_texture_transform", "KHR_mesh_quantization")
    plain = read_gltf(DATA / "RiggedSimple.glb")
    got = read_gltf(path)
    np.testing.assert_array_equal(got.clip.rotations, plain.clip.rotations)
    assert read_gltf_mesh(path, got).warnings == []


def _glb(path: Path) -> tuple[dict, bytearray]:
    """A GLB's JSON and binary chunk. pygltflib's save_binary merges buffers and moves views,
    but not the offsets inside EXT_meshopt_compression, so these tests edit the chunks."""
    data = path.read_bytes()
    n = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + n])
    m = struct.unpack_from("<I", data, 20 + n)[0]
    return doc, bytearray(data[28 + n:28 + n + m])


def _write_glb(path: Path, doc: dict, blob: bytes) -> Path:
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    blob = bytes(blob) + b"\0" * (-len(blob) % 4)
    body = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(blob), 0x004E4942) + blob
    path.write_bytes(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)
    return path


def _compressed_view(doc: dict, filt: str | None = None) -> int:
    """The first view meshopt compresses (with the filter, when one is named)."""
    return next(i for i, v in enumerate(doc["bufferViews"])
                if MESHOPT in v.get("extensions", {}) and (filt is None or v["extensions"][MESHOPT].get("filter") == filt))


def _broken(tmp_path, change, filt="QUATERNION") -> tuple[Path, int]:
    """The meshopt file with a change to one view of the animation's rotations (read_gltf needs them)."""
    doc, blob = _glb(MESHOPT_FILE)
    i = _compressed_view(doc, filt)
    change(doc["bufferViews"][i], blob)
    return _write_glb(tmp_path / "broken.glb", doc, blob), i


def test_a_stream_that_is_not_meshopt_names_the_view(tmp_path):
    rng = np.random.default_rng()

    def noise(view, blob):
        ext = view["extensions"][MESHOPT]
        start, length = ext["byteOffset"], ext["byteLength"]
        blob[start:start + length] = rng.integers(0, 256, length, dtype=np.uint8).tobytes()
        blob[start] = 0  # not the 0xa_ header byte meshopt's vertex streams start with

    path, i = _broken(tmp_path, noise)
    with pytest.raises(GltfError, match=rf"bufferViews\[{i}\]\.extensions\.{MESHOPT}: is not a readable meshopt ATTRIBUTES stream"):
        read_gltf(path)


def test_a_count_the_stream_cannot_hold_is_refused_before_decoding(tmp_path):
    path, i = _broken(tmp_path, lambda view, blob: view["extensions"][MESHOPT].update(count=10**12))
    with pytest.raises(GltfError, match=rf"bufferViews\[{i}\]\.extensions\.{MESHOPT}: claims 1000000000000 elements"):
        read_gltf(path)


def test_a_view_whose_decoded_size_is_not_its_length_names_it(tmp_path):
    path, i = _broken(tmp_path, lambda view, blob: view.update(byteLength=8))
    with pytest.raises(GltfError, match=rf"bufferViews\[{i}\]\.extensions\.{MESHOPT}: decodes to \d+ bytes, but the view's byteLength is 8"):
        read_gltf(path)


@pytest.fixture
def no_meshopt(monkeypatch):
    monkeypatch.setitem(sys.modules, "meshopt", None)  # `import meshopt` now raises ImportError


def test_without_meshopt_a_compressed_animation_names_the_extra(no_meshopt):
    with pytest.raises(GltfError) as e:
        read_gltf(MESHOPT_FILE)
    assert f"extensions.{MESHOPT}" in e.value.field
    assert e.value.problem == f"is compressed with meshopt ({MESHOPT}): pip install 'rigedit[meshopt]'"


def test_without_meshopt_the_skeleton_opens_and_the_mesh_warning_names_the_extra(no_meshopt):
    imp = read_gltf(MESHOPT_FILE, animation=None)  # node transforms are JSON: readable as they are
    assert len(imp.skeleton) == 19
    got = read_gltf_mesh(MESHOPT_FILE, imp)
    assert got.mesh is None
    assert got.warnings == [f"mesh not shown: CesiumMan_meshopt.glb compresses its meshes with meshopt ({MESHOPT}): "
                            "pip install 'rigedit[meshopt]'"]


def test_a_later_buffer_without_uri_holds_no_data(tmp_path):
    """gltf-transform's meshopt fallback buffer has no bytes: reading it as the GLB chunk would
    hand out the wrong bytes."""
    path, i = _broken(tmp_path, lambda view, blob: view.pop("extensions"))
    with pytest.raises(GltfError, match=r"buffers\[1\]: holds no data: it stands in for views compressed with meshopt"):
        GltfDocument(path).view_bytes("x", i)
    doc, blob = _glb(path)
    doc["buffers"][1].pop("extensions")
    with pytest.raises(GltfError, match=r"buffers\[1\]: has no uri and holds no data"):
        GltfDocument(_write_glb(path, doc, blob)).view_bytes("x", i)


def test_without_meshopt_an_optional_compression_with_an_empty_fallback_names_the_extra(tmp_path, no_meshopt):
    """meshopt only in extensionsUsed: a reader without it reads the views' fallback bytes,
    which gltf-transform leaves empty; the message says so and what to install."""
    doc, blob = _glb(MESHOPT_FILE)
    doc["extensionsRequired"] = [e for e in doc["extensionsRequired"] if e != MESHOPT]
    path = _write_glb(tmp_path / "optional.glb", doc, blob)
    with pytest.raises(GltfError, match=rf"buffers\[1\]: holds no data: it stands in for views compressed with meshopt \({MESHOPT}\): pip install 'rigedit\[meshopt\]'"):
        read_gltf(path)
    got = read_gltf_mesh(path, read_gltf(path, animation=None))
    assert got.mesh is None and "pip install 'rigedit[meshopt]'" in got.warnings[0]
