"""Capsules fitted to a figure's bones: the torso along the spine, each leg's thigh and shin.

A capsule is a bone (the segment between two joints, followed frame by frame) with a radius;
a point is inside when it is nearer the segment than the radius. There is no mesh to fit
widths to, so radii are fractions of the figure's height, from adult proportions and kept on
the lean side, so that a limb resting against the body (hands on the hips, knees together)
is not called inside it:

    torso  0.065 (11.4 cm on a 1.75 m figure: a chest ~25 cm deep, less its padding)
    thigh  0.040 (7 cm)
    shin   0.028 (4.9 cm)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TORSO_RADIUS = 0.065
THIGH_RADIUS = 0.040
SHIN_RADIUS = 0.028


@dataclass(frozen=True)
class Capsule:
    a: int  # joint at one end
    b: int  # joint at the other
    radius: float  # file units
    part: str  # "torso", "left_leg", ...


def body_capsules(spine: list[int], legs: dict[str, list[int]], height: float) -> list[Capsule]:
    out = [Capsule(a, b, TORSO_RADIUS * height, "torso") for a, b in zip(spine, spine[1:])]
    if len(spine) == 1:
        out.append(Capsule(spine[0], spine[0], TORSO_RADIUS * height, "torso"))
    for side, leg in legs.items():
        out.append(Capsule(leg[0], leg[1], THIGH_RADIUS * height, f"{side}_leg"))
        out.append(Capsule(leg[1], leg[-1], SHIN_RADIUS * height, f"{side}_leg"))
    return out


def depth_inside(points: np.ndarray, pos: np.ndarray, capsules: list[Capsule]) -> np.ndarray:
    """(frames, points) how far each point is inside the deepest of `capsules` (negative:
    outside by that much); points (frames, points, 3), pos (frames, joints, 3) the joints'."""
    if not capsules:
        return np.full(points.shape[:2], -np.inf)
    a = pos[:, [c.a for c in capsules]][:, None]  # (F, 1, S, 3)
    b = pos[:, [c.b for c in capsules]][:, None]
    r = np.array([c.radius for c in capsules])
    p = points[:, :, None]  # (F, P, 1, 3)
    ab = b - a
    den = np.maximum((ab * ab).sum(-1), 1e-300)
    u = np.clip(((p - a) * ab).sum(-1) / den, 0.0, 1.0)
    d = np.linalg.norm(p - (a + u[..., None] * ab), axis=-1)  # (F, P, S)
    return (r - d).max(axis=-1)


def along(pos: np.ndarray, a: int, b: int, samples: int) -> np.ndarray:
    """(frames, samples, 3) points spread along the bone a -> b, both ends included."""
    u = np.linspace(0.0, 1.0, samples)[None, :, None]
    return pos[:, a][:, None] * (1.0 - u) + pos[:, b][:, None] * u
