"""What every check reads: the clip's world positions and rotations, its limbs, and the two
scales the thresholds are given in (the figure's leg length and the frame rate).

Thresholds are never in metres or degrees per frame: lengths are fractions of the mean leg
length (hip to ankle), so a 30 cm doll and a 2 m giant get the same verdicts, and speeds are
per second, measured over a fixed time window (TIME_WINDOW_S) rather than one frame, so a 120
fps file's finer sampling noise counts no more than a 30 fps file's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..clip import Clip
from ..ik import registry
from ..skeleton import Pose, Skeleton
from ..transforms import quat_to_matrix

# Speeds are taken over +-TIME_WINDOW_S/2 (at least one frame each way).
TIME_WINDOW_S = 1.0 / 30.0


@dataclass(frozen=True)
class Limb:
    """A two-bone chain: root (hip, shoulder), mid (knee, elbow), end (ankle, wrist)."""

    chain: str
    root: int
    mid: int
    end: int
    leg: bool


@dataclass
class Motion:
    skeleton: Skeleton
    clip: Clip
    limbs: list[Limb]
    chains: dict[str, tuple[int, ...]]  # every chain's joints (two-bone and FABRIK), by name
    first: int = 0  # the first frame of motion (1 when frame 0 is a reference pose)
    euler: dict[str, np.ndarray] | None = None  # a BVH file's rotation channels as written, per joint (frames, 3)
    pos: np.ndarray = field(init=False, repr=False)  # (frames, joints, 3)
    rot: np.ndarray = field(init=False, repr=False)  # (frames, joints, 3, 3) world rotation matrices
    quat: np.ndarray = field(init=False, repr=False)  # (frames, joints, 4) the same rotations
    leg_length: float = field(init=False)
    fps: float = field(init=False)

    def __post_init__(self) -> None:
        pos, quat = self.skeleton.fk(Pose(self.clip.rotations, self.clip.translations))
        self.pos, self.quat, self.rot = pos, quat, quat_to_matrix(quat)
        self.fps = self.clip.frame_rate
        legs = [l for l in self.limbs if l.leg] or self.limbs
        if legs:
            p = self.pos[self.first :]
            lengths = [np.median(np.linalg.norm(p[:, l.mid] - p[:, l.root], axis=-1) + np.linalg.norm(p[:, l.end] - p[:, l.mid], axis=-1)) for l in legs]
            self.leg_length = float(np.mean(lengths))
        else:
            self.leg_length = 0.0
        if not self.leg_length > 0:
            # No limbs: half the figure's height stands in for a leg.
            self.leg_length = max(0.5 * float(np.ptp(self.pos[self.first :, :, 1], axis=1).max(initial=0.0)), 1e-3)

    @property
    def n_frames(self) -> int:
        return self.clip.n_frames

    @property
    def window(self) -> int:
        """Frames each way of a speed's central difference."""
        return max(1, int(round(0.5 * TIME_WINDOW_S * self.fps)))

    def speed(self, points: np.ndarray) -> np.ndarray:
        """Per-frame speed (m/s) of a (frames, k) track, over the window (one-sided at the ends)."""
        return np.linalg.norm(velocity(points, self.window, self.clip.frame_time), axis=-1)

    def name(self, joint: int) -> str:
        return self.skeleton.names[joint]


def velocity(points: np.ndarray, k: int, dt: float) -> np.ndarray:
    n = len(points)
    i = np.arange(n)
    hi, lo = np.minimum(i + k, n - 1), np.maximum(i - k, 0)
    span = np.maximum(hi - lo, 1) * dt
    return (points[hi] - points[lo]) / span.reshape((-1,) + (1,) * (points.ndim - 1))


def limbs_from_chains(skeleton: Skeleton, chains) -> tuple[list[Limb], dict[str, tuple[int, ...]]]:
    """Limbs and every chain's joints from (name, joint names[, solver]) entries.

    A limb is a chain its solver solves as a limb (two-bone; a three-joint chain given
    without a solver counts as one): a three-joint FABRIK spine bends, but it has no knee
    to flip or pop.
    """
    limbs, joints = [], {}
    for entry in chains:
        name, names = entry[0], entry[1]
        solver = entry[2] if len(entry) > 2 else None
        idx = tuple(skeleton.index(n) for n in names)
        joints[name] = idx
        if len(idx) == 3 and (solver is None or registry.get(solver).method.limb):
            limbs.append(Limb(name, idx[0], idx[1], idx[2], _is_leg(name)))
    return limbs, joints


def _is_leg(name: str) -> bool:
    words = name.lower().replace("-", "_").split("_")
    return any(w in ("leg", "legs", "foot", "hind") for w in words)
