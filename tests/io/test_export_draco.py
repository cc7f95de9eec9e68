"""Exports of a Draco-compressed glTF character: the glTF export keeps the compressed meshes
(and they read back), the USD export binds the decoded mesh (pxr skins it where it skins the
uncompressed file's export, to within Draco's quantisation), and without DracoPy the USD file
holds the skeleton alone and the export says why."""
from __future__ import annotations

import sys

import numpy as np
import pygltflib
import pytest

from rigedit.io.export import export_rig
from rigedit.io.gltf import read_gltf
from rigedit.io.gltf_mesh import read_gltf_mesh

from .draco_files import DRACO, draco_copy
from .export_checks import DATA, Result
from .test_gltf_draco import BITS, tolerance
from .test_gltf_mesh import posed

NAME = "RiggedSimple.glb"


def test_a_gltf_export_keeps_the_draco_mesh(tmp_path):
    copy = draco_copy(DATA / NAME, tmp_path / NAME, bits=BITS)
    result = Result(copy)
    out = tmp_path / "out.glb"
    export_rig(result.rig, out, result.source)
    imp, plain_imp = read_gltf(out), read_gltf(DATA / NAME)
    got, plain = read_gltf_mesh(out, imp), read_gltf_mesh(DATA / NAME, plain_imp).mesh
    assert got.warnings == [] and len(got.mesh) == len(plain)
    a, _ = posed(imp, got.mesh, imp.skeleton.rest_pose())
    b, _ = posed(plain_imp, plain, plain_imp.skeleton.rest_pose())
    assert np.linalg.norm(a - b, axis=1).max() <= tolerance(plain)
    assert DRACO in pygltflib.GLTF2().load(str(out)).extensionsRequired  # still compressed


def test_a_usd_export_binds_the_decoded_mesh(tmp_path):
    pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'rigedit[usd]')")
    from .test_export_usd import usd_skinned_points

    copy = draco_copy(DATA / NAME, tmp_path / NAME, bits=BITS)
    plain_result, draco_result = Result(DATA / NAME), Result(copy)
    export_rig(plain_result.rig, tmp_path / "plain.usdc", plain_result.source)
    export_rig(draco_result.rig, tmp_path / "draco.usdc", draco_result.source)
    tol = tolerance(read_gltf_mesh(DATA / NAME, read_gltf(DATA / NAME)).mesh)
    for frame in sorted({0, plain_result.clip.n_frames // 2, plain_result.clip.n_frames - 1}):
        a, b = usd_skinned_points(tmp_path / "plain.usdc", frame), usd_skinned_points(tmp_path / "draco.usdc", frame)
        assert len(a) == len(b) == 1
        assert np.linalg.norm(a[0] - b[0], axis=1).max() <= tol + 1e-6 * plain_result.size  # pxr skins in float32


def test_without_dracopy_the_usd_export_says_the_meshes_are_left_out(tmp_path, monkeypatch):
    pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'rigedit[usd]')")
    from .test_export_usd import usd_skinned_points

    copy = draco_copy(DATA / NAME, tmp_path / NAME, bits=BITS)
    monkeypatch.setitem(sys.modules, "DracoPy", None)
    result = Result(copy)
    export_rig(result.rig, tmp_path / "draco.usdc", result.source)
    assert usd_skinned_points(tmp_path / "draco.usdc", 0) == []
    assert any("meshes left out of the USD file" in w and "rigedit[draco]" in w for w in result.source.warnings)  # the CLI prints these
