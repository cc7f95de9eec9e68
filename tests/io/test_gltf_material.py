"""A glTF material as the viewport draws it (io/gltf_material.py): KHR_texture_transform moves
the uv as its spec composes offset, rotation and scale; a KHR_materials_pbrSpecularGlossiness
material's diffuse is its base colour. Checked on CesiumMan, textured, edited with pygltflib."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pygltflib
import pytest

from rigedit.io.gltf import GltfError, read_gltf
from rigedit.io.gltf_mesh import read_gltf_mesh

CESIUM = Path("/work/shared/data/CesiumMan.glb")


def _mesh(path):
    return read_gltf_mesh(path, read_gltf(path)).mesh


def _edited(tmp_path, edit) -> Path:
    g = pygltflib.GLTF2().load(str(CESIUM))
    edit(g)
    out = tmp_path / "edited.glb"
    g.save_binary(str(out))
    return out


def _spec_transform(uv, offset, rotation, scale) -> np.ndarray:
    """The extension's own composition: uv' = T R S (u, v, 1), as 3x3 matrices."""
    t = np.array([[1, 0, offset[0]], [0, 1, offset[1]], [0, 0, 1.0]])
    r = np.array([[np.cos(rotation), np.sin(rotation), 0], [-np.sin(rotation), np.cos(rotation), 0], [0, 0, 1.0]])
    s = np.array([[scale[0], 0, 0], [0, scale[1], 0], [0, 0, 1.0]])
    h = np.column_stack([uv, np.ones(len(uv))])
    return (h @ (t @ r @ s).T)[:, :2]


def test_a_texture_transform_moves_the_uv_as_its_spec_says(tmp_path):
    rng = np.random.default_rng()
    offset, scale = rng.uniform(-1, 1, 2), rng.uniform(0.2, 3.0, 2)
    rotation = float(rng.uniform(-np.pi, np.pi))

    def edit(g):
        g.extensionsUsed = [*(g.extensionsUsed or []), "KHR_texture_transform"]
        g.materials[0].pbrMetallicRoughness.baseColorTexture.extensions = {
            "KHR_texture_transform": {"offset": offset.tolist(), "rotation": rotation, "scale": scale.tolist()}}

    plain, moved = _mesh(str(CESIUM)), _mesh(str(_edited(tmp_path, edit)))
    assert (moved.texture >= 0).all() and np.array_equal(moved.texture, plain.texture)
    np.testing.assert_allclose(moved.uv, _spec_transform(plain.uv, offset, rotation, scale), atol=1e-12)


def test_a_texture_transforms_texcoord_names_the_set_it_reads(tmp_path):
    """texCoord in the extension overrides the texture's: a set the primitive lacks leaves it
    untextured, as a missing TEXCOORD does."""
    def edit(g):
        g.materials[0].pbrMetallicRoughness.baseColorTexture.extensions = {"KHR_texture_transform": {"texCoord": 1}}

    assert (_mesh(str(_edited(tmp_path, edit))).texture == -1).all()


@pytest.mark.parametrize("field, value", [("rotation", "a quarter"), ("scale", [1.0]), ("offset", [0.0, "left"]),
                                          ("texCoord", -1)])
def test_a_bad_texture_transform_is_refused_naming_its_field(tmp_path, field, value):
    def edit(g):
        g.materials[0].pbrMetallicRoughness.baseColorTexture.extensions = {"KHR_texture_transform": {field: value}}

    path = _edited(tmp_path, edit)
    with pytest.raises(GltfError) as e:
        _mesh(str(path))
    assert "edited.glb" in str(e.value) and f"KHR_texture_transform.{field}" in str(e.value)


def test_a_specular_glossiness_materials_diffuse_is_its_base_colour(tmp_path):
    rng = np.random.default_rng()
    diffuse = rng.uniform(0.1, 1.0, 4).tolist()

    def edit(g):
        m = g.materials[0]
        m.extensions = {"KHR_materials_pbrSpecularGlossiness": {
            "diffuseFactor": diffuse, "diffuseTexture": {"index": m.pbrMetallicRoughness.baseColorTexture.index},
            "specularFactor": [0.2, 0.2, 0.2], "glossinessFactor": 0.5}}
        m.pbrMetallicRoughness = None
        g.extensionsUsed = [*(g.extensionsUsed or []), "KHR_materials_pbrSpecularGlossiness"]

    plain, spec = _mesh(str(CESIUM)), _mesh(str(_edited(tmp_path, edit)))
    assert np.array_equal(spec.texture, plain.texture) and (spec.texture >= 0).all()
    np.testing.assert_array_equal(spec.uv, plain.uv)
    np.testing.assert_allclose(spec.colours, plain.colours * np.asarray(diffuse), atol=1e-12)
