"""Shared material for the retarget tests: the shared walks retargeted once per session, a
small biped whose every moving joint has a role, and measures on clips."""
from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from rigedit.core.retarget import retarget_clip
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.transforms import quat_from_axis_angle
from rigedit.lint_cli import load_clip

DATA = Path("/work/shared/data")
WALKS = ("cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh")


@cache
def humanoid() -> Skeleton:
    return Rig.default().skeleton


@cache
def source(name: str):
    return load_clip(str(DATA / name))


@cache
def retargeted(name: str):
    src = source(name)
    return retarget_clip(src.skeleton, src.clip, humanoid())


def positions(skeleton: Skeleton, clip) -> np.ndarray:
    return skeleton.fk(Pose(clip.rotations, clip.translations))[0]


def biped(scale: float = 1.0) -> Skeleton:
    """Hips, a three-joint spine to the chest, neck and head; collar, arm, forearm and hand
    each side (T-pose); thigh, shin, foot and toes each side (facing +Z by its toes)."""
    j = [("Hips", None, (0, 1.0, 0)), ("Spine", "Hips", (0, 0.12, 0)), ("Spine1", "Spine", (0, 0.14, 0)),
         ("Chest", "Spine1", (0, 0.14, 0)), ("Neck", "Chest", (0, 0.14, 0)), ("Head", "Neck", (0, 0.1, 0)),
         ("HeadTop", "Head", (0, 0.15, 0))]
    for side, x in (("L", 1.0), ("R", -1.0)):
        j += [(f"Collar{side}", "Chest", (0.04 * x, 0.1, 0)), (f"Arm{side}", f"Collar{side}", (0.14 * x, 0, 0)),
              (f"ForeArm{side}", f"Arm{side}", (0.28 * x, 0, 0)), (f"Hand{side}", f"ForeArm{side}", (0.25 * x, 0, 0)),
              (f"Finger{side}", f"Hand{side}", (0.08 * x, 0, 0))]
        j += [(f"Thigh{side}", "Hips", (0.1 * x, -0.05, 0)), (f"Shin{side}", f"Thigh{side}", (0, -0.45, 0.0)),
              (f"Foot{side}", f"Shin{side}", (0, -0.42, 0)), (f"Toe{side}", f"Foot{side}", (0, -0.06, 0.13)),
              (f"ToeEnd{side}", f"Toe{side}", (0, 0, 0.05))]
    return Skeleton.from_joints([(n, p, tuple(scale * v for v in o)) for n, p, o in j])


def random_clip(skeleton: Skeleton, angles: np.ndarray, axes: np.ndarray, hips: np.ndarray, frame_time: float = 1 / 30):
    """A clip turning every joint with children by angles (frames, joints) about axes
    (frames, joints, 3), the hips at hips (frames, 3); leaves keep their rest."""
    from rigedit.core.clip import Clip

    n = len(skeleton)
    moving = np.array([len(skeleton.children(i)) > 0 for i in range(n)])
    rot = quat_from_axis_angle(axes, np.where(moving, angles, 0.0))
    trans = np.broadcast_to(skeleton.offsets, (len(angles), n, 3)).copy()
    trans[:, 0] = hips
    return Clip(rot, trans, frame_time)


def same_rotation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per quaternion, the distance between a and b as rotations (q and -q are one)."""
    return np.minimum(np.linalg.norm(a - b, axis=-1), np.linalg.norm(a + b, axis=-1))


def knee_side(pos: np.ndarray, hips_forward: np.ndarray, hip: int, knee: int, ankle: int) -> tuple[np.ndarray, np.ndarray]:
    """Per frame, the knee's offset from the hip-ankle line along the hips' forward, and the
    knee's bend angle (radians)."""
    line = pos[:, ankle] - pos[:, hip]
    line /= np.linalg.norm(line, axis=1, keepdims=True)
    u = pos[:, knee] - pos[:, hip]
    v = pos[:, ankle] - pos[:, knee]
    off = u - np.einsum("fi,fi->f", u, line)[:, None] * line
    cos = np.einsum("fi,fi->f", u, v) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))
    return np.einsum("fi,fi->f", off, hips_forward), np.arccos(np.clip(cos, -1.0, 1.0))
