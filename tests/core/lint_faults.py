"""Faults injected into a clean walk for the lint tests: each returns a new Clip."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Pose
from rigedit.core.transforms import quat_between, quat_conj, quat_from_axis_angle, quat_mul, quat_normalize

DATA = Path("/work/shared/data")
CMU = DATA / "cmu_12_01_walk.bvh"
BANDAI = DATA / "dataset-1_walk-right_normal_001.bvh"


def _copy(clip: Clip) -> Clip:
    return Clip(clip.rotations.copy(), clip.translations.copy(), clip.frame_time, clip.source)


def _world(skeleton, clip):
    return skeleton.fk(Pose(clip.rotations, clip.translations))


def _set_world(skeleton, clip, world_q, f, joint, new_world):
    parent = skeleton.parents[joint]
    local = new_world if parent < 0 else quat_mul(quat_conj(world_q[f, parent]), new_world)
    clip.rotations[f, joint] = quat_normalize(local)


def flip_thigh(skeleton, clip, hip, knee, ankle, frames, angles=None) -> Clip:
    """The thigh turned 180 degrees (or angles[i] radians on frames[i]) about the hip-ankle
    line: the knee on the other side."""
    out = _copy(clip)
    pos, q = _world(skeleton, clip)
    for i, f in enumerate(frames):
        axis = pos[f, ankle] - pos[f, hip]
        turn = quat_from_axis_angle(axis / np.linalg.norm(axis), np.pi if angles is None else angles[i])
        _set_world(skeleton, out, q, f, hip, quat_mul(turn, q[f, hip]))
    return out


def snap_straight(skeleton, clip, hip, knee, ankle, frames) -> Clip:
    """The shin turned onto the thigh's line: the knee straight on those frames."""
    out = _copy(clip)
    pos, q = _world(skeleton, clip)
    for f in frames:
        thigh, shin = pos[f, knee] - pos[f, hip], pos[f, ankle] - pos[f, knee]
        _set_world(skeleton, out, q, f, knee, quat_mul(quat_between(shin, thigh), q[f, knee]))
    return out


def drift_root(clip, start, end, metres, direction) -> Clip:
    """The root moved `metres` along `direction` from frame start to end, held after."""
    out = _copy(clip)
    d = np.asarray(direction, float) / np.linalg.norm(direction)
    ramp = np.clip((np.arange(clip.n_frames) - start) / max(end - start, 1), 0.0, 1.0)
    out.translations[:, 0] += metres * ramp[:, None] * d
    return out


def wrap_euler(euler: dict, joint: str, channel: int, frames) -> dict:
    out = {k: v.copy() for k, v in euler.items()}
    out[joint][list(frames), channel] += 360.0
    return out
