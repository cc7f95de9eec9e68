"""Which way a figure faces, from its pose first and its names last.

In order, the first that says something clearly (more than CLEAR of the figure's size):
1. toes: the bones past the feet on the ground, where they lie flat, point forward;
2. a quadruped's body: from the hips to the chest (both with legs to the ground);
3. bent knees point forward, bent elbows back;
4. names: left_* limbs on the left (a T-pose robot with no toes and straight legs).
Left is then up x forward, and each pair of limbs is told apart by which is further left.
"""
from __future__ import annotations

import numpy as np

from .figure import UP, Figure
from .limbs import Limb

CLEAR = 0.01
PLANTED = 0.05  # a foot on the ground: this close to the lowest point, in figure heights


def facing(fig: Figure, legs: list[Limb], arms: list[Limb], front_hub: int | None) -> tuple[np.ndarray | None, str]:
    axis = _across(fig, legs) if len(legs) == 2 else _across(fig, arms) if len(arms) == 2 else None

    def clear(v: np.ndarray) -> np.ndarray | None:
        v = fig.horizontal(v)
        if axis is not None:  # splayed toes and elbows bent outward say nothing of the facing
            v = v - (v @ axis) * axis
        n = float(np.linalg.norm(v))
        return v / n if n > CLEAR * fig.size else None

    toes = np.zeros(3)
    # A lifted foot swings its toes any way (CesiumMan's first frame points them back):
    # the feet on the ground say it, when there are any.
    planted = [leg for leg in legs if fig.low[leg.line[0]] <= fig.ground + PLANTED * fig.tall]
    for leg in planted or legs:
        tip = leg.line.index(leg.joints[-1])
        if tip < len(leg.line) - 1:
            v = fig.pos[leg.line[-1]] - fig.pos[leg.joints[-1]]
            if np.linalg.norm(fig.horizontal(v)) >= abs(float(v @ UP)):  # a foot flat, not on its toes
                toes += v
    if (f := clear(toes)) is not None:
        return f, "toes"
    if front_hub is not None and legs:
        if (f := clear(fig.pos[front_hub] - fig.pos[legs[0].hub])) is not None:
            return f, "hips to chest"
    bend = np.zeros(3)
    for limbs, sign in ((legs, 1.0), (arms, -1.0)):
        for limb in limbs:
            if len(limb.joints) >= 3:
                root, tip = fig.pos[limb.joints[0]], fig.pos[limb.joints[-1]]
                mid = fig.pos[limb.joints[len(limb.joints) // 2]]
                bend += sign * (mid - 0.5 * (root + tip))
    if (f := clear(bend)) is not None:
        return f, "knees and elbows"
    across = np.zeros(3)
    for limb in legs + arms:
        side = fig.hints[limb.joints[0]].side or fig.hints[limb.joints[-1]].side
        if side is not None:
            across += (1.0 if side == "left" else -1.0) * (fig.pos[limb.joints[0]] - fig.pos[limb.hub])
    if (f := clear(np.cross(across, UP))) is not None:
        return f, "names"
    return None, ""


def _across(fig: Figure, pair: list[Limb]) -> np.ndarray | None:
    """The horizontal line through a pair of limbs' roots, either way along it."""
    v = fig.horizontal(fig.pos[pair[0].joints[0]] - fig.pos[pair[1].joints[0]])
    n = float(np.linalg.norm(v))
    return v / n if n > CLEAR * fig.size else None


def sides(fig: Figure, limbs: list[Limb], forward: np.ndarray | None) -> list[str | None]:
    """"left"/"right" for a pair of limbs (by position when the facing is known, else by
    name); None where neither tells."""
    if len(limbs) == 2 and forward is not None:
        left = np.cross(UP, forward)
        a, b = (float((fig.pos[limb.joints[0]] - fig.pos[limb.hub]) @ left) for limb in limbs)
        if abs(a - b) > CLEAR * fig.size:
            return ["left", "right"] if a > b else ["right", "left"]
    if len(limbs) == 1 and forward is not None:
        d = float((fig.pos[limbs[0].joints[0]] - fig.pos[limbs[0].hub]) @ np.cross(UP, forward))
        if abs(d) > CLEAR * fig.size:
            return ["left" if d > 0 else "right"]
    named = [fig.hints[limb.joints[0]].side or fig.hints[limb.joints[-1]].side for limb in limbs]
    if len(limbs) == 2 and len(set(named)) == 2 and None not in named:
        return named
    return named if len(limbs) == 1 else [None] * len(limbs)
