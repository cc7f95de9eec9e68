"""Joint hierarchy, poses and forward kinematics.

A skeleton is stored as flat arrays in parent-before-child order. Forward kinematics uses
pointer jumping: every joint's transform is composed with its current ancestor's, then the
ancestor link skips ahead, so a tree of depth d needs ceil(log2(d + 1)) vectorised steps
instead of one Python step per joint (numpy's per-call cost, ~1 us, is what a 60-joint
skeleton pays for). A leading frame axis makes the same steps bake a whole clip.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .transforms import (
    quat_between,
    quat_conj,
    quat_from_matrix,
    quat_mul,
    quat_normalize,
    quat_rotate,
    quat_to_matrix,
)


@dataclass
class Pose:
    """Local joint transforms: rotations (..., n, 4) and translations (..., n, 3).

    Translations are the joints' local offsets. They normally equal the skeleton's rest
    offsets; the root's carries the character's motion, and BVH joints with position
    channels carry theirs (those replace the offset, they are not added to it).
    """

    rotations: np.ndarray
    translations: np.ndarray

    def copy(self) -> "Pose":
        return Pose(self.rotations.copy(), self.translations.copy())

    @property
    def root_translation(self) -> np.ndarray:
        return self.translations[..., 0, :]


@dataclass
class Skeleton:
    names: list[str]
    parents: np.ndarray  # int, -1 for a root; parents[i] < i
    offsets: np.ndarray  # (n, 3) rest local translation, metres
    rest_rotations: np.ndarray  # (n, 4) rest local rotation
    _index: dict[str, int] = field(init=False, repr=False)
    _jumps: list[tuple[np.ndarray, np.ndarray]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.names = list(self.names)
        self.parents = np.asarray(self.parents, dtype=np.int64)
        self.offsets = np.asarray(self.offsets, dtype=np.float64).reshape(-1, 3)
        self.rest_rotations = quat_normalize(np.asarray(self.rest_rotations, dtype=np.float64).reshape(-1, 4))
        n = len(self.names)
        if not (len(self.parents) == len(self.offsets) == len(self.rest_rotations) == n):
            raise ValueError("skeleton arrays disagree in length")
        if len(set(self.names)) != n:
            raise ValueError("skeleton joint names must be unique")
        for i, p in enumerate(self.parents):
            if not (p == -1 or 0 <= p < i):
                raise ValueError(f"joint {self.names[i]!r}: parent must come before it (got index {p})")
        if not (np.all(np.isfinite(self.offsets)) and np.all(np.isfinite(self.rest_rotations))):
            raise ValueError("skeleton offsets and rotations must be finite")
        self._index = {name: i for i, name in enumerate(self.names)}
        self._jumps = _pointer_jumps(self.parents)

    @classmethod
    def from_joints(cls, joints: Sequence[tuple[str, str | None, Sequence[float]]], rest_rotations=None) -> "Skeleton":
        """Build from (name, parent name or None, offset) in any order that lists parents first."""
        names = [j[0] for j in joints]
        index = {n: i for i, n in enumerate(names)}
        parents = [-1 if j[1] is None else index[j[1]] for j in joints]
        offsets = [j[2] for j in joints]
        rots = np.tile([0.0, 0.0, 0.0, 1.0], (len(names), 1)) if rest_rotations is None else rest_rotations
        return cls(names, parents, offsets, rots)

    def __len__(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no joint named {name!r}") from None

    def children(self, i: int) -> list[int]:
        return [int(c) for c in np.nonzero(self.parents == i)[0]]

    def rest_pose(self) -> Pose:
        return Pose(self.rest_rotations.copy(), self.offsets.copy())

    def fk(self, pose: Pose) -> tuple[np.ndarray, np.ndarray]:
        """World positions (..., n, 3) and world rotations (..., n, 4) of every joint."""
        pos, mats = self.fk_matrices(pose)
        return pos, quat_from_matrix(mats)

    def fk_matrices(self, pose: Pose) -> tuple[np.ndarray, np.ndarray]:
        """World positions (..., n, 3) and world rotation matrices (..., n, 3, 3).

        Matrices, not quaternions, because a batched matmul is the cheapest composition
        numpy offers; callers that need quaternions convert once at the end.
        """
        m = self.fk_homogeneous(pose)
        return m[..., :3, 3], m[..., :3, :3]

    def fk_homogeneous(self, pose: Pose) -> np.ndarray:
        """World transforms (..., n, 4, 4)."""
        rot = np.asarray(pose.rotations, dtype=np.float64)
        m = np.zeros(rot.shape[:-1] + (4, 4))
        m[..., :3, :3] = quat_to_matrix(rot)
        m[..., :3, 3] = pose.translations
        m[..., 3, 3] = 1.0
        for upd, src in self._jumps:
            # The right-hand side is gathered before the write, so every joint composes
            # with its ancestor's transform from the previous step, as pointer jumping needs.
            m[..., upd, :, :] = m[..., src, :, :] @ m[..., upd, :, :]
        return m

    def world_to_local_rotation(self, pose: Pose, joint: int, world_rotation: np.ndarray) -> np.ndarray:
        """The local rotation that gives `joint` this world rotation under its current parent."""
        p = self.parents[joint]
        if p < 0:
            return quat_normalize(world_rotation)
        _, world = self.fk(pose)
        return quat_normalize(quat_mul(quat_conj(world[..., p, :]), world_rotation))

    def local_to_world_point(self, pose: Pose, joint: int, point: np.ndarray) -> np.ndarray:
        """A point given in `joint`'s frame, in world space."""
        pos, rot = self.fk(pose)
        return pos[..., joint, :] + quat_rotate(rot[..., joint, :], point)

    def world_to_local_point(self, pose: Pose, joint: int, point: np.ndarray) -> np.ndarray:
        pos, rot = self.fk(pose)
        return quat_rotate(quat_conj(rot[..., joint, :]), np.asarray(point, dtype=np.float64) - pos[..., joint, :])

    def chain_indices(self, names: Sequence[str]) -> list[int]:
        """Joint indices of a connected chain, root to tip; ValueError if not connected."""
        idx = [self.index(n) for n in names]
        for a, b in zip(idx, idx[1:]):
            if self.parents[b] != a:
                raise ValueError(f"{self.names[b]!r} is not a child of {self.names[a]!r}")
        return idx

    def height(self) -> float:
        pos, _ = self.fk_matrices(self.rest_pose())
        return float(np.ptp(pos[:, 1])) if len(pos) else 0.0


