"""Draco-compressed glTF meshes (KHR_draco_mesh_compression): a Draco copy of a real skinned
file skins like the file it was made from to within Draco's position quantisation; without
DracoPy the mesh is not shown and the warning says what to install; a broken blob names its
field. (A required extension rigedit cannot read: test_gltf_extensions.py.)

Tolerance: Draco rounds each position coordinate to the nearest of 2^bits - 1 steps across the
bounding cube, so a rest vertex moves by at most sqrt(3)/2 of a step; skinning blends the
joints' rigid frames times the binds (convex weights), so a posed vertex moves by at most that
times the largest singular value of a bind's 3x3 part. Normals, uvs, joints and weights are
encoded losslessly here (the weights compared exactly)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pygltflib
import pytest
from scipy.spatial import cKDTree

from rigedit.io.gltf import GltfError, read_gltf
from rigedit.io.gltf_mesh import read_gltf_mesh
from tests.io.draco_files import DRACO, draco_copy, position_step
from tests.io.test_gltf_mesh import posed, size_of

DATA = Path("/work/shared/data")
BITS = 14


def tolerance(mesh) -> float:
    step = position_step(mesh.rest, BITS)
    stretch = max(np.linalg.svd(mesh.binds[:, :, :3], compute_uv=False).max(), 1.0)
    return np.sqrt(3) / 2 * step * stretch + 1e-9 * size_of(mesh.rest)


def frames(imp, rng) -> list[int]:
    n = imp.clip.n_frames
    return sorted({0, n - 1, *rng.integers(0, n, 3).tolist()})


@pytest.mark.parametrize("name", ["RiggedSimple.glb", "CesiumMan.glb"])
def test_a_draco_copy_skins_like_its_original(name, tmp_path):
    rng = np.random.default_rng()
    copy = draco_copy(DATA / name, tmp_path / name, bits=BITS)
    plain_imp, draco_imp = read_gltf(DATA / name), read_gltf(copy)
    plain, got = read_gltf_mesh(DATA / name, plain_imp), read_gltf_mesh(copy, draco_imp)
    assert got.warnings == [] and len(got.mesh) == len(plain.mesh)
    np.testing.assert_array_equal(got.mesh.faces, plain.mesh.faces)
    np.testing.assert_array_equal(got.mesh.influences, plain.mesh.influences)
    np.testing.assert_allclose(got.mesh.weights, plain.mesh.weights, atol=1e-7)
    np.testing.assert_allclose(got.mesh.uv, plain.mesh.uv, atol=1e-7)
    tol = tolerance(plain.mesh)
    for k in frames(plain_imp, rng):
        a, _ = posed(plain_imp, plain.mesh, plain_imp.clip.frame(k))
        b, _ = posed(draco_imp, got.mesh, draco_imp.clip.frame(k))
        err = np.linalg.norm(a - b, axis=1).max()
        assert err <= tol, f"frame {k}: {err} > {tol}"


def test_a_reordered_draco_mesh_covers_the_same_surface(tmp_path):
    """Draco's default encoding reorders (and may split) vertices: every vertex of either mesh,
    posed, lies within the tolerance of one of the other's."""
    rng = np.random.default_rng()
    name = "CesiumMan.glb"
    copy = draco_copy(DATA / name, tmp_path / name, bits=BITS, preserve_order=False)
    plain_imp, draco_imp = read_gltf(DATA / name), read_gltf(copy)
    plain, got = read_gltf_mesh(DATA / name, plain_imp).mesh, read_gltf_mesh(copy, draco_imp).mesh
    assert len(got.faces) == len(plain.faces)
    tol = tolerance(plain)
    for k in frames(plain_imp, rng)[:3]:
        a, _ = posed(plain_imp, plain, plain_imp.clip.frame(k))
        b, _ = posed(draco_imp, got, draco_imp.clip.frame(k))
        assert cKDTree(a).query(b)[0].max() <= tol and cKDTree(b).query(a)[0].max() <= tol


@pytest.fixture
def no_dracopy(monkeypatch):
    monkeypatch.setitem(sys.modules, "DracoPy", None)  # `import DracoPy` now raises ImportError


def test_without_dracopy_the_warning_names_the_extra(tmp_path, no_dracopy):
    copy = draco_copy(DATA / "RiggedSimple.glb", tmp_path / "simple.glb")
    got = read_gltf_mesh(copy, read_gltf(copy))
    assert got.mesh is None
    assert got.warnings == [
        f"mesh not shown: simple.glb compresses its meshes with Draco ({DRACO}): pip install 'rigedit[draco]'"]


def test_without_dracopy_an_optional_draco_reads_the_fallback(tmp_path, monkeypatch):
    copy = draco_copy(DATA / "RiggedSimple.glb", tmp_path / "simple.glb", fallback=True, required=False)
    plain = read_gltf_mesh(DATA / "RiggedSimple.glb", read_gltf(DATA / "RiggedSimple.glb")).mesh
    decoded = read_gltf_mesh(copy, read_gltf(copy)).mesh
    assert 0 < np.abs(decoded.rest - plain.rest).max() <= tolerance(plain)  # read from the blob
    monkeypatch.setitem(sys.modules, "DracoPy", None)
    got = read_gltf_mesh(copy, read_gltf(copy))
    assert got.warnings == []
    np.testing.assert_array_equal(got.mesh.rest, plain.rest)  # the plain accessors, as stored


def _edit(copy: Path, change) -> Path:
    g = pygltflib.GLTF2().load(str(copy))
    change(g.meshes[0].primitives[0].extensions[DRACO], g)
    g.save_binary(str(copy))
    return copy


def test_a_blob_that_is_not_draco_names_the_field(tmp_path):
    copy = draco_copy(DATA / "RiggedSimple.glb", tmp_path / "simple.glb")
    # Point the extension at the skin's inverse bind matrices: bytes, but no Draco stream.
    _edit(copy, lambda ext, g: ext.update(bufferView=g.accessors[g.skins[0].inverseBindMatrices].bufferView))
    with pytest.raises(GltfError, match=rf"meshes\[0\]\.primitives\[0\]\.extensions\.{DRACO}: is not a readable Draco mesh"):
        read_gltf_mesh(copy, read_gltf(copy))


def test_an_attribute_id_the_blob_lacks_names_the_field(tmp_path):
    copy = draco_copy(DATA / "RiggedSimple.glb", tmp_path / "simple.glb")
    _edit(copy, lambda ext, g: ext["attributes"].update(WEIGHTS_0=77))
    with pytest.raises(GltfError, match=r"attributes\.WEIGHTS_0: names Draco attribute 77"):
        read_gltf_mesh(copy, read_gltf(copy))
