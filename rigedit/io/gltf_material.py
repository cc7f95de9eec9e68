"""A glTF primitive's material as the viewport draws it: per-vertex base colour (the
factor times COLOR_0) and the base colour texture with each vertex's uv.

The base colour is the metallic-roughness material's, or the diffuse of a
KHR_materials_pbrSpecularGlossiness material (older exporters' model, whose diffuse is the
base colour); the viewport draws no other material property, so other KHR_materials_*
extensions change nothing here. A texture's KHR_texture_transform (offset, rotation, scale,
and a texCoord that overrides the texture's) is applied to the uv as the extension's spec
composes it: uv' = T(offset) R(rotation) S(scale) uv, the rotation turning uv
counter-clockwise.
"""
from __future__ import annotations

import base64
import math
from pathlib import Path

import numpy as np

from rigedit.core.mesh import Texture

from .gltf_draco import PrimitiveArrays

_CLAMP = 33071
SPEC_GLOSS = "KHR_materials_pbrSpecularGlossiness"
TEXTURE_TRANSFORM = "KHR_texture_transform"


def material_arrays(doc, where, prim, a: PrimitiveArrays, n, parts) -> tuple[np.ndarray, int, np.ndarray]:
    """Per-vertex linear RGBA, our texture index (-1: none) and the vertices' uv (`parts`
    keeps the textures read so far, gltf_mesh._Parts)."""
    factor = np.ones(4)
    tex, uv = -1, np.zeros((n, 2))
    if prim.material is not None:
        g = doc.gltf
        if not isinstance(prim.material, int) or not 0 <= prim.material < len(g.materials):
            raise doc.error(f"{where}.material", f"names material {prim.material}, which does not exist")
        factor, info, field = _base_colour(doc, prim.material)
        if info is not None:
            index, coord_set, transform = _texture_info(doc, info, field)
            coord = a.attribute(f"TEXCOORD_{coord_set}")
            tex = _texture(doc, index, parts)
            if coord is None or tex < 0:
                tex = -1
            else:
                if coord.shape != (n, 2):
                    raise doc.error(f"{where}.attributes.TEXCOORD_{coord_set}", f"must be VEC2 for each of the {n} vertices")
                uv = coord if transform is None else coord @ transform[:, :2].T + transform[:, 2]
    colour = np.broadcast_to(factor, (n, 4)).copy()
    c = a.attribute("COLOR_0")
    if c is not None:
        if c.shape[0] != n or c.shape[1] not in (3, 4):
            raise doc.error(f"{where}.attributes.COLOR_0", f"must be VEC3 or VEC4 for each of the {n} vertices")
        colour[:, : c.shape[1]] *= c
    return colour, tex, uv


def _base_colour(doc, m: int) -> tuple[np.ndarray, object, str]:
    """(factor, texture info or None, the info's field for errors) of material `m`."""
    mat = doc.gltf.materials[m]
    spec_gloss = (mat.extensions or {}).get(SPEC_GLOSS)
    if isinstance(spec_gloss, dict):
        field = f"materials[{m}].extensions.{SPEC_GLOSS}"
        raw, info = spec_gloss.get("diffuseFactor"), spec_gloss.get("diffuseTexture")
        return _factor(doc, raw, f"{field}.diffuseFactor"), info, f"{field}.diffuseTexture"
    pbr = mat.pbrMetallicRoughness
    field = f"materials[{m}].pbrMetallicRoughness"
    if pbr is None:
        return np.ones(4), None, field
    return _factor(doc, pbr.baseColorFactor, f"{field}.baseColorFactor"), pbr.baseColorTexture, f"{field}.baseColorTexture"


def _factor(doc, raw, field: str) -> np.ndarray:
    if raw is None:
        return np.ones(4)
    try:
        factor = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        factor = None
    if factor is None or factor.shape != (4,) or not np.all(np.isfinite(factor)):
        raise doc.error(field, "must be 4 finite numbers")
    return factor


