"""Foot contacts as ReConForM defines them, per foot: grounded while the foot is within
GROUNDED_HEIGHT of the ground (a fraction of the figure's height), locked while grounded and
moving slower than LOCKED_SPEED; and the slide, the path the foot travels over the ground
summed over its locked spans (what a clean plant keeps near zero).

A locked span is a plant: from the first locked frame of a grounded run to the end of that
run (the foot stopped on the ground, until it lifts). Its frames after the first may move
faster than LOCKED_SPEED: that is the slide being measured. Were spans only the locked frames,
a planted foot that slides would leave its span as it slides, and the worse the slide the less
of it would be counted.

LOCKED_SPEED is the 0.1 % of the height per frame at 30 fps, i.e. 3 % of the height per second
(5.25 cm/s for a 1.75 m figure), so a 120 fps file gets the same verdicts as a 30 fps one; read
per second (1.75 mm/s) it is under the noise of a planted mocap foot, and no real walk would
have a locked frame. Speeds are over the lint's time window (lint/motion.py), horizontal and
vertical.

A foot's height and speed on a frame are those of its lowest point then, of the ankle and the
ball of the foot (body.balls, as foot skate reads them: skate.py), each above the foot's floor
(body.py), so a heel-off roll onto the ball stays one contact. A toe's end past the ball is
left out: skeletons differ in having one, and a foot turning on its ball sweeps it over the
ground (a kick's spin onto a skeleton with toe ends read as a slide twice the source's).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lint.findings import runs
from ..lint.motion import TIME_WINDOW_S, velocity
from .body import Body

GROUNDED_HEIGHT = 0.01  # of the height
LOCKED_SPEED = 0.001 * 30.0  # heights per second: 0.1 % of the height per 1/30 s frame


@dataclass
class FootContacts:
    height: np.ndarray  # (frames,) the lowest point's height above the foot's floor, height units
    speed: np.ndarray  # (frames,) its speed, heights per second
    grounded: np.ndarray  # (frames,) bool
    locked: np.ndarray  # (frames,) bool
    spans: list[tuple[int, int]]  # plants: first locked frame of a grounded run to its end, inclusive
    slide: float  # file units (metres) travelled horizontally over the locked spans

    def share(self, mask: np.ndarray, first: int) -> float:
        m = mask[first:]
        return float(m.mean()) if len(m) else 0.0


def foot_contacts(body: Body, side: str) -> FootContacts:
    pts = body.balls.get(side) or body.feet[side]
    h = body.pos[:, pts, 1] - body.floor(side, pts)  # a ball's own floor: its joint sits above the sole
    lowest = np.argmin(h, axis=1)
    rows = np.arange(body.n_frames)
    window = max(1, int(round(0.5 * TIME_WINDOW_S * body.fps)))
    speeds = np.zeros((body.n_frames, len(pts)))  # the reference frame (if any) is no part of the motion's speeds
    speeds[body.first :] = np.linalg.norm(velocity(body.moving[:, pts], window, 1.0 / body.fps), axis=-1)
    height = h[rows, lowest] / body.height
    speed = speeds[rows, lowest] / body.height
    moving = rows >= body.first
    grounded = (height < GROUNDED_HEIGHT) & moving
    locked = grounded & (speed < LOCKED_SPEED)
    spans = []
    for a, b in runs(grounded):
        stopped = np.nonzero(locked[a : b + 1])[0]
        if len(stopped):
            spans.append((a + int(stopped[0]), b))
    xz = body.pos[:, pts][..., [0, 2]]
    # Each frame's step is the lowest point's own move since the last frame, so a change of
    # lowest point (heel to toe) never counts as travel.
    step = np.zeros(body.n_frames)
    step[1:] = np.linalg.norm(xz[rows[1:], lowest[1:]] - xz[rows[1:] - 1, lowest[1:]], axis=-1)
    slide = float(sum(step[a + 1 : b + 1].sum() for a, b in spans))
    return FootContacts(height, speed, grounded, locked, spans, slide)
