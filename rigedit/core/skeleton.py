"""Joint hierarchy, poses and forward kinematics.

A skeleton is stored as flat arrays in parent-before-child order.

Forward kinematics is sized for numpy's per-call cost (~1 us here), not its arithmetic:
a 60-joint skeleton must cost a few dozen calls, whatever its depth.

- World rotations by pointer jumping on quaternions: every joint composes with its current
  ancestor, then the ancestor link skips ahead, so a tree of depth d needs
  ceil(log2(d + 1)) steps. A virtual root with the identity rotation sits in column 0 and
  is its own ancestor (identity * identity = identity), so every step updates every
  joint with no gather/scatter of "joints still short of the root".
- Quaternions are kept component-major, (4, n + 1): the Hamilton product is then one
  broadcast outer product with 60-long inner loops and one small BLAS product, where
  (n, 4)-shaped arrays run 4-long inner loops 16n times.
- World positions without a second pass over the hierarchy: joint i is at the sum over
  itself and its ancestors j of R_world(parent(j)) t_j, one product with a constant 0/1
  ancestor matrix.

A leading frame axis makes the same steps bake a whole clip.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import sqrt
from typing import Sequence

import numpy as np

from .transforms import (
    _QUAT_TO_MATRIX,
    TINY,
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
        if q.ndim == 2:
            return pos, q[:, 1:].T
        return pos, np.swapaxes(q[..., :, 1:], -1, -2)

    def fk_matrices(self, pose: Pose) -> tuple[np.ndarray, np.ndarray]:
        """World positions (..., n, 3) and world rotation matrices (..., n, 3, 3).

        The matrices may be a strided view; copy them before writing into them.
        """
        pos, _, m9 = self._fk.run(pose.rotations, pose.translations)
        n = self._fk.n
        if m9.ndim == 2:
            return pos, m9[:, 1:].reshape(3, 3, n).transpose(2, 0, 1)
        lead = m9.shape[:-2]
        return pos, np.moveaxis(m9[..., :, 1:].reshape(lead + (3, 3, n)), -1, -3)

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

    def height(self) -> float:
        pos, _ = self.fk_matrices(self.rest_pose())
        return float(np.ptp(pos[:, 1])) if len(pos) else 0.0


def _quat_product_table() -> np.ndarray:
    """(4, 16): a * b = table @ outer(a, b).ravel() for the Hamilton product (x, y, z, w)."""
    x, y, z, w = range(4)
    terms = {
        x: ((w, x, 1), (x, w, 1), (y, z, 1), (z, y, -1)),
        y: ((w, y, 1), (x, z, -1), (y, w, 1), (z, x, 1)),
        z: ((w, z, 1), (x, y, 1), (y, x, -1), (z, w, 1)),
        w: ((w, w, 1), (x, x, -1), (y, y, -1), (z, z, -1)),
    }
    k = np.zeros((4, 4, 4))
    for out, products in terms.items():
        for i, j, sign in products:
            k[out, i, j] = sign
    return k.reshape(4, 16)


_QMUL_T = _quat_product_table()
_Q2M_T = np.ascontiguousarray(_QUAT_TO_MATRIX.T)  # (9, 16): row-major matrix of a unit quat


class _FkPlan:
    """Index arrays for one skeleton's forward kinematics (see the module docstring)."""

    def __init__(self, parents: np.ndarray) -> None:
        n = len(parents)
        self.n = n
        shifted = np.where(parents >= 0, parents + 1, 0)  # column 0 is the virtual root
        self.parent_col = shifted
        anc = np.concatenate(([0], shifted))
        steps = []
        while np.any(anc[1:] > 0):
            steps.append(anc)
            anc = anc[anc]
        self.steps = steps
        ancestors = np.zeros((n, n))
        for i in range(n):
            j = i
            while j >= 0:
                ancestors[i, j] = 1.0
                j = parents[j]
        self.ancestors = ancestors
        self.start = np.zeros((4, n + 1))
        self.start[3, 0] = 1.0  # the virtual root's identity rotation

    def run(self, rotations, translations):
        """World positions (..., n, 3), world quaternions (..., 4, n + 1) and matrices
        (..., 9, n + 1), both component-major with the virtual root in column 0."""
        rot = np.asarray(rotations, dtype=np.float64)
        trans = np.asarray(translations, dtype=np.float64)
        n = self.n
        if rot.shape[-2:] != (n, 4) or trans.shape[-2:] != (n, 3):
            raise ValueError(
                f"pose does not fit a {n}-joint skeleton: rotations {rot.shape}, translations {trans.shape}"
            )
        if rot.ndim == 2 and trans.ndim == 2:
            return self._run_one(rot, trans)
        lead = np.broadcast_shapes(rot.shape[:-2], trans.shape[:-2])
        rot = np.broadcast_to(rot, lead + (n, 4))
        q = np.empty(lead + (4, n + 1))
        q[..., :, 0] = (0.0, 0.0, 0.0, 1.0)
        q[..., :, 1:] = np.swapaxes(rot, -1, -2)
        spare = np.empty_like(q)
        for anc in self.steps:
            outer = np.take(q, anc, axis=-1)[..., :, None, :] * q[..., None, :, :]
            np.matmul(_QMUL_T, outer.reshape(lead + (16, n + 1)), out=spare)
            q, spare = spare, q
        outer = q[..., :, None, :] * q[..., None, :, :]
        m9 = np.matmul(_Q2M_T, outer.reshape(lead + (16, n + 1)))
        # Each joint's offset turned by its parent's world rotation, then summed over
        # the joint and its ancestors.
        rp = np.take(m9, self.parent_col, axis=-1).reshape(lead + (3, 3, n))
        prod = rp * np.swapaxes(trans, -1, -2)[..., None, :, :]
        v = prod[..., 0, :]
        v += prod[..., 1, :]
        v += prod[..., 2, :]
        pos = self.ancestors @ np.swapaxes(v, -1, -2)
        return pos, q, m9

    def _run_one(self, rot, trans):
        # `run` for a single pose, written out without `...` indexing (which costs ~1 us
        # a time) and with np.dot (a third cheaper than matmul for plain 2-D products).
        n = self.n
        q = self.start.copy()
        q[:, 1:] = rot.T
        spare = np.empty((4, n + 1))
        dot = np.dot
        for anc in self.steps:
            outer = q.take(anc, axis=1)[:, None, :] * q[None, :, :]
            dot(_QMUL_T, outer.reshape(16, n + 1), out=spare)
            q, spare = spare, q
        outer = q[:, None, :] * q[None, :, :]
        m9 = dot(_Q2M_T, outer.reshape(16, n + 1))
        prod = m9.take(self.parent_col, axis=1).reshape(3, 3, n) * trans.T[None, :, :]
        v = prod[:, 0]  # sum over the matrix columns: R_parent @ t, for every joint
        v += prod[:, 1]
        v += prod[:, 2]
        return dot(self.ancestors, v.T), q, m9


