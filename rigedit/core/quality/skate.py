"""Foot skate: the share of frames in which a foot on the ground slides, as the motion
synthesis literature measures it (the guided-motion-diffusion and InterControl evaluations):
a foot point within SKATE_HEIGHT of the ground at both ends of a 1/20 s step that moves more
than SKATE_DISTANCE horizontally over that step. Those figures are for a 1.75 m figure
(REFERENCE_HEIGHT) at 20 fps; here both lengths scale with the figure's height, and the step
is 1/20 s of time (positions read between frames linearly), so any frame rate gets the same
verdict.

Which points: the ankle and the ball of each foot (the joint one bone below the ankle, a
toe's base), the literature's foot joints (the SMPL skeleton's ankle and foot joints those
evaluations read), not a toe's tip past the ball. A foot turning on its ball sweeps its toe's
tip over the ground without sliding; counting the tip made the same motion skate on a skeleton
with toe ends and not on one whose toes stop at the ball (a kick's spin on the ball, retargeted
from the Bandai skeleton onto Xbot's, doubled its skate frames).

Which frames count: every frame of motion whose step ends inside the clip. A frame is a
contact frame when some foot point is low at both ends of its step, and a skate frame when one
of those also moves too far. Heights are above the foot's floor (body.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .body import Body

REFERENCE_HEIGHT = 1.75  # metres: the figure the literature's thresholds are for
SKATE_HEIGHT = 0.05  # metres on that figure
SKATE_DISTANCE = 0.025  # metres on that figure, per STEP_S
STEP_S = 1.0 / 20.0


@dataclass
class Skate:
    share: float  # skate frames / counted frames (0 when none count)
    counted: np.ndarray  # (frames,) bool: frames whose step is inside the motion
    contact: np.ndarray  # (frames,) bool: some foot point low at both ends of the step
    skating: np.ndarray  # (frames,) bool
    step: np.ndarray  # (frames, sides) the furthest a low foot point moves over the step, height units

    @property
    def contact_share(self) -> float:
        n = int(self.counted.sum())
        return float(self.contact.sum()) / n if n else 0.0


def at_time(track: np.ndarray, t: np.ndarray, fps: float) -> np.ndarray:
    """(frames, ...) track read at times t (seconds), linearly between frames, held at the ends."""
    f = np.clip(t * fps, 0.0, len(track) - 1)
    i = np.minimum(np.floor(f).astype(np.int64), len(track) - 2) if len(track) > 1 else np.zeros(len(t), np.int64)
    u = (f - i).reshape((-1,) + (1,) * (track.ndim - 1))
    j = np.minimum(i + 1, len(track) - 1)
    return (1.0 - u) * track[i] + u * track[j]


def foot_skate(body: Body) -> Skate:
    n = body.n_frames
    t = np.arange(n) / body.fps
    counted = (np.arange(n) >= body.first) & (t + STEP_S <= t[-1] + 1e-9)
    scale = body.height / REFERENCE_HEIGHT
    low_h, far = SKATE_HEIGHT * scale, SKATE_DISTANCE * scale
    contact = np.zeros(n, bool)
    skating = np.zeros(n, bool)
    step = np.zeros((n, len(body.feet)))
    for k, side in enumerate(body.feet):
        pts = body.balls[side]
        h0 = body.pos[:, pts, 1] - body.floor(side)
        h1 = at_time(h0, t + STEP_S, body.fps)
        xz = body.pos[:, pts][..., [0, 2]]
        moved = np.linalg.norm(at_time(xz, t + STEP_S, body.fps) - xz, axis=-1)
        low = (h0 < low_h) & (h1 < low_h) & counted[:, None]
        contact |= low.any(axis=1)
        skating |= (low & (moved > far)).any(axis=1)
        step[:, k] = np.where(low, moved, 0.0).max(axis=1) / body.height
    m = int(counted.sum())
    return Skate(float(skating.sum()) / m if m else 0.0, counted, contact, skating, step)
