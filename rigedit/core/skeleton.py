"""Joint hierarchy, poses and forward kinematics.

A skeleton is stored as flat arrays in parent-before-child order, so forward kinematics is
one pass over the joints, each after its parent: fk_kernel.fk_frames, compiled, with every
sum written out in one order. No BLAS product is involved, so positions are the same bits
whatever kernel OpenBLAS picks on this CPU (a 0/1 ancestor-matrix product summed them in a
kernel-dependent order before). A leading frame axis runs the same pass over a whole clip.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .bone_turns import local_turns
from .scalar_quat import IDENTITY, ZERO, qmul
from .transforms import (
    quat_conj,
    quat_mul,
    quat_normalize,
    quat_rotate,
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
    _index: dict[str, int] = field(init=False, repr=False, compare=False)
    _fk: "_FkPlan" = field(init=False, repr=False, compare=False)
    _paths: dict = field(init=False, repr=False, compare=False, default_factory=dict)

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
        self._fk = _FkPlan(self.parents)

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
        """World positions (..., n, 3) and world rotations (..., n, 4) of every joint.

        Pose rotations must be unit quaternions. The world rotations are the products of
        the local ones (not re-derived from matrices), so their sign is whatever the
        products give.
        """
        pos, q, _ = self._fk.run(pose.rotations, pose.translations)
        return pos, q

    def fk_matrices(self, pose: Pose) -> tuple[np.ndarray, np.ndarray]:
        """World positions (..., n, 3) and world rotation matrices (..., n, 3, 3).

        The matrices may be a strided view; copy them before writing into them.
        """
        pos, _, m = self._fk.run(pose.rotations, pose.translations)
        return pos, m

    def fk_homogeneous(self, pose: Pose) -> np.ndarray:
        """World transforms (..., n, 4, 4)."""
        pos, mats = self.fk_matrices(pose)
        m = np.zeros(pos.shape[:-1] + (4, 4))
        m[..., :3, :3] = mats
        m[..., :3, 3] = pos
        m[..., 3, 3] = 1.0
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

    def _path_above(self, joint: int) -> list[int]:
        """The ancestors of `joint`, root first (cached: chains are written every frame)."""
        path = self._paths.get(joint)
        if path is None:
            path = []
            p = int(self.parents[joint])
            while p >= 0:
                path.append(p)
                p = int(self.parents[p])
            path = self._paths[joint] = path[::-1]
        return path

    def _write_plan(self, chain: Sequence[int]):
        """For write_chain_positions, cached per chain: the rows to read (ancestors, then
        the chain), the chain's children, and the flat indices its new rotations go to."""
        key = tuple(chain)  # numpy ints hash and compare as ints
        plan = self._paths.get(key)
        if plan is None:
            if len(key) < 1:
                raise ValueError("a chain needs at least one joint")
            joints = [int(c) for c in key]
            rows = self._path_above(joints[0]) + joints
            flat = (4 * np.asarray(joints[:-1], dtype=np.int64)[:, None] + np.arange(4)).ravel()
            plan = self._paths[key] = (np.asarray(rows, dtype=np.intp), np.asarray(joints[1:], dtype=np.intp), flat)
        return plan

    def height(self) -> float:
        pos, _ = self.fk_matrices(self.rest_pose())
        return float(np.ptp(pos[:, 1])) if len(pos) else 0.0


_fk_frames = None  # fk_kernel.fk_frames, imported on the first FK: numba's import costs ~0.3 s


def _kernel():
    global _fk_frames
    if _fk_frames is None:
        from .fk_kernel import fk_frames

        _fk_frames = fk_frames
    return _fk_frames


def _frames(a: np.ndarray, lead: tuple, count: int, n: int, k: int) -> np.ndarray:
    """a (..., n, k) as the kernel's C-contiguous (count or 1, n, k): one leading 1 stands for
    a pose shared by every frame (given once, or broadcast with stride 0)."""
    if a.ndim == 2 or a.size == n * k or not any(a.strides[:-2]):
        return np.ascontiguousarray(a[(0,) * (a.ndim - 2)][None])
    if a.shape[:-2] != lead:
        a = np.broadcast_to(a, lead + (n, k))
    return np.ascontiguousarray(a).reshape(count, n, k)


