"""A glTF primitive's vertex arrays, from its accessors or from its Draco-compressed blob
(KHR_draco_mesh_compression), and which files' meshes cannot be read at all.

Draco is the "primitive" codec of gltf_codecs.CODECS, decoded by DracoPy, an optional package
(`pip install 'rigedit[draco]'`): the extension's `attributes` map each glTF attribute to the
unique id of a Draco attribute, and DracoPy hands every attribute back by that id, already
dequantised (positions, normals and uvs come back as floats). The accessors of a compressed
attribute keep their componentType, type and normalized flag, so normalised integer weights
are scaled here as for a plain accessor. Attributes the extension does not name are read from
their accessors, as the extension allows. Compressed bufferViews (EXT_meshopt_compression) are
decoded below this, by GltfDocument: their accessors read as plain ones.

A file whose Draco meshes also carry plain accessors (the extension's fallback, allowed when
Draco is only in extensionsUsed) is read from those without DracoPy. Without a decoder and
without a fallback the mesh is not shown and the warning says what to install; a file that
requires an extension rigedit cannot read is refused by read_gltf before its mesh is read.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .gltf_codecs import CODECS, DRACO, codecs_used, extension_of, not_understood
from .gltf_data import _COMPONENTS, _WIDTH, GltfDocument

__all__ = ["DRACO", "PrimitiveArrays", "compressed_accessors", "decoder", "unreadable"]

_DRACO = CODECS[DRACO]


def decoder():
    """The DracoPy module, or None when it is not installed (the caller says what to install)."""
    return _DRACO.library()


def _draco_of(prim) -> dict | None:
    return extension_of(prim, DRACO)


def _has_fallback(doc: GltfDocument, prim) -> bool:
    """Every attribute the primitive names has an accessor over real bytes."""
    names = {k: v for k, v in vars(prim.attributes).items() if isinstance(v, int) and not isinstance(v, bool)}
    accs = doc.gltf.accessors
    return bool(names) and all(0 <= i < len(accs) and accs[i].bufferView is not None for i in names.values())


def _views_have_fallback(doc: GltfDocument, codec) -> bool:
    """Every view the codec compresses also has its plain bytes in a buffer that holds data."""
    for view in doc.gltf.bufferViews or []:
        if extension_of(view, codec.extension) is None:
            continue
        buf = view.buffer
        if not isinstance(buf, int) or not 0 <= buf < len(doc.gltf.buffers):
            return False
        if extension_of(doc.gltf.buffers[buf], codec.extension) is not None:  # {"fallback": true}
            return False
    return True


def _prims_have_fallback(doc: GltfDocument, codec) -> bool:
    prims = [p for m in doc.gltf.meshes or [] for p in (m.primitives or [])]
    return all(_has_fallback(doc, p) for p in prims if extension_of(p, codec.extension) is not None)


# How a file without the codec's decoder may still be read: from the plain data it keeps beside.
_FALLBACK = {"bufferView": _views_have_fallback, "primitive": _prims_have_fallback}


def unreadable(doc: GltfDocument) -> str | None:
    """Why no mesh of `doc` can be shown, or None when its meshes can be read."""
    file = Path(doc.path).name
    unknown = not_understood(doc.gltf)
    if unknown:
        return f"mesh not shown: {file} needs {', '.join(unknown)}, which rigedit cannot read"
    required = set(doc.gltf.extensionsRequired or [])
    for codec in codecs_used(doc.gltf):
        if codec.library() is None and (codec.extension in required or not _FALLBACK[codec.level](doc, codec)):
            return f"mesh not shown: {file} compresses its meshes with {codec.missing()}"
    return None


def compressed_accessors(doc: GltfDocument) -> set[int]:
    """The accessors a Draco blob holds (their own bufferView is absent or only a fallback)."""
    out = set()
    for m in doc.gltf.meshes or []:
        for p in m.primitives or []:
            draco = _draco_of(p)
            if draco is None:
                continue
            out |= {getattr(p.attributes, n, None) for n in (draco.get("attributes") or {})}
            out.add(p.indices)
    out.discard(None)
    return out


class PrimitiveArrays:
    """One primitive's attributes (float64, (count, width)) and indices, wherever they are stored."""

    def __init__(self, doc: GltfDocument, where: str, prim) -> None:
        self.doc, self.where, self.prim = doc, where, prim
        self.draco = _draco_of(prim)
        self.mesh = None
        lib = decoder() if self.draco is not None else None
        if lib is not None:
            self.mesh = self._decode(lib)
        # Without DracoPy, unreadable() let this file through only for its fallback accessors.

    def _decode(self, lib):
        field = f"{self.where}.extensions.{DRACO}"
        data = self.doc.view_bytes(field + ".bufferView", self.draco.get("bufferView"))
        try:
            return _DRACO.decode(lib, data, self.draco)
        except ValueError as e:
            raise self.doc.error(field, str(e)) from None

    def attribute(self, name: str) -> np.ndarray | None:
        index = getattr(self.prim.attributes, name, None)
        if index is None:
            return None
        ids = (self.draco or {}).get("attributes") or {}
        if self.mesh is None or name not in ids:
            return self.doc.accessor(index)
        field = f"{self.where}.extensions.{DRACO}.attributes.{name}"
        got = self.mesh.get_attribute_by_unique_id(ids[name]) if isinstance(ids[name], int) else None
        if got is None:
            raise self.doc.error(field, f"names Draco attribute {ids[name]!r}, which the blob does not hold")
        out = np.asarray(got["data"], dtype=np.float64).reshape(len(got["data"]), -1)
        if not 0 <= index < len(self.doc.gltf.accessors):
            raise self.doc.error(f"{self.where}.attributes.{name}", "no such accessor")
        acc = self.doc.gltf.accessors[index]
        width = _WIDTH.get(acc.type) if isinstance(acc.type, str) else None
        if out.shape[1] != width:
            raise self.doc.error(field, f"decodes to {out.shape[1]} components, but accessors[{index}] is {acc.type}")
        dtype = _COMPONENTS.get(acc.componentType)
        if acc.normalized and dtype is not None and np.issubdtype(dtype, np.integer):
            out = np.maximum(out / np.iinfo(dtype).max, -1.0)
        if not np.all(np.isfinite(out)):
            raise self.doc.error(field, "decodes to NaN or infinite values")
        return out

    def indices(self) -> np.ndarray | None:
        """The index list (flat int64), or None for a primitive drawn in vertex order."""
        if self.mesh is not None:
            return np.asarray(self.mesh.faces, dtype=np.int64).reshape(-1)
        if self.prim.indices is None:
            return None
        idx = self.doc.accessor(self.prim.indices)
        if idx.shape[1] != 1:
            raise self.doc.error(f"{self.where}.indices", "must be SCALAR")
        return idx[:, 0].astype(np.int64)
