"""How far each joint's turn from one frame to the next is from what its own recent motion
says it should be: the measure rotation jumps and turned-away spans are found by (jumps.py).

A joint's turn over step f (frame f to f+1) is t_f degrees. Smooth motion changes it a
little from step to step, however fast it turns: a knee opening 114 -> 160 degrees at 5, 10,
12, 10, 6, 3 degrees a frame turns at most 5 degrees a frame more than a step beside it. A
fault is a spike (in acceleration, not a large steady speed): a joint snapping 40 degrees
between two frames, or turning 180 degrees away for a frame and back, turns far more in that
step than in the step before it or the one after.

So a step's *surprise* is t_f - min(t_{f-1}, t_{f+1}) (one neighbour at the clip's ends): by
how much it turns more than the quieter of its neighbours. (Turn angles, not rotation vectors:
a half turn away and back are both about 180 degrees the same way round, and their vectors'
difference says nothing.) Its yardstick is the joint's own recent acceleration: the median of
|t_{g+1} - t_g| over +-LOCAL_S around it (a median, so the few steps of a fault do not raise
their own yardstick), times SURPRISE_FACTOR, and never under MIN_JUMP_DEG: a still joint's noise is no yardstick,
and a foot or toe meeting the ground stops short (in the shared takes a step turns at most 26
degrees more than a step beside it: Bandai's kick, a foot landing; CMU 14, LAFAN1 16). A step
is a jump when its surprise passes the yardstick and the step itself turns at least
MIN_STEP_DEG. Its severity is how far past: SEVERE times the yardstick or more is an error (a
thigh turned 180 degrees and back: 6 times), less a warning (pybvh's test take snaps an elbow
straight, 118 -> 28 degrees in two frames with a 103-degree twist: 2.1 times).
"""
from __future__ import annotations

import numpy as np

from ..transforms import quat_angle, quat_conj, quat_mul

LOCAL_S = 0.25  # the recent motion: this long either side of a step
SURPRISE_FACTOR = 6.0
MIN_JUMP_DEG = 30.0
MIN_STEP_DEG = 10.0
SEVERE = 3.0  # a jump this many times its yardstick is an error, a smaller one a warning


def turn_angles(rotations: np.ndarray) -> np.ndarray:
    """(frames - 1, joints): degrees each joint turns from one frame to the next."""
    return np.degrees(quat_angle(quat_mul(quat_conj(rotations[:-1]), rotations[1:])))


def surprise(t: np.ndarray) -> np.ndarray:
    """(steps, joints): by how much each step turns more than the quieter step beside it."""
    if len(t) < 2:
        return np.zeros(t.shape)
    quiet = np.empty_like(t)
    quiet[1:-1] = np.minimum(t[:-2], t[2:])
    quiet[0], quiet[-1] = t[1], t[-2]
    return t - quiet


def yardstick(t: np.ndarray, fps: float) -> np.ndarray:
    """(steps, joints): SURPRISE_FACTOR times the recent median change of turn, at least
    MIN_JUMP_DEG."""
    steps, joints = t.shape[:2]
    if steps < 2:
        return np.full((steps, joints), np.inf)
    accel = np.abs(np.diff(t, axis=0))  # (steps - 1, joints)
    half = max(3, int(round(LOCAL_S * fps)))
    local = np.empty((steps, joints))
    for j in range(joints):  # one joint at a time: a window's median copies it (steps x 2h+1)
        pad = np.pad(accel[:, j], half, mode="edge")
        local[:-1, j] = np.median(np.lib.stride_tricks.sliding_window_view(pad, 2 * half + 1), axis=-1)
    local[-1] = local[-2]  # one per step
    return np.maximum(SURPRISE_FACTOR * local, MIN_JUMP_DEG)


def jumps(rotations: np.ndarray, fps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(jumped (steps, joints) bool, surprise, yardstick)."""
    t = turn_angles(rotations)
    s, y = surprise(t), yardstick(t, fps)
    return (s > y) & (t >= MIN_STEP_DEG), s, y