class _FkPlan:
    """One skeleton's forward kinematics (see the module docstring)."""

    def __init__(self, parents: np.ndarray) -> None:
        self.n = len(parents)
        self.parents = np.ascontiguousarray(parents, dtype=np.int64)

    def run(self, rotations, translations):
        """World positions (..., n, 3), quaternions (..., n, 4) and matrices (..., n, 3, 3)."""
        rot = np.asarray(rotations, dtype=np.float64)
        trans = np.asarray(translations, dtype=np.float64)
        n = self.n
        if rot.shape[-2:] != (n, 4) or trans.shape[-2:] != (n, 3):
            raise ValueError(
                f"pose does not fit a {n}-joint skeleton: rotations {rot.shape}, translations {trans.shape}"
            )
        fk = _fk_frames or _kernel()
        if rot.ndim == 2 and trans.ndim == 2:
            pos, q, m = np.empty((1, n, 3)), np.empty((1, n, 4)), np.empty((1, n, 3, 3))
            fk(self.parents, np.ascontiguousarray(rot)[None], np.ascontiguousarray(trans)[None], pos, q, m)
            return pos[0], q[0], m[0]
        lead = np.broadcast_shapes(rot.shape[:-2], trans.shape[:-2])
        count = int(np.prod(lead))
        pos, q, m = np.empty((count, n, 3)), np.empty((count, n, 4)), np.empty((count, n, 3, 3))
        if count and n:
            fk(self.parents, _frames(rot, lead, count, n, 4), _frames(trans, lead, count, n, 3), pos, q, m)
        return pos.reshape(lead + (n, 3)), q.reshape(lead + (n, 4)), m.reshape(lead + (n, 3, 3))


def write_chain_positions(skeleton: Skeleton, pose: Pose, chain: Sequence[int], positions) -> Pose:
    """Turn each bone of a chain toward solved positions and return the new pose.

    Each bone is turned by the shortest arc from its current world direction to the solved
    one, so the twist it had is kept (an IK solver only knows positions and cannot say
    anything about twist). The root joint's translation is left alone: solvers never move
    the chain root. FK of the result reproduces `positions` to round-off when they keep
    the bone lengths and the chain root where the pose has it.

    The turns are the rig's own write-back (bone_turns.local_turns), on plain floats: the
    world rotation above the chain comes from a walk up its ancestors (no full FK), and
    numpy is touched once to read and once to write.
    """
    count = len(chain)
    pts = np.asarray(positions, dtype=np.float64)
    rotations = np.asarray(pose.rotations, dtype=np.float64)
    if rotations.ndim != 2:
        raise ValueError(f"write_chain_positions writes one pose; got rotations of shape {rotations.shape}")
    if pts.shape != (count, 3):
        raise ValueError(f"positions must be ({count}, 3) for a {count}-joint chain, got {pts.shape}")
    rows_idx, children, flat_out = skeleton._write_plan(chain)
    rows = [tuple(q) for q in rotations.take(rows_idx, axis=0).tolist()]
    first = len(rows_idx) - count  # rows[first:] is the chain, before it its ancestors
    parent = IDENTITY  # the world rotation of the chain root's parent
    for q in rows[:first]:
        parent = qmul(parent, q)
    # local_turns reads bone k's child offset at k + 1.
    offsets = [ZERO] + [tuple(t) for t in np.asarray(pose.translations, dtype=np.float64).take(children, axis=0).tolist()]
    solved = [tuple(p) for p in pts.tolist()]
    turned = local_turns(parent, rows[first : first + count - 1], offsets, solved)
    new_local = [c for q in turned for c in q]

    out_rot = rotations.copy()
    out_rot.put(flat_out, new_local)
    return Pose(out_rot, np.array(pose.translations, dtype=np.float64))
