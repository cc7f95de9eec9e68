"""Procedural gait: foot targets for a many-legged creature that follows a moving body.

Each foot stays planted (its target does not move at all) until the body has carried a
rest spot of its group more than a step length away; then the whole group steps to its rest
spots along an arc. Legs are split into alternating groups (a tripod for six legs, diagonal
groups for four or eight) and only one group is in the air at a time, and only when every
leg is down, so a creature is never left standing on one side's legs, and no leg lifts next
to a lifted neighbour.

Feet land a little ahead of the rest spot (half the distance it will travel during a step,
at most half a step length): the stance is then centred on the rest spot instead of
starting at it, so legs reach forward as much as back. When the body stops, the lead is
zero and the groups with a foot further than a small settle distance from its spot take one
last step home.

The body's motion may come in jerks (a mouse drag moves it when events arrive, not every
frame): the lead follows a smoothed velocity, and the body only counts as stopped once it
has stood still for `stop_hold` seconds, so a pause between two mouse moves does not make
every foot more than a settle distance off take a step.

Body frame: +Z forward, +Y up, +X the creature's left (right-handed); yaw turns about +Y.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .ground import HeightField

# Below this speed (m/s) of every rest spot the body counts as still; still for stop_hold
# seconds, it has stopped, and feet settle home.
STOP_SPEED = 1e-3
# Time constant (s) of the velocity the lead follows: a few frames, so a steady walk's lead is
# there within a step and a drag's frame-to-frame jerks are averaged out.
VELOCITY_TAU = 0.05


def alternating_groups(rest_spots) -> list[list[int]]:
    """Two groups that alternate front to back along each side and across the body:
    a tripod for six legs, diagonal pairs for four, alternating diagonals for eight."""
    sides = _sides(np.asarray(rest_spots, dtype=np.float64))
    groups: list[list[int]] = [[], []]
    for s, legs in enumerate(sides):
        for rank, leg in enumerate(legs):
            groups[(rank + s) % 2].append(leg)
    return [sorted(g) for g in groups if g]


def default_neighbours(rest_spots) -> list[tuple[int, int]]:
    """Pairs of legs next to each other along a side, and across the body at the same rank."""
    left, right = _sides(np.asarray(rest_spots, dtype=np.float64))
    pairs = []
    for legs in (left, right):
        pairs += list(zip(legs, legs[1:]))
    pairs += list(zip(left, right))
    return [tuple(sorted(p)) for p in pairs]


def _sides(spots: np.ndarray) -> tuple[list[int], list[int]]:
    if spots.ndim != 2 or spots.shape[1] != 3 or len(spots) < 2 or not np.all(np.isfinite(spots)):
        raise ValueError(f"gait: rest_spots must be finite points (N >= 2, 3), got shape {spots.shape}")
    if np.any(spots[:, 0] == 0.0):
        raise ValueError("gait: a rest spot on the centre line (x = 0) has no side; give groups and neighbours")
    # Front (largest z) to back on each side.
    left = [int(i) for i in sorted(np.nonzero(spots[:, 0] > 0)[0], key=lambda i: -spots[i, 2])]
    right = [int(i) for i in sorted(np.nonzero(spots[:, 0] < 0)[0], key=lambda i: -spots[i, 2])]
    return left, right


class Gait:
    def __init__(
        self,
        rest_spots,
        groups: Sequence[Sequence[int]] | None = None,
        *,
        step_length: float = 0.3,
        step_time: float = 0.25,
        step_height: float = 0.08,
        settle_distance: float = 0.01,
        stop_hold: float = 0.1,
        neighbours: Sequence[tuple[int, int]] | None = None,
        sides: tuple[Sequence[int], Sequence[int]] | None = None,
        ground: HeightField | None = None,
    ) -> None:
        """rest_spots (N, 3): where each foot stands, in the body frame (metres).
        step_length: how far (m) a rest spot may run from its planted foot before the foot's
            group steps.
        step_time: seconds a step takes. step_height: arc height (m) at mid-step.
        settle_distance: once the body stops, a group with a foot further than this from its
            spot steps home.
        stop_hold: seconds the body must stand still to count as stopped (0: at once).
        ground: if given, rest spots and landings sit on it (rest spot heights are ignored).
        """
        self.rest_spots = np.array(rest_spots, dtype=np.float64)
        n = len(self.rest_spots)
        for name, v in (("step_length", step_length), ("step_time", step_time), ("settle_distance", settle_distance)):
            if not (np.isfinite(v) and v > 0.0):
                raise ValueError(f"gait: {name} must be positive, got {v!r}")
        if not (np.isfinite(step_height) and step_height >= 0.0):
            raise ValueError(f"gait: step_height must be >= 0, got {step_height!r}")
        if not (np.isfinite(stop_hold) and stop_hold >= 0.0):
            raise ValueError(f"gait: stop_hold must be >= 0, got {stop_hold!r}")
        self.stop_hold = float(stop_hold)
        self.groups = [list(g) for g in (alternating_groups(self.rest_spots) if groups is None else groups)]
        self.neighbours = list(default_neighbours(self.rest_spots) if neighbours is None else neighbours)
        self.sides = [list(s) for s in (_sides(self.rest_spots) if sides is None else sides)]
        _check_groups(n, self.groups, self.neighbours, self.sides)
        self.step_length, self.step_time, self.step_height = float(step_length), float(step_time), float(step_height)
        self.settle_distance = float(settle_distance)
        self.ground = ground
        self._group_of = np.empty(n, dtype=np.int64)
        for g, legs in enumerate(self.groups):
            self._group_of[legs] = g
        self.feet = np.zeros((n, 3))
        self.planted = np.ones(n, dtype=bool)
        self._start = np.zeros((n, 3))
        self._elapsed = np.zeros(n)
        self._last_homes: np.ndarray | None = None
        self._velocity = np.zeros((n, 3))  # smoothed, of each rest spot (m/s)
        self._still = np.inf  # seconds the rest spots have stood still
        self._last_group = len(self.groups) - 1

    def homes(self, body_position, body_yaw: float) -> np.ndarray:
        """The rest spots in the world for this body transform, on the ground if there is one."""
        p = np.asarray(body_position, dtype=np.float64)
        if p.shape != (3,) or not np.all(np.isfinite(p)) or not np.isfinite(body_yaw):
            raise ValueError("gait: body_position must be a finite 3-vector and body_yaw a finite angle")
        c, s = np.cos(body_yaw), np.sin(body_yaw)
        x, y, z = self.rest_spots.T
        out = p + np.stack([c * x + s * z, y, -s * x + c * z], axis=1)
        if self.ground is not None:
            out[:, 1] = self.ground.height_at(out)
        return out

    def reset(self, body_position, body_yaw: float) -> np.ndarray:
        """Plant every foot on its rest spot."""
        self.feet = self.homes(body_position, body_yaw)
        self.planted[:] = True
        self._elapsed[:] = 0.0
        self._last_homes = self.feet.copy()
        self._velocity[:] = 0.0
        self._still = np.inf
        return self.feet.copy()

    def advance(self, body_position, body_yaw: float, dt: float) -> np.ndarray:
        """Move the body to this transform over `dt` seconds; return foot targets (N, 3)."""
        if not (np.isfinite(dt) and dt > 0.0):
            raise ValueError(f"gait: dt must be a positive number of seconds, got {dt!r}")
        if self._last_homes is None:
            return self.reset(body_position, body_yaw)
        homes = self.homes(body_position, body_yaw)
        velocity = (homes - self._last_homes) / dt
        self._last_homes = homes
        self._velocity += (velocity - self._velocity) * (1.0 - np.exp(-dt / VELOCITY_TAU))
        self._still = 0.0 if np.max(np.linalg.norm(velocity, axis=1)) > STOP_SPEED else self._still + dt
        moving = self._still <= self.stop_hold if self.stop_hold > 0.0 else self._still == 0.0
        lead = self._velocity * (0.5 * self.step_time) if moving else np.zeros_like(homes)
        lead_len = np.linalg.norm(lead, axis=1, keepdims=True)
        cap = 0.5 * self.step_length
        lead = np.where(lead_len > cap, lead * cap / np.where(lead_len > cap, lead_len, 1.0), lead)
        landing = homes + lead
        if self.ground is not None:
            landing[:, 1] = self.ground.height_at(landing)
        self._swing(landing, dt)
        self._lift(homes, self.step_length if moving else self.settle_distance)
        return self.feet.copy()

    def _swing(self, landing: np.ndarray, dt: float) -> None:
        legs = np.nonzero(~self.planted)[0]
        if len(legs) == 0:
            return
        self._elapsed[legs] += dt
        s = np.minimum(self._elapsed[legs] / self.step_time, 1.0)
        # Smoothstep along the ground: the foot leaves and lands with no speed, and since the
        # landing spot is re-read every frame the foot homes in on a moving spot smoothly.
        ease = (s * s * (3.0 - 2.0 * s))[:, None]
        pos = self._start[legs] + (landing[legs] - self._start[legs]) * ease
        pos[:, 1] += self.step_height * np.sin(np.pi * s)
        self.feet[legs] = pos
        done = legs[s >= 1.0]
        self.feet[done] = landing[done]
        self.planted[done] = True

    def _lift(self, homes: np.ndarray, threshold: float) -> None:
        # Only lift when every foot is down: one group at a time, turn by turn, and the whole
        # group. On a straight walk a group's feet are all the same distance from their spots
        # to round-off, so lifting only those past the threshold let an ulp decide which feet
        # stepped, and a foot left behind might never step at all.
        if not np.all(self.planted):
            return
        wants = np.linalg.norm(self.feet - homes, axis=1) > threshold
        if not np.any(wants):
            return
        g_count = len(self.groups)
        for k in range(1, g_count + 1):
            g = (self._last_group + k) % g_count
            if wants[self.groups[g]].any():
                break
        self._last_group = g
        legs = self.groups[g]
        self._start[legs] = self.feet[legs]
        self._elapsed[legs] = 0.0
        self.planted[legs] = False


def _check_groups(n: int, groups, neighbours, sides) -> None:
    flat = sorted(leg for g in groups for leg in g)
    if flat != list(range(n)):
        raise ValueError(f"gait: groups must hold every leg 0..{n - 1} exactly once, got {groups}")
    group_of = {leg: g for g, legs in enumerate(groups) for leg in legs}
    for a, b in neighbours:
        if a not in group_of or b not in group_of:
            raise ValueError(f"gait: neighbours ({a}, {b}) name a leg that does not exist")
        if group_of[a] == group_of[b]:
            raise ValueError(f"gait: neighbouring legs {a} and {b} are in the same group {groups[group_of[a]]}")
    for side in sides:
        if any(leg not in group_of for leg in side):
            raise ValueError(f"gait: side {list(side)} names a leg that does not exist")
        if len(side) >= 2:
            for g in groups:
                if set(side) <= set(g):
                    raise ValueError(f"gait: group {g} holds every leg of one side {sorted(side)}")