def write_chain_positions(skeleton: Skeleton, pose: Pose, chain: Sequence[int], positions) -> Pose:
    """Turn each bone of a chain toward solved positions and return the new pose.

    Each bone is turned by the shortest arc from its current world direction to the solved
    one, so the twist it had is kept (an IK solver only knows positions and cannot say
    anything about twist). The root joint's translation is left alone: solvers never move
    the chain root. FK of the result reproduces `positions` to round-off when they keep
    the bone lengths and the chain root where the pose has it.

    A rig writes back five chains a frame, so this runs on plain floats: the world
    rotation above the chain comes from a walk up its ancestors (no full FK), and each
    bone is a handful of quaternion products. Numpy is touched once to read and once to
    write.
    """
    chain = [int(c) for c in chain]
    count = len(chain)
    pts = np.asarray(positions, dtype=np.float64)
    rotations = np.asarray(pose.rotations, dtype=np.float64)
    if rotations.ndim != 2:
        raise ValueError(f"write_chain_positions writes one pose; got rotations of shape {rotations.shape}")
    if pts.shape != (count, 3):
        raise ValueError(f"positions must be ({count}, 3) for a {count}-joint chain, got {pts.shape}")
    above = skeleton._path_above(chain[0])
    rows = rotations[above + chain].tolist()
    offsets = np.asarray(pose.translations, dtype=np.float64)[chain[1:]].tolist()
    p = pts.tolist()

    # World rotation of the chain root's parent, then of the chain root.
    px, py, pz, pw = 0.0, 0.0, 0.0, 1.0
    for bx, by, bz, bw in rows[: len(above)]:
        px, py, pz, pw = (
            pw * bx + px * bw + py * bz - pz * by,
            pw * by - px * bz + py * bw + pz * bx,
            pw * bz + px * by - py * bx + pz * bw,
            pw * bw - px * bx - py * by - pz * bz,
        )
    local = rows[len(above):]
    wx, wy, wz, ww = _qmul((px, py, pz, pw), local[0])

    new_local = []
    for k in range(count - 1):
        # The bone's current world direction: its child's offset turned by the world rotation.
        vx, vy, vz = offsets[k]
        tx, ty, tz = 2.0 * (wy * vz - wz * vy), 2.0 * (wz * vx - wx * vz), 2.0 * (wx * vy - wy * vx)
        cur = (vx + ww * tx + wy * tz - wz * ty, vy + ww * ty + wz * tx - wx * tz, vz + ww * tz + wx * ty - wy * tx)
        a, b = p[k], p[k + 1]
        turn = _qbetween(cur, (b[0] - a[0], b[1] - a[1], b[2] - a[2]))
        nw = _qnormalize(_qmul(turn, (wx, wy, wz, ww)))
        new_local.append(_qnormalize(_qmul((-px, -py, -pz, pw), nw)))
        px, py, pz, pw = nw
        # The child's world rotation follows its parent's turn; the next bone reads it.
        wx, wy, wz, ww = _qnormalize(_qmul(nw, local[k + 1]))

    out = Pose(rotations.copy(), np.array(pose.translations, dtype=np.float64))
    if new_local:
        out.rotations[chain[:-1]] = new_local
    return out


