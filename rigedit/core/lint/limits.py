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
        joints = motion.chains.get(chain)
        if not joints:
            continue
        for jname, limit in per_joint.items():
            j = motion.skeleton.index(jname)
            k = joints.index(j)
            if k == 0 or k + 1 >= len(joints):
                continue  # a limit needs a bone in and a bone out
            prev, nxt = joints[k - 1], joints[k + 1]
            p, r = motion.pos, motion.quat
            err = np.zeros(motion.n_frames)
            for f in range(motion.first, motion.n_frames):
                err[f] = limit_error_deg(limit, p[f, j] - p[f, prev], r[f, prev], p[f, nxt] - p[f, j])
            for a, b in merge_close(runs(err > LIMIT_TOLERANCE_DEG), 2):
                worst = float(err[a : b + 1].max())
                out.append(Finding("limit", chain, names[j], a, b, "error" if worst > SEVERE_DEG else "warning",
                                   f"{worst:.1f} degrees past its {type(limit).__name__.replace('Limit', '').lower()} limit"))
    return out
