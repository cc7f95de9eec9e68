"""A rig's animated pose under the IK for its clip, time and ground: what every solve starts
from (rig_eval.py, full body, IK/FK matching, follow-clip goals), made once per clip, time,
ground and grounded legs' settings and kept in the rig's RigState (`anim`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rig_ground import ground_frame


@dataclass(frozen=True, slots=True, eq=False)  # compared by its key (it holds an array)
class AnimatedFrame:
    """The animated pose under the IK for one clip, time and ground (`key`), as float
    tuples (rotations, translations) and the translations array, with where the ground puts
    each ground-feet chain's target (`grounded`) and its tip's world rotation (`soles`)."""

    key: tuple
    rot: list
    trans: list
    translations: np.ndarray
    grounded: dict
    soles: dict



def animated(rig) -> AnimatedFrame:
    """The animated pose with the body on the ground, kept while the clip, time, ground and
    the grounded legs' settings stay the same (the same object while it is the same)."""
    legs = []
    if rig.ground is not None:
        legs = [
            (name, rig.plans[name].idx, ch.reach_clamp, ch.weight)  # the body follows the legs' weights
            for name, ch in rig.chains_by_name.items()
            if ch.ground_feet and ch.kind.reaches
        ]
    key = rig.animation_key
    if legs:  # (an empty generator's tuple is a third of this function's time, every frame)
        key += tuple((name, clamp, w) for name, _, clamp, w in legs)
    cache = rig.solve_state
    got = cache.anim
    if got is None or got.key != key:
        anim = rig.animated_pose()
        grounded: dict = {}
        soles: dict = {}
        if legs:
            shift, grounded, soles = ground_frame(rig.skeleton, anim, rig.ground, legs)
            for j, p in enumerate(rig.parents):
                if p < 0:
                    anim.translations[j, 1] += shift  # the body rides the ground, low enough for every leg
        rot = [tuple(q) for q in anim.rotations.tolist()]
        trans = [tuple(t) for t in anim.translations.tolist()]
        got = cache.anim = AnimatedFrame(key, rot, trans, anim.translations, grounded, soles)
    return got
