"""Feet on their contacts: where the source's feet are planted (lint's contact detection,
core/lint/contacts.py, with its hysteresis), the target's foot goals held still over the
ground through each contact and let go with an ease, and how far a foot slid.

A foot is held horizontally where its goal was on the contact's first frame, through the
contact's last frame; its height stays the clip's (heel and toe still roll). The hold starts
one speed window (lint's TIME_WINDOW_S/2) before the contact: the detection's speed is
averaged over that window, so the last frames of the foot setting down, still moving a few
millimetres a frame at 120 fps, would otherwise be the first frames of the contact a lint of
the output finds. After the contact the hold is eased out over lint --fix's EASE_S with a
smoothstep, so the foot catches up with the clip without a jump.
"""
from __future__ import annotations

import numpy as np

from ..clip import Clip
from ..lint.contacts import foot_contacts
from ..lint.fix import EASE_S
from ..lint.jumps import reference_frame
from ..lint.motion import TIME_WINDOW_S, Limb, Motion
from ..skeleton import Skeleton

Contacts = dict[str, list[tuple[int, int]]]


def contacts_of(skeleton: Skeleton, clip: Clip, legs: dict[str, list[int]]) -> Contacts:
    """(first, last) planted frames per leg role, legs: role -> joints root to tip."""
    limbs = [Limb(role, j[0], j[len(j) // 2], j[-1], True) for role, j in legs.items()]
    first = 1 if reference_frame(clip.rotations) else 0
    motion = Motion(skeleton, clip, limbs, {}, first=first)
    return {limb.chain: foot_contacts(motion, limb.end) for limb in limbs}


def planted_frame(points: np.ndarray, contacts: list[tuple[int, int]]) -> int | None:
    """The frame of the contacts where the ankle (points: (frames, 3)) is lowest: the heel
    down, the foot flat; None without contacts."""
    frames = [f for a, b in contacts for f in range(a, b + 1)]
    return None if not frames else frames[int(np.argmin(points[frames, 1]))]


def foot_points(skeleton: Skeleton, ankle: int) -> list[int]:
    """The ankle and every joint under it (toes, toe ends)."""
    out, todo = [], [ankle]
    while todo:
        j = todo.pop()
        out.append(j)
        todo += skeleton.children(j)
    return out


def above_ground(goals: np.ndarray, drop: np.ndarray, ground: float = 0.0) -> np.ndarray:
    """goals (frames, 3) raised where the foot would go below `ground`: drop (frames,) is how
    far the foot's lowest point lies under the ankle on each frame (the foot keeps its world
    rotation through the solve, so that is known before it)."""
    out = goals.copy()
    out[:, 1] = np.maximum(out[:, 1], ground + drop)
    return out


def lock(goals: np.ndarray, contacts: list[tuple[int, int]], fps: float) -> np.ndarray:
    """goals (frames, 3) with x and z held through each contact and eased out after it."""
    out = goals.copy()
    n = len(out)
    ease = max(1, round(EASE_S * fps))
    early = max(1, round(0.5 * TIME_WINDOW_S * fps))
    for a, b in contacts:
        a = max(0, a - early)
        held = out[a, [0, 2]].copy()
        out[a : b + 1, 0] = held[0]
        out[a : b + 1, 2] = held[1]
        gap = held - goals[b, [0, 2]]
        for f in range(b + 1, min(b + ease, n - 1) + 1):
            u = (f - b) / (ease + 1)
            w = 1.0 - u * u * (3.0 - 2.0 * u)
            out[f, [0, 2]] = goals[f, [0, 2]] + w * gap
    return out


def slides(points: np.ndarray, contacts: list[tuple[int, int]]) -> list[float]:
    """Per contact, how far (metres, over the ground) the point strays from where it was on
    the contact's first frame."""
    out = []
    for a, b in contacts:
        xz = points[a : b + 1][:, [0, 2]]
        out.append(float(np.linalg.norm(xz - xz[0], axis=-1).max()))
    return out
