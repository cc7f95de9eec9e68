"""Joint limits: how far and how long the clip's joints go past the rig's limits (a preset's,
`rigedit report --rig`), measured as lint measures them (lint/limits.py: the bone out against
the bone in, past by more than its LIMIT_TOLERANCE_DEG of round-off).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from ..lint.limits import LIMIT_TOLERANCE_DEG, limit_error_track
from ..lint.motion import Motion


@dataclass
class JointPast:
    chain: str
    joint: str
    max_deg: float  # the furthest past its limit
    seconds: float  # time past it


@dataclass
class Limits:
    max_deg: float  # the furthest any joint goes past its limit
    seconds: float  # time with some joint past its limit
    share: float  # of the frames of motion
    per_frame: np.ndarray  # (frames,) the furthest past on each frame, degrees
    joints: list[JointPast] = field(default_factory=list)  # those that go past, worst first


def joint_limits(motion: Motion, limits: Mapping[str, Mapping[str, object]]) -> Limits:
    n = motion.n_frames
    per_frame = np.zeros(n)
    joints = []
    for chain, per_joint in limits.items():
        for name, limit in per_joint.items():
            err = limit_error_track(motion, chain, motion.skeleton.index(name), limit)
            if err is None:
                continue
            past = err > LIMIT_TOLERANCE_DEG
            if past.any():
                joints.append(JointPast(chain, name, float(err.max()), float(past.sum()) / motion.fps))
            per_frame = np.maximum(per_frame, np.where(past, err, 0.0))
    joints.sort(key=lambda j: -j.max_deg)
    frames = int((per_frame > 0).sum())
    moving = max(n - motion.first, 1)
    return Limits(float(per_frame.max(initial=0.0)), frames / motion.fps, frames / moving, per_frame, joints)
