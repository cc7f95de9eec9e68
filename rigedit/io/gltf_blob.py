"""Writing glTF binary data: one buffer grown by appending arrays, accessors over them, and
the GLB container.

Each bufferView starts on an 8-byte boundary (the glTF rule is the component size, at most
4 bytes; 8 also keeps a copied source buffer's own alignment), and float accessors carry
min and max where the spec asks for them (animation inputs, POSITION).
"""
from __future__ import annotations

import base64
import json
import struct

import numpy as np
import pygltflib

from .float32 import as_float32

ALIGN = 8
_TYPES = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}


class Blob:
    """The single buffer of a document being written, and the views and accessors into it."""

    def __init__(self, gltf: pygltflib.GLTF2, path: str, data: bytes = b"") -> None:
        self.gltf = gltf
        self.path = path  # the file being written, for errors
        self.data = bytearray(data)

    def append_bytes(self, data: bytes) -> int:
        """Append raw bytes at the next aligned offset; the offset."""
        self.data.extend(b"\0" * (-len(self.data) % ALIGN))
        start = len(self.data)
        self.data.extend(data)
        return start

    def view(self, data: bytes, target: int | None = None) -> int:
        start = self.append_bytes(data)
        self.gltf.bufferViews.append(pygltflib.BufferView(buffer=0, byteOffset=start, byteLength=len(data), target=target))
        return len(self.gltf.bufferViews) - 1

    def accessor(self, values: np.ndarray, field: str, row: str | list[str], *, bounds: bool = False,
                 component: int = pygltflib.FLOAT) -> int:
        """A tightly packed accessor over `values` (count, width) or (count,); `field` and
        `row` (a word or the rows' names) name what it holds when a value is too large for float32 (io/float32.py)."""
        values = np.asarray(values)
        values = values.reshape(len(values), -1)
        if component == pygltflib.FLOAT:
            values = as_float32(values, self.path, field, row)
        dtype = {pygltflib.FLOAT: "<f4", pygltflib.UNSIGNED_SHORT: "<u2", pygltflib.UNSIGNED_INT: "<u4"}[component]
        packed = np.ascontiguousarray(values, dtype=dtype)
        acc = pygltflib.Accessor(
            bufferView=self.view(packed.tobytes()),
            componentType=component,
            count=len(packed),
            type=_TYPES[packed.shape[1]],
        )
        if bounds:
            acc.min = [float(v) for v in packed.min(axis=0)]
            acc.max = [float(v) for v in packed.max(axis=0)]
        self.gltf.accessors.append(acc)
        return len(self.gltf.accessors) - 1


def document_bytes(gltf: pygltflib.GLTF2, blob: Blob, binary: bool) -> bytes:
    """The whole file: a GLB container, or .gltf JSON with the buffer as a data URI."""
    data = bytes(blob.data)
    if binary:
        gltf.buffers = [pygltflib.Buffer(byteLength=len(data))] if data else []
    else:
        uri = "data:application/octet-stream;base64," + base64.b64encode(data).decode("ascii")
        gltf.buffers = [pygltflib.Buffer(byteLength=len(data), uri=uri)] if data else []
    text = json.dumps(json.loads(gltf.gltf_to_json()), separators=(",", ":"))
    if not binary:
        return text.encode("utf-8")
    js = text.encode("utf-8")
    js += b" " * (-len(js) % 4)
    bin_chunk = data + b"\0" * (-len(data) % 4)
    chunks = struct.pack("<I4s", len(js), b"JSON") + js
    if data:
        chunks += struct.pack("<I4s", len(bin_chunk), b"BIN\0") + bin_chunk
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks
