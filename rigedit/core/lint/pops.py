"""Knee pops: a limb snapping to or from full extension.

The bend angle at the mid joint (pole_flip.bend_angle) of a real limb moves smoothly, even
as it straightens at heel strike. A pop is a few frames where it leaves that smooth course:
the angle minus its running median over POP_WINDOW_S (at least 5 frames, so a 2-frame snap
is outvoted) is more than POP_DEG, in frames where the limb is within NEAR_STRAIGHT_DEG of
straight or the running median is (snapped straight, or snapped bent out of straight).
And the snap must be a spike in angular speed: the change into or out of a popped frame more
than SPIKE_FACTOR times the limb's own 90th-percentile frame-to-frame change (a ratio, so
the same at any frame rate and for any gait). A fast gait sampled coarsely straightens in a
sharp V every stride (the Fox's gallop at 25 fps: 62, 35, 6, 12, 30 degrees) that a running
median reads as off-course, but its speed there is that of the rest of its stride (1.7 times
the 90th percentile at most); a knee snapped straight for 2 frames of a walk is 3.4 (Bandai,
30 fps) to 11 (CMU, 120 fps) times it.
"""
from __future__ import annotations

import numpy as np

from .findings import Finding, merge_close, runs
from .motion import Motion
from .pole_flip import bend_angle

POP_WINDOW_S = 0.1
POP_DEG = 8.0
NEAR_STRAIGHT_DEG = 10.0
SEVERE_DEG = 20.0
SPIKE_FACTOR = 2.5


def running_median(x: np.ndarray, half: int) -> np.ndarray:
    pad = np.pad(x, half, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(pad, 2 * half + 1)
    return np.median(windows, axis=-1)


def median_half(fps: float) -> int:
    return max(2, int(round(0.5 * POP_WINDOW_S * fps)))


def knee_pops(motion: Motion) -> list[Finding]:
    out = []
    half = median_half(motion.fps)
    s = motion.first
    for limb in motion.limbs:
        angle = bend_angle(motion, limb)
        smooth = np.concatenate([angle[:s], running_median(angle[s:], half)])
        residual = angle - smooth
        near = np.minimum(angle, smooth) < NEAR_STRAIGHT_DEG
        popped = (np.abs(residual) > POP_DEG) & near
        popped[:s] = False
        change = np.abs(np.diff(angle[s:]))
        if len(change) == 0:
            continue
        typical = float(np.percentile(change, 90))
        step = np.zeros(len(angle))  # the larger change into or out of each frame
        step[s:] = np.maximum(np.r_[0.0, change], np.r_[change, 0.0])
        for a, b in merge_close(runs(popped), 2):
            if step[a : b + 1].max() <= SPIKE_FACTOR * typical:
                continue
            r = float(np.abs(residual[a : b + 1]).max())
            lo, hi = max(a - 1, s), min(b + 1, len(angle) - 1)
            rate = float(np.abs(np.diff(angle[lo : hi + 1])).max() * motion.fps) if hi > lo else 0.0
            straight = "snaps straight" if residual[a : b + 1].min() < -POP_DEG else "snaps out of straight"
            out.append(Finding(
                "knee_pop", limb.chain, motion.name(limb.mid), a, b, "error" if r > SEVERE_DEG else "warning",
                f"the {motion.name(limb.mid)} {straight}: {r:.0f} degrees off its smooth course "
                f"(bend {float(angle[a:b + 1].min()):.0f}-{float(angle[a:b + 1].max()):.0f} degrees, up to {rate:.0f} degrees/s, "
                f"{float(step[a:b + 1].max()) / max(typical, 1e-9):.1f} times its usual change)",
            ))
    return out
