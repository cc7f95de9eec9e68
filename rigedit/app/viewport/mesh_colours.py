"""A mesh's vertex colours for drawing: material colour times its texture, looked up per vertex.

pyqtgraph's GL meshes have vertex colours, not textures, so each vertex takes the texture's
colour at its uv (bilinear, wrapped or clamped as the sampler says). Qt decodes the PNG or
JPEG. glTF colour factors are linear and textures sRGB: they are multiplied in linear light
and the product turned back to sRGB, which is what the screen shows.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage

from rigedit.core.mesh import Mesh, Texture


def vertex_colours(mesh: Mesh) -> tuple[np.ndarray, list[str]]:
    """(n, 4) float32 sRGB colours, and a note for each texture that could not be decoded."""
    linear = mesh.colours.copy()
    notes = []
    for t, tex in enumerate(mesh.textures):
        at = mesh.texture == t
        if not at.any():
            continue
        rgba = _decode(tex)
        if rgba is None:
            notes.append(f"texture {t} ({tex.mime or 'unknown type'}) could not be decoded; drawn in its material colour")
            continue
        linear[at] *= _srgb_to_linear(_sample(rgba, mesh.uv[at], tex.wrap))
    out = np.empty_like(linear, dtype=np.float32)
    out[:, :3] = _linear_to_srgb(np.clip(linear[:, :3], 0.0, 1.0))
    out[:, 3] = 1.0  # drawn opaque: the depth-sorted blending a see-through character needs is not here
    return out, notes


def _decode(tex: Texture) -> np.ndarray | None:
    img = QImage.fromData(tex.data)
    if img.isNull():
        return None
    img = img.convertToFormat(QImage.Format.Format_RGBA8888)
    h, w, bpl = img.height(), img.width(), img.bytesPerLine()
    buf = np.frombuffer(img.constBits(), dtype=np.uint8, count=h * bpl).reshape(h, bpl)
    return buf[:, : w * 4].reshape(h, w, 4).astype(np.float64) / 255.0


def _sample(rgba: np.ndarray, uv: np.ndarray, wrap: tuple[bool, bool]) -> np.ndarray:
    """Bilinear lookup at glTF uv (v down from the image's top row, as glTF defines it)."""
    h, w = rgba.shape[:2]
    x = uv[:, 0] * w - 0.5
    y = uv[:, 1] * h - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = (x - x0)[:, None], (y - y0)[:, None]

    def index(i, size, repeat):
        i = i.astype(np.int64)
        return np.mod(i, size) if repeat else np.clip(i, 0, size - 1)

    xa, xb = index(x0, w, wrap[0]), index(x0 + 1, w, wrap[0])
    ya, yb = index(y0, h, wrap[1]), index(y0 + 1, h, wrap[1])
    top = rgba[ya, xa] * (1 - fx) + rgba[ya, xb] * fx
    bottom = rgba[yb, xa] * (1 - fx) + rgba[yb, xb] * fx
    return top * (1 - fy) + bottom * fy


def _srgb_to_linear(c: np.ndarray) -> np.ndarray:
    out = c.copy()
    rgb = c[:, :3]
    out[:, :3] = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return out


def _linear_to_srgb(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)
