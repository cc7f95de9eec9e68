"""Loading a glTF 2.0 document (.glb or .gltf) and reading its accessors as numpy arrays.

pygltflib parses the JSON and the GLB container; buffers (the GLB blob, data: URIs or files
next to a .gltf) and accessors (strides, component types, normalised integers) are read here,
so every problem can be reported as a GltfError naming the file and the field. A bufferView
stored compressed (a "bufferView" codec of gltf_codecs.CODECS, e.g. EXT_meshopt_compression) is
decoded here once, so every accessor over it reads plain bytes.
"""
from __future__ import annotations

import base64
import os
import stat
import warnings
from pathlib import Path

import numpy as np
import pygltflib

from .gltf_codecs import CODECS, extension_of

_COMPONENTS = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_VIEW_CODECS = [c for c in CODECS.values() if c.level == "bufferView"]


class GltfError(ValueError):
    """A glTF file that cannot be imported: names the file, the field (e.g. `nodes[3].matrix`) and the problem."""

    def __init__(self, path, field: str | None, problem: str) -> None:
        self.path = None if path is None else os.fspath(path)
        self.field = field
        self.problem = problem
        where = self.path or "<gltf>"
        if field:
            where += f", {field}"
        super().__init__(f"{where}: {problem}")


class GltfDocument:
    """A parsed glTF document with its buffers loaded."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise GltfError(path, None, f"cannot read the file: {e.strerror or e}") from None
        self.size = len(data)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if data[:4] == b"glTF":
                    self.gltf = pygltflib.GLTF2.load_from_bytes(data)
                else:
                    self.gltf = pygltflib.GLTF2.gltf_from_json(data.decode("utf-8-sig"))
        except Exception as e:  # pygltflib raises whatever its parser meets; all mean "not glTF"
            raise GltfError(path, None, f"not a readable glTF file ({type(e).__name__}: {e})") from None
        if self.gltf is None:
            raise GltfError(path, None, "the GLB container has no JSON chunk")
        self._buffers: dict[int, bytes] = {}
        self._views: dict[int, bytes] = {}  # decoded compressed bufferViews

    def error(self, field: str | None, problem: str) -> GltfError:
        return GltfError(self.path, field, problem)

    def buffer(self, index: int) -> bytes:
        if index in self._buffers:
            return self._buffers[index]
        field = f"buffers[{index}]"
        if not _is_index(index) or not 0 <= index < len(self.gltf.buffers):
            raise self.error(field, "no such buffer")
        uri = self.gltf.buffers[index].uri
        if uri is not None and not isinstance(uri, str):
            raise self.error(f"{field}.uri", f"must be a string, got {uri!r}")
        if uri is None and index > 0:
            # Only the first buffer may be a GLB's binary chunk; a later one without a uri is a
            # compression codec's fallback (its views are read through the codec), or nothing.
            for codec in _VIEW_CODECS:
                if extension_of(self.gltf.buffers[index], codec.extension) is not None:
                    raise self.error(field, f"holds no data: it stands in for views compressed with {codec.missing()}")
            raise self.error(field, "has no uri and holds no data (only the first buffer can be the GLB's binary chunk)")
        if uri is None:
            blob = self.gltf.binary_blob()
            if blob is None:
                raise self.error(field, "has no uri and the file has no binary chunk")
            data = bytes(blob)
        elif uri.startswith("data:"):
            try:
                data = base64.b64decode(uri.split(",", 1)[1])
            except Exception:
                raise self.error(f"{field}.uri", "is not a valid base64 data URI") from None
        else:
            data = self._external(index, uri)
        self._buffers[index] = data
        return data

    def _external(self, index: int, uri: str) -> bytes:
        """A buffer in a file beside the .gltf: a regular file, read no further than its
        declared byteLength, so a uri naming a device or a fifo cannot hang the reader."""
        field = f"buffers[{index}]"
        file = Path(self.path).parent / uri
        length = self._whole(f"{field}.byteLength", self.gltf.buffers[index].byteLength)
        try:
            if not stat.S_ISREG(file.stat().st_mode):
                raise self.error(f"{field}.uri", f"{file} is not a regular file")
            with open(file, "rb") as f:
                return f.read(length)
        except OSError as e:
            raise self.error(f"{field}.uri", f"cannot read {file}: {e.strerror or e}") from None

    def accessor(self, index: int) -> np.ndarray:
        """The accessor's elements as float64, shape (count, width); normalised integers scaled to [-1, 1] or [0, 1]."""
        field = f"accessors[{index}]"
        if not _is_index(index) or not 0 <= index < len(self.gltf.accessors):
            raise self.error(field, "no such accessor")
        acc = self.gltf.accessors[index]
        dtype = _COMPONENTS.get(acc.componentType) if _is_index(acc.componentType) else None
        width = _WIDTH.get(acc.type) if isinstance(acc.type, str) else None
        if dtype is None or width is None:
            raise self.error(field, f"unsupported component type {acc.componentType!r} / type {acc.type!r}")
        if getattr(acc, "sparse", None) is not None:
            raise self.error(f"{field}.sparse", "sparse accessors are not supported")
        count = self._whole(f"{field}.count", acc.count)
        if acc.bufferView is None:
            # All zeros by the spec. Its size is not backed by any bytes, so it is held to the
            # file's size: a few bytes of JSON must not ask for gigabytes.
            if count * width > self.size:
                raise self.error(f"{field}.count", f"is {count} with no bufferView: more {acc.type} zeros than the file's {self.size} bytes justify")
            out = np.zeros((count, width))
        else:
            raw = self._view_bytes(field, acc, np.dtype(dtype).itemsize * width, count)
            out = raw.view(np.dtype(dtype).newbyteorder("<")).reshape(count, width).astype(np.float64)
        if acc.normalized and np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            out = np.maximum(out / info.max, -1.0)
        if not np.all(np.isfinite(out)):
            raise self.error(field, "contains NaN or infinite values")
        return out

    def _whole(self, field: str, value, default: int | None = None) -> int:
        """A non-negative whole number from the JSON, or an error naming the field."""
        if value is None and default is not None:
            return default
        if not _is_index(value):
            raise self.error(field, f"must be a whole number of at least 0, got {value!r}")
        return int(value)

    def packed_bytes(self, index: int) -> bytes:
        """The accessor's elements as stored, one after another with no stride between them
        (an accessor over a bufferView; checked as `accessor` checks it)."""
        self.accessor(index)
        acc = self.gltf.accessors[index]
        elem = np.dtype(_COMPONENTS[acc.componentType]).itemsize * _WIDTH[acc.type]
        return self._view_bytes(f"accessors[{index}]", acc, elem, int(acc.count)).tobytes()

    def view_bytes(self, field: str, index) -> bytes:
        """A whole bufferView's bytes (`field` names where the file gave `index`)."""
        if not _is_index(index) or not 0 <= index < len(self.gltf.bufferViews):
            raise self.error(field, f"names buffer view {index!r}, which does not exist")
        data, start, length = self._view_source(index)
        return bytes(data[start:start + length])

    def _view_source(self, index: int) -> tuple[bytes, int, int]:
        """Where view `index`'s bytes are: (bytes, offset, length), decoded when compressed."""
        vfield = f"bufferViews[{index}]"
        view = self.gltf.bufferViews[index]
        start = self._whole(f"{vfield}.byteOffset", view.byteOffset, 0)
        length = self._whole(f"{vfield}.byteLength", view.byteLength)
        for codec in _VIEW_CODECS:
            ext = extension_of(view, codec.extension)
            if ext is not None and self._decodes(index, codec, ext):
                return self._views[index], 0, length
        if not _is_index(view.buffer):
            raise self.error(f"{vfield}.buffer", f"must be a buffer index, got {view.buffer!r}")
        data = self.buffer(view.buffer)
        if start + length > len(data):
            raise self.error(vfield, f"reads past the end of its buffer ({start + length} > {len(data)} bytes)")
        return data, start, length

    def _decodes(self, index: int, codec, ext: dict) -> bool:
        """Decode compressed view `index` into self._views; False when it is to be read as
        stored (no decoder installed, and the file does not require one: a fallback)."""
        if index in self._views:
            return True
        field = f"bufferViews[{index}].extensions.{codec.extension}"
        lib = codec.library()
        if lib is None:
            if codec.extension in (self.gltf.extensionsRequired or []):
                raise self.error(field, f"is compressed with {codec.missing()}")
            return False
        packed = self._packed(field, ext)
        try:
            out = codec.decode(lib, packed, ext)
        except ValueError as e:
            raise self.error(field, str(e)) from None
        length = self._whole(f"bufferViews[{index}].byteLength", self.gltf.bufferViews[index].byteLength)
        if len(out) != length:
            raise self.error(field, f"decodes to {len(out)} bytes, but the view's byteLength is {length}")
        self._views[index] = out
        return True

    def _packed(self, field: str, ext: dict) -> bytes:
        """The compressed bytes a view's extension points at (its buffer, byteOffset, byteLength)."""
        buf = ext.get("buffer")
        if not _is_index(buf):
            raise self.error(f"{field}.buffer", f"must be a buffer index, got {buf!r}")
        start = self._whole(f"{field}.byteOffset", ext.get("byteOffset"), 0)
        end = start + self._whole(f"{field}.byteLength", ext.get("byteLength"))
        data = self.buffer(buf)
        if end > len(data):
            raise self.error(field, f"reads past the end of buffers[{buf}] ({end} > {len(data)} bytes)")
        return bytes(data[start:end])

    def _view_bytes(self, field, acc, elem: int, count: int) -> np.ndarray:
        """The accessor's elements' bytes (count, elem), gathered across the view's stride."""
        if not _is_index(acc.bufferView) or not 0 <= acc.bufferView < len(self.gltf.bufferViews):
            raise self.error(f"{field}.bufferView", "no such buffer view")
        vfield = f"bufferViews[{acc.bufferView}]"
        view = self.gltf.bufferViews[acc.bufferView]
        data, view_offset, view_length = self._view_source(acc.bufferView)
        acc_offset = self._whole(f"{field}.byteOffset", acc.byteOffset, 0)
        start = view_offset + acc_offset
        stride = self._whole(f"{vfield}.byteStride", view.byteStride, 0) or elem
        if stride < elem:
            # Overlapping elements: as_strided below would read the same bytes twice (and a
            # negative stride outside the buffer); the spec forbids both.
            raise self.error(f"{vfield}.byteStride", f"is {stride}, less than one {acc.type} element ({elem} bytes)")
        needed = start + stride * (count - 1) + elem if count else start
        end = view_offset + view_length
        if needed > end or end > len(data):
            raise self.error(field, f"reads past the end of its buffer view ({needed} > {min(end, len(data))} bytes)")
        if count == 0:
            return np.zeros((0, elem), dtype=np.uint8)
        raw = np.lib.stride_tricks.as_strided(
            np.frombuffer(data, dtype=np.uint8, count=needed - start, offset=start),
            shape=(count, elem),
            strides=(stride, 1),
        )
        return np.ascontiguousarray(raw)


def _is_index(value) -> bool:
    """A JSON whole number >= 0 (true and false are not numbers, though Python says they are ints)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0