# Plain-float quaternion helpers for write_chain_positions: the formulas of transforms.py
# (same shortest arc, same half-turn axis, same TINY), so both agree to round-off.


def _qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def _qnormalize(q):
    x, y, z, w = q
    n = sqrt(x * x + y * y + z * z + w * w)
    if n <= TINY:
        return (0.0, 0.0, 0.0, 1.0)
    return (x / n, y / n, z / n, w / n)


def _qbetween(a, b):
    ax, ay, az = a
    bx, by, bz = b
    na = sqrt(ax * ax + ay * ay + az * az)
    nb = sqrt(bx * bx + by * by + bz * bz)
    if na <= TINY or nb <= TINY:
        return (0.0, 0.0, 0.0, 1.0)
    ax, ay, az = ax / na, ay / na, az / na
    bx, by, bz = bx / nb, by / nb, bz / nb
    d = ax * bx + ay * by + az * bz
    if d < -1.0 + 1e-12:
        # Opposite: a half turn about u x (the world axis u is least aligned with).
        ox, oy = (1.0, 0.0) if abs(ax) < 0.9 else (0.0, 1.0)
        px, py, pz = ay * 0.0 - az * oy, az * ox - ax * 0.0, ax * oy - ay * ox
        n = sqrt(px * px + py * py + pz * pz)
        return (px / n, py / n, pz / n, 0.0)
    return _qnormalize((ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, 1.0 + d))
