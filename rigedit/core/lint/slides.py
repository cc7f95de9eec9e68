"""Foot slides: a planted foot moving over the ground during a contact (contacts.py).

A planted ankle rolls as the weight goes from heel to toe: at the end of a contact the heel
lifts, and the ankle rises a few centimetres and moves forward a couple (CMU 12_01: 4 cm up,
2.5 cm forward). That is not a slide, so only the contact's flat frames count, where the
ankle is within FLAT_RISE (leg lengths) of its lowest in the contact. A contact is a slide
when over its flat frames the foot travels horizontally more than SLIDE_DISTANCE from where
it planted; the span is from the first to the last flat frame where it moves faster than
SLIDE_SPEED (leg lengths per second).
With a 0.8 m leg: more than 2.4 cm of travel at more than 8 cm/s, the ankle within 1.2 cm
of its lowest.
"""
from __future__ import annotations

import numpy as np

from .contacts import foot_contacts
from .findings import Finding
from .motion import Motion

SLIDE_DISTANCE = 0.03
SLIDE_SPEED = 0.1
FLAT_RISE = 0.015
SEVERE_DISTANCE = 0.1  # an error past this (8 cm on a 0.8 m leg), a warning below


def foot_slides(motion: Motion, contacts: dict[str, list[tuple[int, int]]] | None = None) -> list[Finding]:
    out = []
    for limb in motion.limbs:
        if not limb.leg:
            continue
        spans = foot_contacts(motion, limb.end) if contacts is None else contacts[limb.chain]
        xz = motion.pos[:, limb.end][:, [0, 2]]
        speed = motion.speed(xz) / motion.leg_length
        for a, b in spans:
            flat = flat_frames(motion, limb, a, b)
            first = a + int(np.argmax(flat))
            travel = np.where(flat, np.linalg.norm(xz[a : b + 1] - xz[first], axis=-1) / motion.leg_length, 0.0)
            if travel.max() <= SLIDE_DISTANCE:
                continue
            fast = np.nonzero((speed[a : b + 1] > SLIDE_SPEED) & flat)[0]
            if len(fast) == 0:
                continue
            start, end = a + int(fast[0]), a + int(fast[-1])
            metres = float(np.ptp(xz[a : b + 1][flat], axis=0).max())
            dist = float(travel.max() * motion.leg_length)
            out.append(Finding(
                "foot_slide", limb.chain, motion.name(limb.end), start, end,
                "error" if travel.max() > SEVERE_DISTANCE else "warning",
                f"planted frames {a}-{b}: the foot moves {100 * dist:.1f} cm over the ground "
                f"(up to {100 * float(speed[a:b + 1].max()) * motion.leg_length:.0f} cm/s; extent {100 * metres:.1f} cm)",
            ))
    return out


def flat_frames(motion: Motion, limb, a: int, b: int) -> np.ndarray:
    """Which of contact a..b's frames the foot is flat on (the ankle within FLAT_RISE of its
    lowest in the contact; the heel is off after them)."""
    y = motion.pos[a : b + 1, limb.end, 1]
    return y - y.min() <= FLAT_RISE * motion.leg_length
