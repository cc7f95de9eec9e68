"""Joints past the rig's limits (a preset's chains' limits, when the lint is given a rig).

A limit constrains the bone leaving its joint relative to the bone entering it
(core/ik/limits.py); the clip's angle past it is limit_error_deg on each frame's world
positions and rotations. Frames past by more than LIMIT_TOLERANCE_DEG (solvers and files
round) make runs; each run is a finding.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..ik.limits import limit_error_deg
from .findings import Finding, merge_close, runs
from .motion import Motion

LIMIT_TOLERANCE_DEG = 1.0
SEVERE_DEG = 10.0


def limit_findings(motion: Motion, limits: Mapping[str, Mapping[str, object]]) -> list[Finding]:
    out = []
    names = motion.skeleton.names
    for chain, per_joint in limits.items():
        for jname, limit in per_joint.items():
            j = motion.skeleton.index(jname)
            err = limit_error_track(motion, chain, j, limit)
            if err is None:
                continue
            for a, b in merge_close(runs(err > LIMIT_TOLERANCE_DEG), 2):
                worst = float(err[a : b + 1].max())
                out.append(Finding("limit", chain, names[j], a, b, "error" if worst > SEVERE_DEG else "warning",
                                   f"{worst:.1f} degrees past its {type(limit).__name__.replace('Limit', '').lower()} limit"))
    return out


def limit_error_track(motion: Motion, chain: str, j: int, limit) -> np.ndarray | None:
    """(frames,) degrees joint `j` of `chain` is past `limit` on each frame (0 before
    motion.first), or None when the chain does not hold it with a bone in and a bone out."""
    joints = motion.chains.get(chain)
    if not joints or j not in joints:
        return None
    k = joints.index(j)
    # The bone in is the chain's previous bone, or for the chain's root the bone from
    # its nearest ancestor not on top of it (as the two-bone solver measures it); the
    # frame a hinge axis is in is the bone in's, its start joint's world rotation.
    prev = joints[k - 1] if k > 0 else _ancestor_apart(motion, j)
    if prev is None or k + 1 >= len(joints):
        return None  # a limit needs a bone in and a bone out
    nxt = joints[k + 1]
    frame = prev if k > 0 else int(motion.skeleton.parents[j])
    p, r = motion.pos, motion.quat
    err = np.zeros(motion.n_frames)
    for f in range(motion.first, motion.n_frames):
        if np.linalg.norm(p[f, j] - p[f, prev]) > 0.0:
            err[f] = limit_error_deg(limit, p[f, j] - p[f, prev], r[f, frame], p[f, nxt] - p[f, j])
    return err


def _ancestor_apart(motion: Motion, joint: int) -> int | None:
    parents = motion.skeleton.parents
    p = int(parents[joint])
    rest = motion.pos[motion.first]
    while p >= 0:
        if np.linalg.norm(rest[joint] - rest[p]) > 0.0:
            return p
        p = int(parents[p])
    return None
