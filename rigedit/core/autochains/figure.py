"""A skeleton in one pose as a figure: world positions, bone lengths, children, and what
hangs below each joint (how low it reaches, how long its longest branch is).

Everything the proposer decides is measured here, in fractions of the figure's size, so
the same rules hold in metres, inches or a file's own units. Up is +Y: the readers bring
every file in upright (docs/ARCHITECTURE.md, Contracts: metres, Y up).
"""
from __future__ import annotations

import numpy as np

from ..skeleton import Pose, Skeleton
from .names import hints, splits_bone

UP = np.array([0.0, 1.0, 0.0])
# Bones shorter than this fraction of the figure's size are joints on top of each other
# (BVH files have many): they neither count as a bone nor end one.
ZERO_BONE = 1e-6


class Figure:
    def __init__(self, skeleton: Skeleton, pose: Pose) -> None:
        self.skeleton = skeleton
        self.names = list(skeleton.names)
        self.pos = skeleton.fk_matrices(pose)[0]
        self.parents = [int(p) for p in skeleton.parents]
        n = len(self.parents)
        self.children: list[list[int]] = [[] for _ in range(n)]
        for j, p in enumerate(self.parents):
            if p >= 0:
                self.children[p].append(j)
        self.hints = [hints(name) for name in self.names]
        # Joints part way down a bone, turning it only about itself: twist and roll joints, and
        # the numbered parts of a split bone (names.splits_bone).
        self.midbone = [self.hints[j].twist or (p >= 0 and splits_bone(self.names[p], self.names[j]))
                        for j, p in enumerate(self.parents)]
        par = np.maximum(np.array(self.parents, dtype=np.int64), 0)
        lengths = np.linalg.norm(self.pos - self.pos[par], axis=1) if n else np.zeros(0)
        self.bone = np.where(np.array(self.parents) >= 0, lengths, 0.0)
        extent = float(np.ptp(self.pos, axis=0).max()) if n > 1 else 0.0
        self.size = extent if extent > 0.0 else 1.0
        self.tiny = ZERO_BONE * self.size
        self.height = self.pos @ UP
        self.ground = float(self.height.min()) if n else 0.0
        tall = float(np.ptp(self.height)) if n > 1 else 0.0
        self.tall = tall if tall > self.tiny else self.size
        # Bottom-up in one pass: a skeleton lists parents before children.
        self.low = self.height.copy()  # the lowest point at or below each joint
        self.reach = np.zeros(n)  # the longest run of bones from each joint down to a leaf
        for j in range(n - 1, -1, -1):
            p = self.parents[j]
            if p >= 0:
                self.low[p] = min(self.low[p], self.low[j])
                self.reach[p] = max(self.reach[p], self.reach[j] + self.bone[j])
        # The longest run below any joint but a root: a root's first bone may be the motion's
        # path (Bandai's joint_Root, left at the origin while the Hips walk away).
        inner = [self.reach[j] for j in range(n) if self.parents[j] >= 0]
        self.span = float(max(inner)) if inner else float(self.reach.max()) if n else 0.0
        self.depth = [0] * n
        for j, p in enumerate(self.parents):
            if p >= 0:
                self.depth[j] = self.depth[p] + 1

    def __len__(self) -> int:
        return len(self.parents)

    def ancestors(self, j: int) -> list[int]:
        """j, its parent, ... up to the root."""
        out = [j]
        while self.parents[j] >= 0:
            j = self.parents[j]
            out.append(j)
        return out

    def subtree(self, j: int) -> list[int]:
        out, stack = [], [j]
        while stack:
            k = stack.pop()
            out.append(k)
            stack.extend(self.children[k])
        return out

    def path_down(self, top: int, bottom: int) -> list[int]:
        """top .. bottom, parent to child (bottom must be below top)."""
        path = []
        j = bottom
        while j != top:
            path.append(j)
            j = self.parents[j]
        path.append(top)
        return path[::-1]

    def lca(self, a: int, b: int) -> int:
        above = set(self.ancestors(a))
        return next((j for j in self.ancestors(b) if j in above), -1)

    def main_line(self, start: int) -> list[int]:
        """start and, from each joint, the child whose branch runs longest, down to a leaf.

        Children within 5 % of the longest are a tie (RobotExpressive has three palms on one
        spot): the first listed wins, as the file's author ordered them.
        """
        line = [start]
        while self.children[line[-1]]:
            kids = self.children[line[-1]]
            runs = [self.reach[c] + self.bone[c] for c in kids]
            best = max(runs)
            line.append(next(c for c, r in zip(kids, runs) if r >= 0.95 * best))
        return line

    def trimmed(self, chain: list[int]) -> list[int]:
        """The chain without the zero-length bones at its end (a BVH End Site on its tip)."""
        while len(chain) > 1 and self.bone[chain[-1]] <= self.tiny:
            chain = chain[:-1]
        return chain

    def horizontal(self, v: np.ndarray) -> np.ndarray:
        return v - (v @ UP) * UP
