"""Meshes and polylines the viewport draws, built with numpy from world positions.

Pure functions (no Qt, no GL) so their shapes can be tested and reused by the benchmark.
"""
from __future__ import annotations

import numpy as np

# An octahedral bone, as Blender draws them: a four-sided diamond whose widest point sits a
# fifth of the way from head to tail, so the bone shows which end is its parent.
_WAIST = 0.2
_WIDTH = 0.09  # half-width of the waist, as a fraction of the bone's length
_MAX_WIDTH = 0.035  # metres: long bones (a spine to the neck) would otherwise turn into slabs
OCTA_FACES = np.array(
    [[0, 2, 3], [0, 3, 4], [0, 4, 5], [0, 5, 2], [1, 3, 2], [1, 4, 3], [1, 5, 4], [1, 2, 5]],
    dtype=np.uint32,
)


def _perpendiculars(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors perpendicular to each unit row of d and to each other."""
    helper = np.where(np.abs(d[:, 1:2]) < 0.9, [[0.0, 1.0, 0.0]], [[1.0, 0.0, 0.0]])
    u = np.cross(d, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(d, u)
    return u, v


def octahedral_bones(heads: np.ndarray, tails: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (6 per bone) and triangles (8 per bone) for bones from heads to tails.

    Zero-length bones collapse to a point (their triangles have no area and draw nothing).
    """
    heads = np.asarray(heads, dtype=np.float64).reshape(-1, 3)
    tails = np.asarray(tails, dtype=np.float64).reshape(-1, 3)
    n = len(heads)
    seg = tails - heads
    length = np.linalg.norm(seg, axis=1, keepdims=True)
    safe = np.where(length > 1e-12, length, 1.0)
    d = np.where(length > 1e-12, seg / safe, [[0.0, 1.0, 0.0]])
    u, v = _perpendiculars(d)
    w = np.minimum(length * _WIDTH, _MAX_WIDTH)
    waist = heads + seg * _WAIST
    verts = np.empty((n, 6, 3))
    verts[:, 0] = heads
    verts[:, 1] = tails
    verts[:, 2] = waist + w * u
    verts[:, 3] = waist + w * v
    verts[:, 4] = waist - w * u
    verts[:, 5] = waist - w * v
    faces = (OCTA_FACES[None, :, :] + 6 * np.arange(n, dtype=np.uint32)[:, None, None]).reshape(-1, 3)
    return verts.reshape(-1, 3), faces


def circle(center, normal, radius: float, segments: int = 48) -> np.ndarray:
    """Closed polyline (segments + 1, 3) of a circle."""
    normal = np.asarray(normal, dtype=np.float64)
    normal = normal / np.linalg.norm(normal)
    u, v = _perpendiculars(normal[None, :])
    t = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    return np.asarray(center) + radius * (np.cos(t)[:, None] * u + np.sin(t)[:, None] * v)


def polyline_segments(line: np.ndarray) -> np.ndarray:
    """A polyline (k, 3) as GL_LINES pairs (2(k-1), 3)."""
    return np.repeat(line, 2, axis=0)[1:-1]


def wire_sphere(center, radius: float, rings: int = 5, meridians: int = 8, segments: int = 48) -> np.ndarray:
    """Line pairs for a latitude/longitude wire sphere about a vertical (Y) axis."""
    center = np.asarray(center, dtype=np.float64)
    parts = []
    for k in range(1, rings + 1):
        lat = -np.pi / 2 + np.pi * k / (rings + 1)
        c = center + np.array([0.0, radius * np.sin(lat), 0.0])
        parts.append(polyline_segments(circle(c, (0.0, 1.0, 0.0), radius * np.cos(lat), segments)))
    for k in range(meridians):
        a = np.pi * k / meridians
        parts.append(polyline_segments(circle(center, (np.cos(a), 0.0, np.sin(a)), radius, segments)))
    return np.concatenate(parts)


def arc(center, axis, start_dir, angle0: float, angle1: float, radius: float, segments: int = 32) -> np.ndarray:
    """Polyline (segments + 1, 3) from start_dir turned by angle0 to angle1 (radians) about axis."""
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    s = np.asarray(start_dir, dtype=np.float64)
    s = s - axis * (s @ axis)  # the hinge turns within the plane perpendicular to its axis
    s = s / np.linalg.norm(s)
    t = np.linspace(angle0, angle1, segments + 1)[:, None]
    # Rodrigues, for s perpendicular to the axis: s cos t + (axis x s) sin t.
    return np.asarray(center) + radius * (s * np.cos(t) + np.cross(axis, s) * np.sin(t))
