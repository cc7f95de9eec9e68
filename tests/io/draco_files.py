"""Draco-compressed copies of real glTF files, made with DracoPy's encoder the way glTF
exporters make them: every primitive's POSITION, NORMAL, TEXCOORD_0, JOINTS_0 and WEIGHTS_0
and its indices go into one Draco blob in a new bufferView, the primitive gets a
KHR_draco_mesh_compression extension naming each attribute's Draco unique id, and the
accessors keep their type and count but lose their bufferView (unless `fallback`, where the
plain data stays beside the blob, as the extension allows).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pygltflib
import pytest

from rigedit.io.gltf_data import GltfDocument

# The test extra installs it, as it installs usd-core; a bare install skips these tests, saying why.
DracoPy = pytest.importorskip("DracoPy", reason="DracoPy is not installed (pip install 'rigedit[draco]')")

DRACO = "KHR_draco_mesh_compression"
# Draco's attribute types for the three it knows by kind (DracoPy's attribute_type).
_KINDS = {0: "POSITION", 1: "NORMAL", 3: "TEXCOORD_0"}
# The generic attributes' unique ids, chosen by the encoder's caller.
_GENERIC = {"JOINTS_0": 0, "WEIGHTS_0": 1}
_JOINT_TYPES = {5121: np.uint8, 5123: np.uint16}


def position_step(points: np.ndarray, bits: int) -> float:
    """Draco's position quantisation step: the bounding cube's side over 2^bits - 1."""
    return float(np.ptp(points, axis=0).max()) / (2**bits - 1)


def draco_copy(src: str | os.PathLike, dst: Path, *, bits: int = 14, preserve_order: bool = True,
               fallback: bool = False, required: bool = True) -> Path:
    g = pygltflib.GLTF2().load(str(src))
    raw = GltfDocument(src)
    blob = bytearray(g.binary_blob())
    for mesh in g.meshes:
        for prim in mesh.primitives:
            a = prim.attributes
            arrays = {n: raw.accessor(getattr(a, n)) for n in (*_KINDS.values(), *_GENERIC) if getattr(a, n, None) is not None}
            faces = raw.accessor(prim.indices).astype(np.uint32).reshape(-1, 3)
            generic = {_GENERIC["JOINTS_0"]: arrays["JOINTS_0"].astype(_JOINT_TYPES[g.accessors[a.JOINTS_0].componentType]),
                       _GENERIC["WEIGHTS_0"]: arrays["WEIGHTS_0"].astype(np.float32)}
            data = DracoPy.encode(arrays["POSITION"].astype(np.float32), faces, quantization_bits=bits,
                                  preserve_order=preserve_order, normals=arrays.get("NORMAL"),
                                  tex_coord=arrays.get("TEXCOORD_0"), generic_attributes=generic)
            decoded = DracoPy.decode(data)
            ids = dict(_GENERIC)
            ids.update({_KINDS[at["attribute_type"]]: at["unique_id"] for at in decoded.attributes if at["attribute_type"] in _KINDS})
            while len(blob) % 4:
                blob.append(0)
            g.bufferViews.append(pygltflib.BufferView(buffer=0, byteOffset=len(blob), byteLength=len(data)))
            blob += data
            prim.extensions = {DRACO: {"bufferView": len(g.bufferViews) - 1, "attributes": {n: ids[n] for n in arrays}}}
            for acc in [getattr(a, n) for n in arrays] + [prim.indices]:
                if not fallback:
                    g.accessors[acc].bufferView = None
                    g.accessors[acc].byteOffset = None
            if not fallback:
                for n in arrays:
                    g.accessors[getattr(a, n)].count = len(decoded.points)
                g.accessors[prim.indices].count = int(decoded.faces.size)
    g.extensionsUsed = sorted(set(g.extensionsUsed or []) | {DRACO})
    if required:
        g.extensionsRequired = sorted(set(g.extensionsRequired or []) | {DRACO})
    g.buffers[0].byteLength = len(blob)
    g.set_binary_blob(bytes(blob))
    g.save_binary(str(dst))
    return dst
