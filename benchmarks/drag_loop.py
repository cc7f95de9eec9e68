"""bench_rig's "drag all" motion, for every benchmark that times Rig.solve while goals move:
each chain's target on a loop of RADIUS_M around a point INWARD_M in from its tip toward its
root (reachable, near full reach: where solvers work hardest), a full turn every
PERIOD_FRAMES frames, the chains a phase apart so they never move in step."""
from __future__ import annotations

import math

import numpy as np

INWARD_M = 0.04
RADIUS_M = 0.05
PERIOD_FRAMES = 120


class DragLoop:
    def __init__(self, rig) -> None:
        self.rig = rig
        self.names = rig.chain_names
        self.home = {}
        for n in self.names:
            joints = rig.chain(n).joints
            root, tip = rig.world_position(joints[0]), rig.world_position(joints[-1])
            self.home[n] = tip + INWARD_M * (root - tip) / np.linalg.norm(root - tip)
        self.phase = {n: 2.0 * math.pi * k / len(self.names) for k, n in enumerate(self.names)}

    def move(self, frame: int, names=None) -> None:
        """Put the targets of `names` (default: every chain) where they are at `frame`."""
        for n in self.names if names is None else names:
            p = self.phase[n] + 2.0 * math.pi * frame / PERIOD_FRAMES
            self.rig.chain(n).target = self.home[n] + RADIUS_M * np.array([math.cos(p), 0.5 * math.sin(2 * p), math.sin(p)])
