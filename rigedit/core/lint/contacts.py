"""Contacts: the runs of frames a foot is planted.

A foot (a leg's tip, the ankle) is planted while it is low and slow, with hysteresis so that
noise around one threshold does not split a contact into many:

- it plants when its height above its floor is under ENTER_HEIGHT and its speed under
  ENTER_SPEED, and stays planted until its height goes over LEAVE_HEIGHT or its speed over
  LEAVE_SPEED (LEAVE_* > ENTER_*);
- heights are fractions of the leg length (motion.py) above the foot's own floor: the height
  it is at or below on FLOOR_PERCENT of the motion's frames (a mocap rest pose hangs from
  the hips at the origin, so it cannot say where the floor is, and an ankle stands a little
  above the ground);
- speeds are leg lengths per second over the motion's time window (motion.TIME_WINDOW_S),
  so 30 and 120 fps files of one walk get the same contacts;
- a contact shorter than MIN_CONTACT_S is a foot passing low through the slow point of a
  swing, not a plant, and is dropped.

With a 0.8 m leg: plants below 4 cm and 0.2 m/s, lifts above 6.4 cm or 0.4 m/s.
"""
from __future__ import annotations

import numpy as np

from .findings import runs
from .motion import Motion

FLOOR_PERCENT = 5.0
ENTER_HEIGHT = 0.05  # leg lengths
LEAVE_HEIGHT = 0.08
ENTER_SPEED = 0.25  # leg lengths per second
LEAVE_SPEED = 0.5
MIN_CONTACT_S = 0.1


def foot_contacts(motion: Motion, foot: int) -> list[tuple[int, int]]:
    """(first, last) planted frames, inclusive, of joint `foot`, from motion.first on."""
    p = motion.pos[:, foot]
    s = motion.first
    height = (p[:, 1] - np.percentile(p[s:, 1], FLOOR_PERCENT)) / motion.leg_length
    speed = motion.speed(p) / motion.leg_length
    planted = np.zeros(len(p), dtype=bool)
    on = False
    for f in range(s, len(p)):
        if on:
            on = height[f] <= LEAVE_HEIGHT and speed[f] <= LEAVE_SPEED
        else:
            on = height[f] < ENTER_HEIGHT and speed[f] < ENTER_SPEED
        planted[f] = on
    shortest = max(2, int(np.ceil(MIN_CONTACT_S * motion.fps)))
    return [(a, b) for a, b in runs(planted) if b - a + 1 >= shortest]
