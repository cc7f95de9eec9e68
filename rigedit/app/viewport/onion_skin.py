"""Onion skin: ghost skeletons at earlier and later frames, drawn as thin bones (never meshes).

Earlier ghosts take one tint and later ones another (as Blender's and Maya's ghosts do), each
fainter the further it is from the current frame, so the eye reads the motion's direction
and spacing at a glance. One GL line item per ghost, made when the ghost count changes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph.opengl as gl

from . import palette

WIDTH = 2.0  # pixels: thinner than the bones themselves, thick enough to read
JOINT_SIZE = 4.0
NEAREST_ALPHA = 0.6  # the ghost next to the current frame
FARTHEST_ALPHA = 0.2  # the last one out


@dataclass
class Ghost:
    offset: int  # ghosts away from the current frame: -1 the one before, +1 the one after
    frame: int
    positions: np.ndarray  # (joints, 3) world positions, float64


def ghost_colour(offset: int, count: int) -> tuple[float, float, float, float]:
    """The tint of the ghost `offset` steps away (sign: before or after) among `count` on its
    side: opaque near the current frame, fading out with distance."""
    base = palette.GHOST_BEFORE if offset < 0 else palette.GHOST_AFTER
    u = 0.0 if count <= 1 else (abs(offset) - 1) / (count - 1)
    alpha = NEAREST_ALPHA + (FARTHEST_ALPHA - NEAREST_ALPHA) * u
    return base[:3] + (alpha,)


class OnionSkinView:
    """The ghosts' GL items: `show(ghosts, parents)` draws them, `clear()` removes them."""

    def __init__(self, view) -> None:
        self._view = view
        self.items: list[gl.GLLinePlotItem] = []
        self.joints = gl.GLScatterPlotItem(pos=np.zeros((0, 3)), size=JOINT_SIZE, pxMode=True)
        self.joints.setGLOptions("translucent")
        self.joints.setDepthValue(-1)
        self.joints.hide()
        view.addItem(self.joints)
        self.ghosts: list[Ghost] = []

    def show(self, ghosts: list[Ghost], parents: np.ndarray) -> None:
        parents = np.asarray(parents)
        tails = np.nonzero(parents >= 0)[0]
        heads = parents[tails]
        self._resize(len(ghosts))
        before = sum(1 for g in ghosts if g.offset < 0)
        counts = {-1: before, 1: len(ghosts) - before}
        dots, dot_colours = [], []
        for item, g in zip(self.items, ghosts):
            colour = ghost_colour(g.offset, counts[1 if g.offset > 0 else -1])
            pairs = np.empty((2 * len(tails), 3), dtype=np.float32)
            pairs[0::2] = g.positions[heads]
            pairs[1::2] = g.positions[tails]
            item.setData(pos=pairs, color=colour)
            item.show()
            dots.append(g.positions)
            dot_colours.append(np.tile(np.array(colour, dtype=np.float32), (len(g.positions), 1)))
        if dots:
            self.joints.setData(pos=np.concatenate(dots).astype(np.float32), color=np.concatenate(dot_colours))
            self.joints.show()
        else:
            self.joints.hide()
        self.ghosts = list(ghosts)

    def clear(self) -> None:
        self._resize(0)
        self.joints.hide()
        self.ghosts = []

    def _resize(self, n: int) -> None:
        while len(self.items) > n:
            self._view.removeItem(self.items.pop())
        while len(self.items) < n:
            # Not antialiased: under software GL (llvmpipe) smoothing the ghosts cost a drag ~15% of its frames.
            item = gl.GLLinePlotItem(pos=np.zeros((2, 3)), mode="lines", width=WIDTH, antialias=False)
            item.setGLOptions("translucent")
            item.setDepthValue(-1)  # drawn before the skeleton: the current pose stays on top
            self._view.addItem(item)
            self.items.append(item)
