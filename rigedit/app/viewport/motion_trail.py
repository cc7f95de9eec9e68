"""Motion trails: the world path of joints over a span of frames, with frame ticks.

Each path is a polyline in its joint's colour, fading toward the ends of the span; a small
dot marks every frame and a bigger one every whole second (the spacing shows the timing,
as in Blender's motion paths), and the current frame is a white dot. Three GL items for all
the paths together.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph.opengl as gl

from . import palette

WIDTH = 2.0
FRAME_TICK = 4.0  # pixels
SECOND_TICK = 9.0
NOW_SIZE = 12.0
END_ALPHA = 0.25  # the path's alpha at the ends of the span; 1 at the current frame


@dataclass
class Trail:
    joint: int
    colour: tuple  # RGBA
    frames: np.ndarray  # (F,) frame numbers, ascending
    points: np.ndarray  # (F, 3) world positions, float64


def fade(frames: np.ndarray, current: int) -> np.ndarray:
    """Alpha per frame: 1 at `current`, END_ALPHA at the span's farthest frame."""
    reach = max(float(np.max(np.abs(frames - current))), 1.0)
    return 1.0 - (1.0 - END_ALPHA) * np.abs(frames - current) / reach


class MotionTrailView:
    """`show(trails, current, frames_per_second)` draws the paths; `clear()` removes them."""

    def __init__(self, view) -> None:
        # Not antialiased, as the ghosts (onion_skin.py says why).
        self.lines = gl.GLLinePlotItem(pos=np.zeros((2, 3)), mode="lines", width=WIDTH, antialias=False)
        self.ticks = gl.GLScatterPlotItem(pos=np.zeros((0, 3)), size=FRAME_TICK, pxMode=True)
        self.now = gl.GLScatterPlotItem(pos=np.zeros((0, 3)), size=NOW_SIZE, color=palette.TRAIL_NOW, pxMode=True)
        for depth, item in enumerate((self.lines, self.ticks, self.now)):
            item.setGLOptions("translucent")
            item.setDepthValue(2 + depth)  # over the bones: a path runs through the body
            item.hide()
            view.addItem(item)
        self.trails: list[Trail] = []

    def show(self, trails: list[Trail], current: int, frames_per_second: float) -> None:
        trails = [t for t in trails if len(t.frames) > 0]
        self.trails = trails
        if not trails:
            self.clear()
            return
        pairs, pair_colours, ticks, tick_colours, sizes, now = [], [], [], [], [], []
        per_second = max(int(round(frames_per_second)), 1)
        for t in trails:
            alpha = fade(t.frames, current)
            colours = np.tile(np.array(t.colour, dtype=np.float32), (len(t.frames), 1))
            colours[:, 3] = alpha
            if len(t.frames) > 1:
                pairs.append(np.repeat(t.points, 2, axis=0)[1:-1])  # p0 p1 p1 p2 ...: one segment a frame
                pair_colours.append(np.repeat(colours, 2, axis=0)[1:-1])
            ticks.append(t.points)
            tick_colours.append(colours)
            sizes.append(np.where(t.frames % per_second == 0, SECOND_TICK, FRAME_TICK))
            at = np.nonzero(t.frames == current)[0]
            if len(at):
                now.append(t.points[at[0]])
        if pairs:
            self.lines.setData(pos=np.concatenate(pairs).astype(np.float32), color=np.concatenate(pair_colours))
            self.lines.show()
        else:
            self.lines.hide()
        self.ticks.setData(pos=np.concatenate(ticks).astype(np.float32), color=np.concatenate(tick_colours),
                           size=np.concatenate(sizes).astype(np.float32))
        self.ticks.show()
        if now:
            self.now.setData(pos=np.array(now, dtype=np.float32))
            self.now.show()
        else:
            self.now.hide()

    def clear(self) -> None:
        for item in (self.lines, self.ticks, self.now):
            item.hide()
        self.trails = []
