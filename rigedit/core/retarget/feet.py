"""Feet on their contacts: where the source's feet are planted (lint's contact detection,
core/lint/contacts.py, with its hysteresis), the target's foot goals held still over the
ground through each contact and let go with an ease, and how far a foot slid.

A foot is held horizontally where its goal was on the contact's first frame, through the
contact's last frame; its height stays the clip's (heel and toe still roll). The hold starts
one speed window (lint's TIME_WINDOW_S/2) before the contact: the detection's speed is
averaged over that window, so the last frames of the foot setting down, still moving a few
millimetres a frame at 120 fps, would otherwise be the first frames of the contact a lint of
the output finds. After the contact the hold is eased out over RELEASE_S with a
smoothstep, so the foot catches up with the clip without a jump.
"""
from __future__ import annotations

import numpy as np

from ..clip import Clip
from ..lint.contacts import foot_contacts
from ..lint.fix import EASE_S
from ..lint.jumps import reference_frame
from ..lint.motion import TIME_WINDOW_S, Limb, Motion
from ..quality.skate import REFERENCE_HEIGHT, SKATE_HEIGHT
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


# The hold is let go over twice lint --fix's ease: a foot that catches up with the clip over
# 0.15 s right after a contact still moves low and fast (the report's foot skate counts it);
# over 0.3 s the Bandai kick skates as the source does (0.135 against 0.129; 0.143 at 0.15 s,
# no better at 0.45 or 0.6).
RELEASE_S = 2.0 * EASE_S
RAISE_EASE_S = 0.1  # seconds over which a raised foot is eased up and down
FLOOR_PERCENT = 1.0  # as the report's CLEARANCE_PERCENT (core/quality/body.py)
FLOOR_PASSES = 3
# Twice the height under which the report counts a foot as on the ground (quality/skate.py).
CLEARANCE_CAP = 2.0 * SKATE_HEIGHT / REFERENCE_HEIGHT  # the foot's floor: where its lowest point is when down (core/quality/body.py's)


def clearance(heights: np.ndarray, height: float) -> np.ndarray:
    """(frames,) how high the foot's lowest point is over the foot's floor, in units of the
    figure's `height`, up to CLEARANCE_CAP; heights (frames, points) of the foot's points.
    Higher than the cap a foot is in the air however high: matching the source's clearance
    there would only bend the target's knee more than the source's."""
    low = heights.min(axis=1)
    return np.minimum(np.maximum(low - float(np.percentile(low, FLOOR_PERCENT)), 0.0) / height, CLEARANCE_CAP)


def foot_floor(lowest: np.ndarray) -> float:
    """Where a foot's lowest point is when the foot is down, from its height on every frame
    (lowest: (frames,)): as the report reads a foot's floor (core/quality/body.py), its
    FLOOR_PERCENT lowest and never below the ground."""
    return max(0.0, float(np.percentile(lowest, FLOOR_PERCENT)))


def clear_of_floor(goals: np.ndarray, drop: np.ndarray, lift: np.ndarray, fps: float) -> np.ndarray:
    """goals (frames, 3) of an ankle raised (above_ground) so that the foot's lowest point, drop
    (frames,) under the ankle, is never below the ground and clears the foot's own floor
    (foot_floor) by lift (frames,): the source's clearance over its floor, scaled.

    Over the floor the raised foot ends up on, not over y = 0: a foot raised out of the
    ground on every frame (the pybvh take's, pitched down all along) stands on a floor the
    raise's ease put a few millimetres up, and the report reads its swing that much lower
    than the source's (the pybvh take skated on it). So the raise is asked again over the
    floor the last one gave, FLOOR_PASSES times; each pass raises only what is still short,
    so the floor moves less each time."""
    out = goals
    for _ in range(FLOOR_PASSES):
        out = above_ground(out, drop + foot_floor(out[:, 1] - drop) + lift, fps)
    return out


def above_ground(goals: np.ndarray, drop: np.ndarray, fps: float) -> np.ndarray:
    """goals (frames, 3) raised where the foot's lowest point would come nearer the ground
    (y = 0) than allowed: drop (frames,) is how far the ankle must stand above the ground on
    each frame, its lowest point's depth under it (the foot keeps its world rotation through
    the solve, so that is known before it) plus the clearance the source's foot has there. A
    longer foot than the source's swings its toes as high over the ground, not through it.

    The raise is eased in and out over RAISE_EASE_S (the largest raise near a frame, averaged
    over the same span, which is never less than the frame's own), so a knee does not snap
    where the raise starts."""
    out = goals.copy()
    out[:, 1] += eased_max(np.maximum(drop - goals[:, 1], 0.0), max(1, round(0.5 * RAISE_EASE_S * fps)))
    return out


def eased_max(x: np.ndarray, half: int) -> np.ndarray:
    """(frames,) x eased: the largest value within `half` frames, averaged over as many; never
    less than x (each frame's window mean includes only maxima over windows that hold it)."""
    if len(x) == 0:
        return x
    most = np.lib.stride_tricks.sliding_window_view(np.pad(x, half, mode="edge"), 2 * half + 1).max(axis=1)
    return np.lib.stride_tricks.sliding_window_view(np.pad(most, half, mode="edge"), 2 * half + 1).mean(axis=1)


def lock(goals: np.ndarray, contacts: list[tuple[int, int]], fps: float) -> np.ndarray:
    """goals (frames, 3) with x and z held through each contact and eased out after it."""
    out = goals.copy()
    n = len(out)
    ease = max(1, round(RELEASE_S * fps))
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
