"""The glTF extensions rigedit reads: the registry of decoders for compressed geometry, and the
extensions a file may require that change nothing rigedit reads or draws.

A codec is one entry in CODECS, at one of two levels:
- "bufferView": the view's bytes are stored compressed (EXT_meshopt_compression): every reader
  (meshes, skins' inverse bind matrices, animations) sees the decoded bytes, through
  GltfDocument, so nothing else knows the view was compressed;
- "primitive": a mesh primitive's attributes and indices are one compressed blob
  (KHR_draco_mesh_compression), read by gltf_draco.PrimitiveArrays.
Each decoder is a maintained package from the Python package index, an optional extra
(`pip install 'rigedit[draco]'`, `'rigedit[meshopt]'`); without it the file says which extra
to install. A decoder raises ValueError for bytes it cannot decode; the caller names the field.

A file that requires (extensionsRequired) an extension that is neither a codec nor in
UNDERSTOOD cannot be read as its author meant: read_gltf refuses it naming the extension.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CODECS", "DRACO", "MESHOPT", "UNDERSTOOD", "Codec", "codecs_used", "extension_of", "not_understood", "required"]

DRACO = "KHR_draco_mesh_compression"
MESHOPT = "EXT_meshopt_compression"

# Required extensions that change only what the viewport does not draw (lights, metadata,
# material models, texture placement, texture formats it shows as the base colour instead) or
# that the accessor reader handles as it is (quantised attributes are normalised integers).
UNDERSTOOD = frozenset({"KHR_mesh_quantization", "KHR_texture_transform", "KHR_lights_punctual",
                        "KHR_xmp_json_ld", "KHR_texture_basisu", "EXT_texture_webp", "EXT_texture_avif"})
UNDERSTOOD_PREFIXES = ("KHR_materials_",)

# A compressed view's decoded size is held to this many times its compressed bytes (meshopt's
# densest case, a run of equal bytes, is 64:1 for vertices), plus a small allowance: a few
# bytes of file must not ask for gigabytes.
MAX_RATIO = 256
MAX_SLACK = 1 << 16


def _decode_draco(lib, data: bytes, ext: dict):
    try:
        mesh = lib.decode(data)
    except Exception as e:  # DracoPy raises its own types for every kind of bad blob
        raise ValueError(f"is not a readable Draco mesh ({type(e).__name__}: {e})") from None
    if getattr(mesh, "faces", None) is None:
        raise ValueError("holds a Draco point cloud, not a mesh")
    return mesh


def _whole(ext: dict, key: str, default=None) -> int:
    value = ext.get(key, default)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{key} must be a whole number of at least 0, got {value!r}")
    return int(value)


def _decode_meshopt(lib, data: bytes, ext: dict) -> bytes:
    count, stride = _whole(ext, "count"), _whole(ext, "byteStride")
    mode, filt = ext.get("mode"), ext.get("filter", "NONE")
    if count * stride > MAX_RATIO * len(data) + MAX_SLACK:
        raise ValueError(f"claims {count} elements of {stride} bytes from {len(data)} compressed bytes, "
                         f"more than meshopt's codecs can pack into them")
    if count == 0:
        return b""
    try:
        out = lib.decode_gltf_buffer(data, count, stride, mode, filt)
    except Exception as e:  # the binding's checks (ValueError) and the codec's own failures
        raise ValueError(f"is not a readable meshopt {mode} stream ({type(e).__name__}: {e})") from None
    return np.ascontiguousarray(out).tobytes()


@dataclass(frozen=True)
class Codec:
    extension: str
    label: str  # what the user is told the data is compressed with
    package: str  # the module the decoder imports as
    extra: str  # rigedit's optional extra that installs it
    level: str  # "bufferView" or "primitive" (see the module's docstring)
    decode: Callable[[Any, bytes, dict], Any]  # (library, compressed bytes, extension object)

    def library(self):
        """The decoder's module, or None when it is not installed (the caller says what to install)."""
        try:
            return importlib.import_module(self.package)
        except ImportError:
            return None

    def install(self) -> str:
        return f"pip install 'rigedit[{self.extra}]'"

    def missing(self) -> str:
        """What to say where the decoder is needed and not installed."""
        return f"{self.label} ({self.extension}): {self.install()}"


CODECS = {c.extension: c for c in (
    Codec(DRACO, "Draco", "DracoPy", "draco", "primitive", _decode_draco),
    Codec(MESHOPT, "meshopt", "meshopt", "meshopt", "bufferView", _decode_meshopt),
)}


def required(gltf) -> list[str]:
    return [e for e in (gltf.extensionsRequired or []) if isinstance(e, str)]


def not_understood(gltf) -> list[str]:
    """The extensions `gltf` requires that rigedit cannot read, in the file's order."""
    return [e for e in required(gltf)
            if e not in CODECS and e not in UNDERSTOOD and not e.startswith(UNDERSTOOD_PREFIXES)]


def codecs_used(gltf) -> list[Codec]:
    """The codecs whose extension `gltf` uses or requires."""
    named = set(required(gltf)) | {e for e in (gltf.extensionsUsed or []) if isinstance(e, str)}
    return [c for e, c in CODECS.items() if e in named]


def extension_of(obj, name: str) -> dict | None:
    """obj.extensions[name] when it is a JSON object, else None."""
    ext = getattr(obj, "extensions", None) or {}
    got = ext.get(name) if isinstance(ext, dict) else None
    return got if isinstance(got, dict) else None
