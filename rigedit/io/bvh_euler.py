"""Euler angles for BVH rotation channels that other tools can interpolate and edit.

A rotation has many Euler angle sets in a given order: each angle plus any multiple of 360
degrees, and for three distinct axes (every BVH order) the second set (a + 180, 180 - b,
c + 180). scipy gives one per frame, with the middle angle in [-90, 90]; a limb turning past
that jumps by 180 or 360 degrees between frames, and a curve editor or a reader that
interpolates angles sees a spin that is not in the motion. Unwrapping each angle alone cannot
fix the branch jump, so each frame here takes whichever of the two sets, each angle moved by
whole turns, lies nearest a reference: the source file's angles of that frame where there
are some (so a file written back keeps its own angles, and an edited frame stays within 180
degrees of them), else the angles just written for the frame before.
"""
from __future__ import annotations

import warnings

import numpy as np

from rigedit.core.transforms import quat_to_euler


def euler_channels(order: str, rotations: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    """Angles (frames, 3) in degrees, in `order` (e.g. "ZXY", intrinsic as BVH lists them),
    for unit quaternions (frames, 4); `reference` (frames, 3) in the same order, or None."""
    with warnings.catch_warnings():
        # Gimbal lock: scipy picks one of the equivalent angle sets, which is still exact.
        warnings.simplefilter("ignore", UserWarning)
        first = quat_to_euler(order, rotations)
    second = first + np.array([180.0, 0.0, 180.0])
    second[:, 1] = 180.0 - first[:, 1]
    if reference is not None:
        reference = np.asarray(reference, dtype=np.float64)
        return _nearest(first, second, reference)
    # Each frame's reference is the frame before as written: a recurrence, one frame at a
    # time, in Python floats (numpy calls on three numbers cost some 20 times the arithmetic;
    # this was most of a bake's time).
    rows = []
    previous = first[0].tolist() if len(first) else None
    for a, b in zip(first.tolist(), second.tolist()):
        previous = _nearest_row(a, b, previous)
        rows.append(previous)
    return np.array(rows, dtype=np.float64).reshape(first.shape)


def _nearest(first: np.ndarray, second: np.ndarray, reference: np.ndarray) -> np.ndarray:
    a = _wrapped_to(first, reference)
    b = _wrapped_to(second, reference)
    da = np.sum((a - reference) ** 2, axis=-1)
    db = np.sum((b - reference) ** 2, axis=-1)
    return np.where((db < da)[:, None], b, a)


def _nearest_row(first: list, second: list, reference: list) -> list:
    """_nearest of one frame."""
    a = [x + 360.0 * round((r - x) / 360.0) for x, r in zip(first, reference)]
    b = [x + 360.0 * round((r - x) / 360.0) for x, r in zip(second, reference)]
    da = sum((x - r) ** 2 for x, r in zip(a, reference))
    db = sum((x - r) ** 2 for x, r in zip(b, reference))
    return b if db < da else a


def _wrapped_to(angles: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Each angle moved by whole turns to within 180 degrees of the reference's."""
    return angles + 360.0 * np.round((reference - angles) / 360.0)
