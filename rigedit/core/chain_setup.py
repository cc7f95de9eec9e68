"""What packing a chain for the compiled frame needs that stays put from frame to frame
(ChainSetup): worked out when the rig's tables are made (frame_pack.FrameTables) and when a
saved solution is put back (rig_pose.py), from the chain's solver, limits and offsets.
"""
from __future__ import annotations

import math
from functools import lru_cache
from math import sqrt

from . import scalar_quat as sq
from .ik.chain_frames import plan_limits
from .ik.limits import ConeLimit
from .ik.two_bone import CONE, HINGE


class ChainSetup:
    """A chain's length (summed from its joints' offsets past the root, for the reach clamp),
    its loop solver's limit plan (chain_frames.plan_limits; None without limits), whether
    its root joint carries a limit, and a two-bone chain's middle-joint limit in radians."""

    __slots__ = ("total", "plan", "root_limited", "mid_limit")

    def __init__(self, ch, offsets: list) -> None:
        self.total = sum(sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]) for o in offsets[1:])
        self.plan, self.mid_limit = None, None
        self.root_limited = ch.joints[0] in ch.limits
        if ch.kind.middle_limit_only:
            limit = ch.limits.get(ch.joints[1])
            self.mid_limit = None if limit is None else _limit_params(limit)
        elif ch.limits:
            self.plan = _limit_plan(ch.limit_key, ch.joints)


@lru_cache(maxsize=512)
def _limit_plan(limits: tuple, joints: tuple):
    """A chain's limits (Chain.limit_key: sorted (joint, Limit) pairs) planned once per value."""
    index = {name: k for k, name in enumerate(joints)}
    return plan_limits({index[name]: lim for name, lim in limits}, len(joints))


@lru_cache(maxsize=256)
def _limit_params(limit):
    """The middle joint's limit as two_bone_kernel takes it, (kind, unit axis, lo, hi):
    (CONE, -, max rad, -) or (HINGE, axis, min rad, max rad); limits are frozen values."""
    if isinstance(limit, ConeLimit):
        return (CONE, (0.0, 0.0, 0.0), math.radians(limit.max_deg), 0.0)
    return (HINGE, sq.unit_or(tuple(map(float, limit.axis)), None), math.radians(limit.min_deg), math.radians(limit.max_deg))