def _pointer_jumps(parents: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per step: the joints still short of the root, and the ancestor each composes with."""
    anc = parents.copy()
    steps = []
    while np.any(anc >= 0):
        upd = np.nonzero(anc >= 0)[0]
        src = anc[upd]
        steps.append((upd, src))
        anc = anc.copy()
        anc[upd] = anc[src]
    return steps


def write_chain_positions(skeleton: Skeleton, pose: Pose, chain: Sequence[int], positions: np.ndarray) -> Pose:
    """Turn each bone of a chain toward solved positions and return the new pose.

    Each bone is turned by the shortest arc from its current world direction to the solved
    one, so the twist it had is kept (an IK solver only knows positions and cannot say
    anything about twist). The root joint's translation is left alone: solvers never move
    the chain root. FK of the result reproduces `positions` to round-off.
    """
    positions = np.asarray(positions, dtype=np.float64)
    out = pose.copy()
    pos, world = skeleton.fk(out)
    for k in range(len(chain) - 1):
        j, child = chain[k], chain[k + 1]
        cur_dir = quat_rotate(world[j], out.translations[child])
        new_dir = positions[k + 1] - positions[k]
        turn = quat_between(cur_dir, new_dir)
        new_world = quat_normalize(quat_mul(turn, world[j]))
        p = skeleton.parents[j]
        parent_world = world[p] if p >= 0 else np.array([0.0, 0.0, 0.0, 1.0])
        out.rotations[j] = quat_normalize(quat_mul(quat_conj(parent_world), new_world))
        world[j] = new_world
        # The child's world rotation follows its parent's turn; later bones read it.
        world[child] = quat_normalize(quat_mul(new_world, out.rotations[child]))
    return out
