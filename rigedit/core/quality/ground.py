"""Ground penetration: frames with a foot below the ground (the plane y = 0, body.py), and how
deep. Raw joint heights, not heights above the foot's floor: a joint under the floor is under it
whatever its sole does. A point counts as below once it is more than BELOW_TOLERANCE (of the
height) under y = 0, so round-off on a foot resting exactly on the floor does not count.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .body import Body

BELOW_TOLERANCE = 1e-4  # of the height (0.175 mm on a 1.75 m figure)


@dataclass
class Penetration:
    share: float  # frames with a foot point below the ground / frames of motion
    deepest: float  # height units (0 when none)
    deepest_frame: int | None
    depth: np.ndarray  # (frames,) how far the lowest foot point is under the ground, height units (0 above)


def ground_penetration(body: Body) -> Penetration:
    pts = [j for side in body.feet.values() for j in side]
    n = body.n_frames
    if not pts:
        return Penetration(0.0, 0.0, None, np.zeros(n))
    depth = np.maximum(-body.pos[:, pts, 1].min(axis=1), 0.0) / body.height
    depth[: body.first] = 0.0
    below = depth > BELOW_TOLERANCE
    moving = n - body.first
    share = float(below.sum()) / moving if moving else 0.0
    if not below.any():
        return Penetration(share, 0.0, None, depth)
    f = int(np.argmax(depth))
    return Penetration(share, float(depth[f]), f, depth)