def _texture_info(doc, info, field: str) -> tuple[object, int, np.ndarray | None]:
    """(texture index, TEXCOORD set, the uv transform as a 2x3 matrix or None) of a texture
    info: pygltflib's TextureInfo, or the plain dict an extension holds."""
    get = info.get if isinstance(info, dict) else (lambda k: getattr(info, k, None))
    coord_set = get("texCoord") or 0
    ext = (get("extensions") or {}).get(TEXTURE_TRANSFORM)
    if ext is None:
        return get("index"), _coord_set(doc, coord_set, f"{field}.texCoord"), None
    if not isinstance(ext, dict):
        raise doc.error(f"{field}.extensions.{TEXTURE_TRANSFORM}", "must be an object")
    where = f"{field}.extensions.{TEXTURE_TRANSFORM}"
    offset = _numbers(doc, ext.get("offset", (0.0, 0.0)), 2, f"{where}.offset")
    scale = _numbers(doc, ext.get("scale", (1.0, 1.0)), 2, f"{where}.scale")
    rotation = float(_numbers(doc, [ext.get("rotation", 0.0)], 1, f"{where}.rotation")[0])
    if "texCoord" in ext:
        coord_set = ext["texCoord"]
    c, s = math.cos(rotation), math.sin(rotation)
    # T R S as the spec writes them, rows of the 2x3 affine map (row-vector uv: uv @ M[:, :2].T + M[:, 2]).
    m = np.array([[c * scale[0], s * scale[1], offset[0]], [-s * scale[0], c * scale[1], offset[1]]])
    return get("index"), _coord_set(doc, coord_set, f"{where}.texCoord"), m


def _coord_set(doc, value, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 16:
        raise doc.error(field, f"must be a TEXCOORD set number, got {value!r}")
    return value


def _numbers(doc, raw, size: int, field: str) -> np.ndarray:
    try:
        v = np.asarray(raw, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        v = np.zeros(0)
    if v.shape != (size,) or not np.all(np.isfinite(v)):
        raise doc.error(field, f"must be {size} finite number{'s' if size > 1 else ''}")
    return v


def _texture(doc, index, parts) -> int:
    """Our index of glTF texture `index` (its image read once), -1 when it has no image."""
    if index in parts.texture_of:
        return parts.texture_of[index]
    g = doc.gltf
    if not isinstance(index, int) or not 0 <= index < len(g.textures):
        raise doc.error("textures", f"has no texture {index!r}")
    t = g.textures[index]
    ours = -1
    if t.source is not None:
        if not 0 <= t.source < len(g.images):
            raise doc.error(f"textures[{index}].source", f"names image {t.source}, which does not exist")
        data, mime = _image(doc, t.source)
        wrap = (True, True)
        if t.sampler is not None and 0 <= t.sampler < len(g.samplers):
            s = g.samplers[t.sampler]
            wrap = (s.wrapS != _CLAMP, s.wrapT != _CLAMP)
        parts.textures.append(Texture(data, mime, wrap))
        ours = len(parts.textures) - 1
    parts.texture_of[index] = ours
    return ours


def _image(doc, i: int) -> tuple[bytes, str]:
    im = doc.gltf.images[i]
    mime = im.mimeType or ""
    if im.bufferView is not None:
        g = doc.gltf
        if not 0 <= im.bufferView < len(g.bufferViews):
            raise doc.error(f"images[{i}].bufferView", "no such buffer view")
        v = g.bufferViews[im.bufferView]
        data = doc.buffer(v.buffer)
        start = v.byteOffset or 0
        if start + v.byteLength > len(data):
            raise doc.error(f"images[{i}].bufferView", "reads past the end of its buffer")
        return bytes(data[start: start + v.byteLength]), mime
    uri = im.uri or ""
    if uri.startswith("data:"):
        head, _, body = uri.partition(",")
        try:
            return base64.b64decode(body), mime or head[5:].split(";")[0]
        except Exception:
            raise doc.error(f"images[{i}].uri", "is not a valid base64 data URI") from None
    file = Path(doc.path).parent / uri
    try:
        return file.read_bytes(), mime
    except OSError as e:
        raise doc.error(f"images[{i}].uri", f"cannot read {file}: {e.strerror or e}") from None
