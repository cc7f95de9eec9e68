"""Faint helpers drawn over the rig: a two-bone chain's reach shell while its target is dragged
(View > Show Reach) and the joint limits (View > Show Limits)."""
from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl

from rigedit.core.ik.limits import ConeLimit, HingeLimit
from rigedit.core.transforms import quat_rotate

from . import palette
from .geometry import arc, circle, polyline_segments, wire_sphere

LIMIT_SIZE = 0.35  # arcs and cones are drawn this fraction of the limited bone's length out
CONE_GENERATORS = 8


def reach_shell(root: np.ndarray, upper: float, lower: float) -> np.ndarray:
    """Line pairs for the spheres a two-bone tip can reach between: radii |a - b| and a + b."""
    outer = wire_sphere(root, upper + lower)
    inner_r = abs(upper - lower)
    if inner_r < 1e-6:
        return outer
    return np.concatenate((outer, wire_sphere(root, inner_r, rings=3, meridians=6, segments=32)))


def limit_lines(positions: np.ndarray, world_rotations: np.ndarray, parents: np.ndarray, chain: list[int],
                limits: dict[int, object]) -> tuple[np.ndarray, np.ndarray]:
    """Line pairs and their colours for the limits on one chain's joints.

    A limit at joint j constrains the bone j -> next relative to the parent bone
    parent(j) -> j, with a hinge axis in the parent bone's frame (the parent joint's world
    rotation); 0 degrees is the parent bone carried straight on.
    """
    pos_out, col_out = [], []
    for k, j in enumerate(chain[:-1]):
        lim = limits.get(j)
        if lim is None:
            continue
        p = parents[j]
        if p < 0:
            continue
        parent_dir = positions[j] - positions[p]
        bone_len = np.linalg.norm(positions[chain[k + 1]] - positions[j])
        if np.linalg.norm(parent_dir) < 1e-9 or bone_len < 1e-9:
            continue
        parent_dir = parent_dir / np.linalg.norm(parent_dir)
        size = LIMIT_SIZE * bone_len
        if isinstance(lim, HingeLimit):
            axis = quat_rotate(world_rotations[p], np.asarray(lim.axis, dtype=np.float64))
            start = parent_dir - axis * (parent_dir @ axis) / (axis @ axis)
            if np.linalg.norm(start) < 1e-6:
                continue  # the axis runs along the parent bone: nothing to draw in
            line = arc(positions[j], axis, start, np.radians(lim.min_deg), np.radians(lim.max_deg), size)
            segs = np.concatenate(
                (polyline_segments(line), [positions[j], line[0], positions[j], line[-1]])
            )
            colour = palette.LIMIT_HINGE
        elif isinstance(lim, ConeLimit):
            ang = np.radians(lim.max_deg)
            rim_center = positions[j] + parent_dir * size * np.cos(ang)
            rim = circle(rim_center, parent_dir, size * np.sin(ang), 40)
            gens = [x for i in range(CONE_GENERATORS) for x in (positions[j], rim[i * 40 // CONE_GENERATORS])]
            segs = np.concatenate((polyline_segments(rim), np.array(gens)))
            colour = palette.LIMIT_CONE
        else:
            continue
        pos_out.append(segs)
        col_out.append(np.tile(colour, (len(segs), 1)))
    if not pos_out:
        return np.zeros((0, 3)), np.zeros((0, 4))
    return np.concatenate(pos_out), np.concatenate(col_out)


class LineOverlay:
    """One GL line item, fed line pairs; hidden when empty."""

    def __init__(self, view, colour=(1.0, 1.0, 1.0, 0.3), width: float = 1.0) -> None:  # view: the Viewport
        self.item = gl.GLLinePlotItem(pos=np.zeros((0, 3)), mode="lines", width=width, antialias=True, color=colour)
        self.item.setGLOptions("translucent")
        self.item.setDepthValue(5)
        self.item.hide()
        view.addItem(self.item)
        self._colour = colour
        self._last: np.ndarray | None = None

    def show_lines(self, pairs: np.ndarray, colours: np.ndarray | None = None) -> None:
        pairs = np.asarray(pairs, dtype=np.float32).reshape(-1, 3)
        if len(pairs) == 0:
            self.clear()
            return
        if self._last is None or not np.array_equal(self._last, pairs):
            self._last = pairs
            colour = self._colour if colours is None else np.asarray(colours, dtype=np.float32)
            self.item.setData(pos=pairs, color=colour)
        if not self.item.visible():
            self.item.show()

    def clear(self) -> None:
        if self.item.visible():
            self.item.hide()
        self._last = None
