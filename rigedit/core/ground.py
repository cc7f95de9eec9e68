"""Ground height fields and foot grounding.

A height field is a regular grid of heights over x/z (Y up). Lookups are bilinear: the
surface is continuous, so a foot sliding across a cell edge never pops, and the normal is
the exact normal of that surface. Outside the grid the edge heights extend outward, so a
character walking off the map keeps standing on something.

Foot grounding assumes the clip was authored on flat ground at `reference_height`: a foot's
lift above that ground is kept and re-applied above the terrain under it, so planted feet
land on the terrain and swinging feet clear it by as much as they cleared the flat floor.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .transforms import quat_from_axis_angle

UP = np.array([0.0, 1.0, 0.0])


@dataclass(frozen=True)
class HeightField:
    """heights[iz, ix] is the ground height at x = origin[0] + ix * spacing,
    z = origin[1] + iz * spacing (metres)."""

    heights: np.ndarray
    spacing: float
    origin: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self) -> None:
        h = np.asarray(self.heights, dtype=np.float64)
        if h.ndim != 2 or h.shape[0] < 2 or h.shape[1] < 2:
            raise ValueError(f"height field: heights must be a 2-D grid of at least 2 x 2, got shape {h.shape}")
        if not np.all(np.isfinite(h)):
            raise ValueError("height field: heights must be finite")
        if not (np.isfinite(self.spacing) and self.spacing > 0.0):
            raise ValueError(f"height field: spacing must be a positive number of metres, got {self.spacing!r}")
        origin = tuple(float(v) for v in self.origin)
        if len(origin) != 2 or not all(np.isfinite(origin)):
            raise ValueError(f"height field: origin must be two finite numbers (x, z), got {self.origin!r}")
        object.__setattr__(self, "heights", h)
        object.__setattr__(self, "spacing", float(self.spacing))
        object.__setattr__(self, "origin", origin)

    def _cell(self, x, z):
        """Cell indices and the fractions across the cell, clamped to the grid."""
        x = np.asarray(x, dtype=np.float64)
        z = np.asarray(z, dtype=np.float64)
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(z))):
            raise ValueError("height field lookup: x and z must be finite")
        nz, nx = self.heights.shape
        gx = np.clip((x - self.origin[0]) / self.spacing, 0.0, nx - 1)
        gz = np.clip((z - self.origin[1]) / self.spacing, 0.0, nz - 1)
        # The last row/column uses the cell before it with fraction 1, so indices stay in range.
        ix = np.minimum(np.floor(gx).astype(np.int64), nx - 2)
        iz = np.minimum(np.floor(gz).astype(np.int64), nz - 2)
        inside_x = ((x - self.origin[0]) / self.spacing > 0.0) & ((x - self.origin[0]) / self.spacing < nx - 1)
        inside_z = ((z - self.origin[1]) / self.spacing > 0.0) & ((z - self.origin[1]) / self.spacing < nz - 1)
        return ix, iz, gx - ix, gz - iz, inside_x, inside_z

    def _corners(self, ix, iz):
        h = self.heights
        return h[iz, ix], h[iz, ix + 1], h[iz + 1, ix], h[iz + 1, ix + 1]

    def height(self, x, z) -> np.ndarray:
        """Ground height under (x, z), broadcast over any shape."""
        ix, iz, fx, fz, _, _ = self._cell(x, z)
        h00, h10, h01, h11 = self._corners(ix, iz)
        return (h00 * (1 - fx) + h10 * fx) * (1 - fz) + (h01 * (1 - fx) + h11 * fx) * fz

    def normal(self, x, z) -> np.ndarray:
        """Unit surface normal (..., 3) under (x, z): the bilinear surface's own normal.

        Outside the grid the surface is flat along the clamped axis, so that slope is 0.
        """
        ix, iz, fx, fz, inside_x, inside_z = self._cell(x, z)
        h00, h10, h01, h11 = self._corners(ix, iz)
        dhdx = ((h10 - h00) * (1 - fz) + (h11 - h01) * fz) / self.spacing
        dhdz = ((h01 - h00) * (1 - fx) + (h11 - h10) * fx) / self.spacing
        dhdx = np.where(inside_x, dhdx, 0.0)
        dhdz = np.where(inside_z, dhdz, 0.0)
        n = np.stack([-dhdx, np.ones_like(dhdx), -dhdz], axis=-1)
        return n / np.linalg.norm(n, axis=-1, keepdims=True)

    def height_at(self, points) -> np.ndarray:
        """Ground height under points (..., 3)."""
        p = np.asarray(points, dtype=np.float64)
        return self.height(p[..., 0], p[..., 2])

    def normal_at(self, points) -> np.ndarray:
        p = np.asarray(points, dtype=np.float64)
        return self.normal(p[..., 0], p[..., 2])


def flat_ground(size: float = 20.0, height: float = 0.0) -> HeightField:
    """A flat floor, `size` metres square, centred on the origin."""
    return HeightField(np.full((2, 2), float(height)), size, (-size / 2, -size / 2))


def slope_ground(size: float = 20.0, spacing: float = 0.05) -> HeightField:
    """A gentle test terrain: a 5 degree slope rising along +x, three 12 cm steps along +z
    and a few smooth bumps, built in code so it needs no data file and is the same everywhere.

    5 cm cells: fine enough that a step is a steep ramp a foot-length never straddles wrongly,
    coarse enough (400 x 400) to build in milliseconds.
    """
    n = int(round(size / spacing)) + 1
    coords = -size / 2 + spacing * np.arange(n)
    x, z = np.meshgrid(coords, coords)  # arrays indexed [iz, ix]
    h = np.tan(np.radians(5.0)) * x
    for edge in (1.0, 2.5, 4.0):
        h = h + 0.12 * (z >= edge)
    for cx, cz, r, a in ((-2.0, -1.5, 0.6, 0.08), (1.5, -3.0, 0.8, -0.06), (-3.5, 2.0, 1.0, 0.1)):
        h = h + a * np.exp(-((x - cx) ** 2 + (z - cz) ** 2) / (2 * r * r))
    return HeightField(h, spacing, (-size / 2, -size / 2))


@dataclass
class GroundedFeet:
    targets: np.ndarray  # (..., 3) ankle targets over the terrain
    sole_rotations: np.ndarray  # (..., 4) world rotation taking up onto the (limited) ground normal
    normals: np.ndarray  # (..., 3) terrain normal under each foot


def ground_feet(
    field: HeightField,
    feet,
    ankle_height: float,
    *,
    reference_height: float = 0.0,
    max_tilt_deg: float = 30.0,
    tilt_fade: float = 0.1,
) -> GroundedFeet:
    """Move animated ankle positions (..., 3) onto the terrain.

    The lift of each ankle above `reference_height + ankle_height` (never below zero: a foot
    that dipped into the flat floor is held on the terrain) is re-applied above the terrain,
    measured vertically: the ankle sits straight above its contact point, so x/z of the
    animation are kept exactly and the foot does not slide on slopes.

    The sole turns to the terrain normal, limited to `max_tilt_deg` (ankles do not bend
    further; a step edge must not stand the foot on its toes), and fades back to level as
    the foot lifts `tilt_fade` metres, so a swinging foot is not glued to the slope angle.
    """
    feet = np.asarray(feet, dtype=np.float64)
    if feet.shape[-1:] != (3,) or not np.all(np.isfinite(feet)):
        raise ValueError(f"ground_feet: feet must be finite points (..., 3), got shape {feet.shape}")
    if not (np.isfinite(ankle_height) and ankle_height >= 0.0):
        raise ValueError(f"ground_feet: ankle_height must be >= 0 metres, got {ankle_height!r}")
    if not (0.0 <= max_tilt_deg <= 90.0):
        raise ValueError(f"ground_feet: max_tilt_deg must be within [0, 90], got {max_tilt_deg!r}")
    if not np.isfinite(reference_height):
        raise ValueError(f"ground_feet: reference_height must be a finite height in metres, got {reference_height!r}")
    if not (np.isfinite(tilt_fade) and tilt_fade > 0.0):
        raise ValueError(f"ground_feet: tilt_fade must be a positive number of metres, got {tilt_fade!r}")
    lift = np.maximum(feet[..., 1] - reference_height - ankle_height, 0.0)
    ground = field.height_at(feet)
    targets = feet.copy()
    targets[..., 1] = ground + ankle_height + lift
    normals = field.normal_at(feet)
    tilt = np.arccos(np.clip(normals[..., 1], -1.0, 1.0))
    fade = np.clip(1.0 - lift / tilt_fade, 0.0, 1.0)
    angle = np.minimum(tilt, np.radians(max_tilt_deg)) * fade
    axis = np.cross(UP, normals)  # zero on level ground: quat_from_axis_angle gives identity
    return GroundedFeet(targets, quat_from_axis_angle(axis, angle), normals)


def pelvis_drop(hips, targets, leg_lengths, reach_clamp: float = 0.999, weights=None) -> float:
    """How far (metres, >= 0) the pelvis must go straight down so every leg reaches its target.

    The hips move down with the pelvis. A leg of length L reaches when
    |target - hip| <= reach_clamp * L, which holds for drops within an interval around the
    drop that brings the hip level with the target; the pelvis takes the smallest drop inside
    every leg's interval, i.e. the lower foot decides. A target too far sideways for any drop
    has only that level drop (the closest the leg can get). When no drop serves every leg
    (one foot far above the hips, another far below), the drop splits the miss evenly.

    `weights` (one per leg in [0, 1], default all 1) are the legs' IK blend weights. A leg
    asks for its weight's share of the drop it needs (the drop is the largest of those
    asks), and its limit on how far the pelvis may go down eases from none at weight 0 to
    its own at 1: the drop follows the legs' IK, so a leg at weight 0, which keeps its
    animated pose, moves the pelvis not at all (weight 0 is the animated pose exactly),
    legs easing in pull it down gradually, and all weights 1 give the drop above.
    """
    if not (np.isfinite(reach_clamp) and 0.0 < reach_clamp <= 1.0):
        raise ValueError(f"pelvis_drop: reach_clamp must be within (0, 1], got {reach_clamp!r}")
    hips = np.asarray(hips, dtype=np.float64).reshape(-1, 3)
    targets = np.asarray(targets, dtype=np.float64).reshape(-1, 3)
    if len(hips) != len(targets):
        raise ValueError(f"pelvis_drop: {len(hips)} hips but {len(targets)} targets")
    lengths = np.asarray(leg_lengths, dtype=np.float64)
    if lengths.ndim > 1 or lengths.size not in (1, len(hips)):
        raise ValueError(f"pelvis_drop: give one leg length or one per hip, got shape {lengths.shape}")
    lengths = np.broadcast_to(lengths, (len(hips),))
    if not (np.all(np.isfinite(hips)) and np.all(np.isfinite(targets)) and np.all(np.isfinite(lengths))):
        raise ValueError("pelvis_drop: hips, targets and leg_lengths must be finite")
    if np.any(lengths < 0.0):
        raise ValueError("pelvis_drop: leg_lengths must not be negative")
    if weights is None:
        w = np.ones(len(hips))
    else:
        w = np.asarray(weights, dtype=np.float64).reshape(-1)
        if len(w) != len(hips) or not np.all((w >= 0.0) & (w <= 1.0)):
            raise ValueError(f"pelvis_drop: give one weight in [0, 1] per hip, got {np.asarray(weights).tolist()!r}")
    reach = lengths * reach_clamp
    d = targets - hips
    side = np.hypot(d[:, 0], d[:, 2])
    level = -d[:, 1]  # the drop that brings the hip level with the target
    room = np.sqrt(np.maximum(reach * reach - side * side, 0.0))
    lowest = np.max(w * (level - room))
    drop = max(lowest, 0.0)
    # At weight 1 a leg's own limit, at 0 none (the drop itself), in between a blend: the
    # even split below is then reached continuously as a weight grows.
    highest = np.min(w * (level + room) + (1.0 - w) * drop)
    if drop > highest:
        drop = max(0.5 * (lowest + highest), 0.0)
    return float(drop)
