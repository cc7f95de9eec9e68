"""What Frame Selected (F, numpad period) shows and how far back the camera stands for it.

Like Blender's View Selected, the selection's box is fitted to the view as the camera looks
now, with MARGIN to spare: the box spans at most 1 / MARGIN of the view across, in whichever
direction is tighter. The fit is exact for the box's corners in perspective (a corner nearer
the camera needs more room than one behind the centre), so a long thin chain seen end-on is
not framed as if it were a ball.

A short selection is framed as if it were a share of the figure's size across (`least`),
so that what it moves is seen in its surroundings: a chain (a spine, a neck) with the body
around it, a joint's bone (a wrist's) with its neighbours. Without that floor a spine chain
was framed from half a metre, the camera among the arms in front of the chest. The floor is taken from the figure (the pose's joints
and mesh), never from the clip's whole path: a walk that travels ten metres would otherwise
frame a neck from two metres away.

Plain numpy: tested without a window.
"""
from __future__ import annotations

import math

import numpy as np

MARGIN = 1.4  # Blender's VIEW3D_MARGIN
CHAIN_CONTEXT = 1.0 / 3.0  # a chain is framed at least this share of the figure's size across
NEAR_CLEARANCE = 0.1  # of the box's size: the least room between the eye and the box's near side
JOINT_CONTEXT = 1.0 / 6.0  # a joint's bone (the joint and its children) at least this share


def selection_box(points: np.ndarray, radii) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) of the balls at `points` with `radii` (0 for a joint)."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    radii = np.broadcast_to(np.asarray(radii, dtype=np.float64), points.shape[:1])[:, None]
    return (points - radii).min(axis=0), (points + radii).max(axis=0)


def fit_distance(lo: np.ndarray, hi: np.ndarray, right: np.ndarray, up: np.ndarray, fov_deg: float,
                 aspect: float, least: float = 0.0, margin: float = MARGIN) -> float:
    """Distance from the box's centre, along the camera's current view direction, at which
    every corner of the box lies inside the view with `margin` to spare, and at least
    `least` across is seen about the centre.

    pyqtgraph's fov is the horizontal one; the vertical one follows from the aspect. A corner at (x, y) across and z towards the camera projects inside when
    margin * |x| <= (d - z) * tan(half fov) (likewise y).
    """
    tan_h = math.tan(math.radians(fov_deg) / 2.0)
    tan_v = tan_h / max(aspect, 1e-6)
    right, up = np.asarray(right, dtype=np.float64), np.asarray(up, dtype=np.float64)
    back = np.cross(right, up)  # from the centre towards the camera
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    corners = np.array([[a[0], b[1], c[2]] for a in (lo, hi) for b in (lo, hi) for c in (lo, hi)]) - (lo + hi) / 2
    x, y, z = np.abs(corners @ right), np.abs(corners @ up), corners @ back
    need = np.maximum(z + margin * x / tan_h, z + margin * y / tan_v)
    # A chain seen end-on takes no room across: the eye still stays in front of its near end.
    clear = z.max() + NEAR_CLEARANCE * float(np.linalg.norm(hi - lo))
    floor = margin * (least / 2.0) / min(tan_h, tan_v)
    return float(max(need.max(), clear, floor, 1e-3))
