"""Procedural creature legs on a rig (issue 8): the rig's body (its root joint, as the clip
or a drag moves it) drives rigedit.core.gait.Gait, whose foot targets become the leg chains'
targets, each then solved by its own chain (FABRIK with its limits).

Headless: `advance_gait(rig, dt)` moves the gait on by dt seconds from the rig's current
animated body transform and solves. The editor calls `rig.advance_gait(dt)` as the timeline
plays (rigedit/app/document.py), and the solver thread solves as for any target move.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .gait import Gait
from .transforms import quat_rotate

# A jump in time longer than this (seconds) is a scrub or a loop back, not a walk: feet
# are planted afresh on their rest spots instead of stepping across the gap.
MAX_STEP_DT = 0.25


@dataclass(frozen=True)
class GaitSettings:
    """Which chains are legs, and how they step (see Gait): step_length (m) a rest spot may
    run from its planted foot before the foot's group steps, step_time (s) a step takes,
    step_height (m)."""

    legs: tuple[str, ...]
    step_length: float = 0.12
    step_time: float = 0.2
    step_height: float = 0.05


def check_gait(settings: GaitSettings, chain_names) -> GaitSettings:
    if not isinstance(settings, GaitSettings):
        raise ValueError(f"gait must be GaitSettings or None, got {type(settings).__name__}")
    legs = tuple(settings.legs)
    if len(legs) < 2:
        raise ValueError(f"gait needs at least 2 leg chains, got {len(legs)}")
    for leg in legs:
        if leg not in chain_names:
            raise ValueError(f"gait leg {leg!r} is not a chain of this rig")
    if len(set(legs)) != len(legs):
        raise ValueError(f"gait legs repeat: {list(legs)}")
    for name in ("step_length", "step_time"):
        v = getattr(settings, name)
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0.0):
            raise ValueError(f"gait {name} must be a positive number, got {v!r}")
    if not (math.isfinite(settings.step_height) and settings.step_height >= 0.0):
        raise ValueError(f"gait step_height must be >= 0, got {settings.step_height!r}")
    return GaitSettings(legs, float(settings.step_length), float(settings.step_time), float(settings.step_height))


def body_transform(skeleton, pose) -> tuple[np.ndarray, float]:
    """World position of the root joint and its yaw (radians about +Y; 0 faces +Z)."""
    root = [j for j, p in enumerate(skeleton.parents) if p < 0][0]
    q = np.asarray(pose.rotations[root], dtype=np.float64)
    forward = quat_rotate(q, np.array([0.0, 0.0, 1.0]))
    return np.asarray(pose.translations[root], dtype=np.float64).copy(), math.atan2(forward[0], forward[2])


class RigGait:
    """The running gait of one rig: built from the rig at rest (each leg's rest spot is where
    its tip stands in the rest pose, in the body's frame)."""

    def __init__(self, rig, settings: GaitSettings) -> None:
        self.settings = settings
        sk = rig.skeleton
        rest = sk.rest_pose()
        pos = sk.fk_matrices(rest)[0]
        body, yaw = body_transform(sk, rest)
        c, s = math.cos(-yaw), math.sin(-yaw)
        spots = []
        for leg in settings.legs:
            d = pos[sk.index(rig.chain(leg).joints[-1])] - body
            spots.append((c * d[0] + s * d[2], d[1], -s * d[0] + c * d[2]))
        ground = rig.ground.field if getattr(rig, "ground", None) is not None else None
        self.gait = Gait(
            np.array(spots),
            step_length=settings.step_length,
            step_time=settings.step_time,
            step_height=settings.step_height,
            ground=ground,
        )
        self.time: float | None = None

    def resume(self, rig) -> None:
        """Stand the feet where the legs' targets are, at the rig's current time (a saved rig
        reopened: its pose shows them there), instead of on their rest spots: the next
        advance at this time keeps them, a later one steps on from there."""
        body, yaw = body_transform(rig.skeleton, rig.animated_pose())
        self.gait.reset(body, yaw)
        self.gait.feet = np.array([rig.chain(leg).target for leg in self.settings.legs], dtype=np.float64)
        self.time = rig.time

    def advance(self, rig, dt: float | None = None) -> np.ndarray:
        """Move on to the rig's current time (or by `dt`) and set the legs' targets."""
        body, yaw = body_transform(rig.skeleton, rig.animated_pose())
        step = dt if dt is not None else (None if self.time is None else rig.time - self.time)
        self.time = rig.time
        if step is None or not (0.0 < step <= MAX_STEP_DT):
            feet = self.gait.reset(body, yaw) if step is None or step != 0.0 else self.gait.feet.copy()
        else:
            feet = self.gait.advance(body, yaw, step)
        for leg, foot in zip(self.settings.legs, feet):
            rig.chain(leg).target = tuple(float(v) for v in foot)
        return feet


def advance_gait(rig, dt: float) -> dict:
    """Headless: move the rig's clip time on by dt, step the gait there, solve; returns the
    solve's reports."""
    if not (math.isfinite(dt) and dt > 0.0):
        raise ValueError(f"dt must be a positive number of seconds, got {dt!r}")
    rig.time = rig.time + dt
    rig.advance_gait(dt)
    return rig.solve()
