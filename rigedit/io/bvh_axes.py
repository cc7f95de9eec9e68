"""Turning a file's up axis to rigedit's +Y: which turn for which axis, and applying it.

A file says nothing about its axes; readers guess (bvh_units.guess_up_axis) or are told
(`--up`). Each of the six axis directions has one fixed turn taking it to +Y, the smallest
one, so the figure's facing changes as little as possible: +Z up is -90 degrees about X,
(x, y, z) -> (x, z, -y), the turn Blender's exporters use; +X up is +90 degrees about Z; -Y
up is a half turn about X.
"""
from __future__ import annotations

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_conj, quat_mul, quat_rotate

_H = np.sqrt(0.5)
# Quaternions (x, y, z, w) taking each file up axis to +Y.
UP_TO_Y = {
    "+y": np.array([0.0, 0.0, 0.0, 1.0]),
    "-y": np.array([1.0, 0.0, 0.0, 0.0]),
    "+z": np.array([-_H, 0.0, 0.0, _H]),
    "-z": np.array([_H, 0.0, 0.0, _H]),
    "+x": np.array([0.0, 0.0, _H, _H]),
    "-x": np.array([0.0, 0.0, -_H, _H]),
}
# What the `up` option takes: an axis (a missing sign means +), "auto" to use the guess.
UP_CHOICES = ("x", "y", "z", "-x", "-y", "-z", "auto")


def parse_up(value: str | None) -> str:
    """'auto', or a signed axis such as '+z' / '-x'. Raises ValueError naming the choices."""
    if value is None:
        return "auto"
    key = str(value).strip().lower()
    if key == "auto":
        return "auto"
    if key == "keep":  # an older spelling: the file's axes as they are, i.e. +Y up
        return "+y"
    if key in ("x", "y", "z"):
        key = "+" + key
    if key not in UP_TO_Y:
        raise ValueError(f"up axis must be one of {', '.join(UP_CHOICES)}, got {value!r}")
    return key


def turned(skeleton: Skeleton, clip: Clip | None, q: np.ndarray) -> tuple[Skeleton, Clip | None]:
    """The same motion seen in axes turned by q: every world position p becomes q * p.

    Every local frame is turned alike (offsets and translations rotated, rotations
    conjugated), so world transforms become Q W Q^-1: forward kinematics of the result is
    the original's turned by q, frame by frame, and identity rest rotations stay identity.
    """
    qc = quat_conj(q)

    def conj(r):
        return quat_mul(quat_mul(q, r), qc)

    sk = Skeleton(skeleton.names, skeleton.parents, quat_rotate(q, skeleton.offsets), conj(skeleton.rest_rotations))
    if clip is None:
        return sk, None
    return sk, Clip(conj(clip.rotations), quat_rotate(q, clip.translations), clip.frame_time)
