"""Jitter: the joints' jerk (the third derivative of their world positions), in figure heights
per second cubed, and the frames where it spikes.

Jerk is taken at the file's own frame rate, by the four-frame difference
(p[f+2] - 3 p[f+1] + 3 p[f] - p[f-1]) * fps^3, and given to frame f. A 120 fps file of the
same motion gets a larger jerk from the same noise, so compare jitter across files of one
rate. A frame spikes when its largest joint jerk is over SPIKE_MADS robust standard
deviations (1.4826 median absolute deviations) above the clip's median and over
SPIKE_FLOOR times that median (and over ABS_FLOOR): one glitch a walk's stride never makes. The reference frame
(lint's) is left out.

The mean is over the joints every skeleton family has (hips, spine, legs to the ball of the
foot, arms to the wrist: `body_joints`), so a clip and its retarget onto a character with
fingers compare like with like: forty finger joints carried by the hands would otherwise
weigh the hands' jerk in forty times over (a kick onto Xbot read 109 -> 176 h/s^3 with every
limb joint's own jerk within 2% of the source's). Spikes are looked for over every joint.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .body import Body

SPIKE_MADS = 12.0
SPIKE_FLOOR = 4.0
ABS_FLOOR = 1.0  # heights per s^3: a made-up clip's near-zero jerk (real takes' means are 100-1500)


@dataclass
class Jitter:
    mean_jerk: float  # heights per s^3, over the body's joints (body_joints) and frames of motion
    per_frame: np.ndarray  # (frames,) the largest joint jerk on each frame, heights per s^3 (0 where not defined)
    spikes: list[int]  # frames
    threshold: float  # heights per s^3
    spike_joints: list[int] = field(default_factory=list)  # per spike, the joint whose jerk it is


def jitter(body: Body) -> Jitter:
    p = body.moving
    n = body.n_frames
    per_frame = np.zeros(n)
    if len(p) < 4:
        return Jitter(0.0, per_frame, [], 0.0)
    jerk = (p[3:] - 3.0 * p[2:-1] + 3.0 * p[1:-2] - p[:-3]) * body.fps**3
    size = np.linalg.norm(jerk, axis=-1) / body.height  # (frames - 3, joints)
    worst = size.max(axis=1)
    start = body.first + 1  # the difference above starting at p[f-1] is given to frame f
    per_frame[start : start + len(worst)] = worst
    median = float(np.median(worst))
    mad = 1.4826 * float(np.median(np.abs(worst - median)))
    threshold = max(median + SPIKE_MADS * mad, SPIKE_FLOOR * median, ABS_FLOOR)
    over = np.nonzero(worst > threshold)[0]
    spikes = [int(start + i) for i in over]
    return Jitter(float(size[:, body_joints(body)].mean()), per_frame, spikes, threshold,
                  [int(size[i].argmax()) for i in over])


def body_joints(body: Body) -> list[int]:
    """The hips, spine, legs (with the balls of the feet) and arms; every joint where the
    figure's body was not found."""
    parts = [body.spine, *body.legs.values(), *body.arms.values(), *body.balls.values()]
    joints = {j for part in parts for j in part} | ({body.hips} if body.hips is not None else set())
    return sorted(joints) or list(range(body.pos.shape[1]))
