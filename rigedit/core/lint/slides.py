"""Foot slides: a planted foot moving over the ground during a contact (contacts.py).

A planted ankle rolls as the weight goes from heel to toe: at the end of a contact the heel
lifts, and the ankle rises a few centimetres and moves forward a couple (CMU 12_01: 4 cm up,
2.5 cm forward). That is not a slide, so only the contact's flat frames count, where the
ankle is within FLAT_RISE (leg lengths) of its lowest in the contact. A contact is a slide
when over its flat frames the foot travels horizontally more than SLIDE_DISTANCE from where
it planted; the span is from the first to the last flat frame where it moves faster than
SLIDE_SPEED (leg lengths per second). With a 0.8 m leg: more than 2.4 cm of travel at more
than 8 cm/s, the ankle within 1.2 cm of its lowest.

What moves a planted foot and is not a slide:
- a pivot: the foot turns about a point of it that stays put, the ball of the foot (its toe
  joint) or the heel (behind and below the ankle, HEEL of the way from the toe joint back past
  the ankle), as a dancer turns or a heel swivels. The ankle travels; that point does not.
- a shuffle: the foot moves in small separate steps along the floor, each shorter than
  SLIDE_DISTANCE, with the foot still between them.
Severity follows how far the foot skates: info up to WARN_DISTANCE, a warning up to
SEVERE_DISTANCE, an error past it. In the shared professional takes (LAFAN1's push, where the
actor is shoved and catches himself, Bandai's kick) feet skate up to 9 cm (0.105 leg
lengths) with no pivot point: a warning.
"""
from __future__ import annotations

import numpy as np

from .contacts import foot_contacts
from .findings import Finding, runs
from .motion import Motion

SLIDE_DISTANCE = 0.03
SLIDE_SPEED = 0.1
FLAT_RISE = 0.015
WARN_DISTANCE = 0.06  # info below this (5 cm on a 0.8 m leg)
SEVERE_DISTANCE = 0.15  # an error past this (12 cm on a 0.8 m leg)
HEEL = 0.35  # the heel lies this fraction of the ankle-to-toe length behind the ankle


def foot_slides(motion: Motion, contacts: dict[str, list[tuple[int, int]]] | None = None) -> list[Finding]:
    out = []
    for limb in motion.limbs:
        if not limb.leg:
            continue
        spans = foot_contacts(motion, limb.end) if contacts is None else contacts[limb.chain]
        xz = motion.pos[:, limb.end][:, [0, 2]]
        speed = motion.speed(xz) / motion.leg_length
        toe = toe_of(motion, limb.end)
        for a, b in spans:
            flat = flat_frames(motion, limb, a, b)
            first = int(np.argmax(flat))
            travel = _travel(xz[a : b + 1], flat, first) / motion.leg_length
            if travel.max() <= SLIDE_DISTANCE:
                continue
            fast = np.nonzero((speed[a : b + 1] > SLIDE_SPEED) & flat)[0]
            if len(fast) == 0 or _pivots(motion, limb.end, toe, a, b, flat, first) or _shuffle(xz[a : b + 1], flat, speed[a : b + 1], motion.leg_length):
                continue
            start, end = a + int(fast[0]), a + int(fast[-1])
            metres = float(np.ptp(xz[a : b + 1][flat], axis=0).max())
            far = float(travel.max())
            out.append(Finding(
                "foot_slide", limb.chain, motion.name(limb.end), start, end,
                "error" if far > SEVERE_DISTANCE else "warning" if far > WARN_DISTANCE else "info",
                f"planted frames {a}-{b}: the foot moves {100 * far * motion.leg_length:.1f} cm over the ground "
                f"(up to {100 * float(speed[a:b + 1].max()) * motion.leg_length:.0f} cm/s; extent {100 * metres:.1f} cm)",
            ))
    return out


def toe_of(motion: Motion, foot: int) -> int | None:
    """The joint past the ankle the foot rolls over (the ball of the foot), if the skeleton has
    one: the foot's child with the longest bone."""
    kids = [c for c in range(len(motion.skeleton)) if motion.skeleton.parents[c] == foot]
    if not kids:
        return None
    lengths = [float(np.linalg.norm(motion.skeleton.offsets[c])) for c in kids]
    return kids[int(np.argmax(lengths))] if max(lengths) > 0.0 else None


def _travel(xz: np.ndarray, flat: np.ndarray, first: int) -> np.ndarray:
    """Per frame of a contact, how far a point is from where it was on the first flat frame
    (0 off the flat frames)."""
    return np.where(flat, np.linalg.norm(xz - xz[first], axis=-1), 0.0)


def _pivots(motion: Motion, ankle: int, toe: int | None, a: int, b: int, flat: np.ndarray, first: int) -> bool:
    """Whether the foot turns about its ball or its heel: that point stays within
    SLIDE_DISTANCE over the flat frames."""
    if toe is None:
        return False
    p_ankle = motion.pos[a : b + 1, ankle][:, [0, 2]]
    p_toe = motion.pos[a : b + 1, toe][:, [0, 2]]
    heel = p_ankle - HEEL * (p_toe - p_ankle)
    limit = SLIDE_DISTANCE * motion.leg_length
    return any(_travel(p, flat, first).max() <= limit for p in (p_toe, heel))


def _shuffle(xz: np.ndarray, flat: np.ndarray, speed: np.ndarray, leg: float) -> bool:
    """Whether the foot's travel is two or more separate moves with the foot still between
    them, each shorter than SLIDE_DISTANCE."""
    moves = runs((speed > SLIDE_SPEED) & flat)
    if len(moves) < 2:
        return False
    return all(np.linalg.norm(xz[min(b + 1, len(xz) - 1)] - xz[max(a - 1, 0)]) <= SLIDE_DISTANCE * leg for a, b in moves)


def flat_frames(motion: Motion, limb, a: int, b: int) -> np.ndarray:
    """Which of contact a..b's frames the foot is flat on (the ankle within FLAT_RISE of its
    lowest in the contact; the heel is off after them)."""
    y = motion.pos[a : b + 1, limb.end, 1]
    return y - y.min() <= FLAT_RISE * motion.leg_length
