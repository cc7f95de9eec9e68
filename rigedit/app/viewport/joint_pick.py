"""Picking a bone under the mouse: the joint whose bone (joint -> a child) passes nearest the
mouse on screen, in the manner of the handles' ray picking (camera.py, no GL picking).

A bone is the segment from a joint to one of its children; clicking it selects the joint it
leaves (the one whose rotation turns it), as Blender selects a pose bone by its head.
Distances are measured in screen pixels, so a thin bone far away is as easy to hit as a
near one; of bones equally near on screen, the one nearer the camera wins.

A click on a joint's dot selects that joint, though the bone into it ends there as well: the
knee's dot gives the knee, not the hip (the tie between the two bones went to whichever
came first or rounded nearer). It is also the only way to a joint whose bone has no length (a
BVH End Site at its joint, as the Bandai hands and head have).
"""
from __future__ import annotations

import numpy as np

from . import camera

PICK_PIXELS = 8.0  # a bone catches the mouse within this many pixels of its centre line
DOT_PIXELS = 5.0  # a joint's dot (6 px across, skeleton_view.py) catches it within this many


def pick_bone(mvp: np.ndarray, size: tuple[float, float], positions: np.ndarray, parents: np.ndarray,
              x: float, y: float, max_pixels: float = PICK_PIXELS) -> int | None:
    """The index of the joint whose bone passes within max_pixels of widget point (x, y),
    the nearest on screen; None when no bone does."""
    parents = np.asarray(parents)
    tails = np.nonzero(parents >= 0)[0]
    if len(tails) == 0:
        return None
    heads = parents[tails]
    screen, in_front = camera.project(mvp, size, np.asarray(positions, dtype=np.float64))
    dot = _dot_at(mvp, screen, in_front, np.unique(heads), np.asarray(positions, dtype=np.float64), x, y)
    if dot is not None:
        return dot
    dist, t = segment_distances(screen[heads], screen[tails], np.array([x, y]))
    dist = np.where(in_front[heads] & in_front[tails], dist, np.inf)
    near = dist <= max_pixels
    if not near.any():
        return None
    # Depth along the bone where it passes nearest, to choose among bones as near on screen.
    pos = np.asarray(positions, dtype=np.float64)
    world = pos[heads] + t[:, None] * (pos[tails] - pos[heads])
    clip_w = np.concatenate((world, np.ones((len(world), 1))), axis=1) @ mvp[3]  # the depth, for a perspective view
    order = np.lexsort((clip_w, np.round(dist, 1)))
    best = next(i for i in order if near[i])
    return int(heads[best])


def _dot_at(mvp, screen, in_front, joints, positions, x: float, y: float) -> int | None:
    """The joint (of those with a bone) whose dot is under (x, y), the nearest on screen,
    then the nearest the camera; None when no dot is."""
    d = np.linalg.norm(screen[joints] - np.array([x, y]), axis=1)
    d = np.where(in_front[joints], d, np.inf)
    if not (d <= DOT_PIXELS).any():
        return None
    depth = np.concatenate((positions[joints], np.ones((len(joints), 1))), axis=1) @ mvp[3]
    order = np.lexsort((depth, np.round(d, 1)))
    return int(joints[order[0]])


def segment_distances(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distances from point p to segments a[i] -> b[i] (any dimension), and where along each
    (0..1) the nearest point is."""
    ab = b - a
    length2 = np.einsum("ij,ij->i", ab, ab)
    long = length2 > 1e-12
    t = np.where(long, np.clip(np.einsum("ij,ij->i", p - a, ab) / np.where(long, length2, 1.0), 0.0, 1.0), 0.0)
    return np.linalg.norm(a + t[:, None] * ab - p, axis=1), t
