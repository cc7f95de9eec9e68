"""The body handle: a box at the rig's hips (or root joint) inside a ring on the ground plane (the plane
it is dragged on), so it reads as "move the whole creature", never as another target sphere.

Picking takes the box (as a ball around it) and the ring's band; the disc inside the ring is
left alone, so the skeleton and any handle inside it keep their clicks.
"""
from __future__ import annotations

import math

import numpy as np

from .camera import ray_plane, ray_spheres

BODY_COLOUR = (0.96, 0.96, 1.0, 0.7)  # a pale, see-through grey: no chain colour, not "out of reach" red
BOX_SCALE = 1.6  # the box's half size relative to a target sphere's radius
RING_SCALE = 6.5  # the ring's radius relative to a target sphere's radius
RING_SEGMENTS = 48

# The eight corners and the six faces (two triangles each, outward winding) of a unit cube.
_CORNERS = np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)])
_FACES = [  # (corner indices of a quad, its outward normal)
    ((0, 1, 3, 2), (-1.0, 0.0, 0.0)),
    ((4, 6, 7, 5), (1.0, 0.0, 0.0)),
    ((0, 4, 5, 1), (0.0, -1.0, 0.0)),
    ((2, 3, 7, 6), (0.0, 1.0, 0.0)),
    ((0, 2, 6, 4), (0.0, 0.0, -1.0)),
    ((1, 5, 7, 3), (0.0, 0.0, 1.0)),
]
_BOX_VERTS = np.array([_CORNERS[list(q)] for q, _ in _FACES]).reshape(-1, 3)  # 4 per face: flat shading
_BOX_NORMALS = np.repeat(np.array([n for _, n in _FACES]), 4, axis=0).astype(np.float32)
_BOX_FACES = np.array([[4 * f, 4 * f + 1, 4 * f + 2] for f in range(6)] + [[4 * f, 4 * f + 2, 4 * f + 3] for f in range(6)],
                      dtype=np.uint32)


def box_mesh(center: np.ndarray, half: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vertices (24, 3), faces (12, 3) and normals (24, 3) of an axis-aligned box."""
    return _BOX_VERTS * half + np.asarray(center, dtype=np.float64), _BOX_FACES, _BOX_NORMALS


def ring_lines(center: np.ndarray, radius: float, segments: int = RING_SEGMENTS) -> np.ndarray:
    """A horizontal circle as GL_LINES segment pairs (2 * segments, 3)."""
    a = np.linspace(0.0, 2.0 * math.pi, segments + 1)
    pts = np.asarray(center, dtype=np.float64) + radius * np.stack([np.cos(a), np.zeros_like(a), np.sin(a)], axis=1)
    return np.stack([pts[:-1], pts[1:]], axis=1).reshape(-1, 3)


def pick_body(origin: np.ndarray, direction: np.ndarray, center: np.ndarray, handle_radius: float,
              pick_radius: float) -> float:
    """Distance along the ray to the body handle (its box, or its ring's band), inf if missed.

    pick_radius: the world size of a few pixels at the body, so a far handle stays grabbable.
    """
    center = np.asarray(center, dtype=np.float64)
    box = max(BOX_SCALE * handle_radius * math.sqrt(2.0), pick_radius)
    t = float(ray_spheres(origin, direction, center[None], np.array([box]))[0])
    hit = ray_plane(origin, direction, center, np.array([0.0, 1.0, 0.0]))
    if hit is not None:
        ring = RING_SCALE * handle_radius
        band = max(0.2 * ring, pick_radius)
        if abs(float(np.linalg.norm(hit - center)) - ring) <= band:
            t = min(t, float((hit - origin) @ direction))
    return t
