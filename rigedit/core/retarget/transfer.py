"""Rotations across: each mapped target joint takes its source joint's world rotation, turned
from the source's anatomical frame onto the target's (mapping.py) and from the source's facing
onto the target's; joints with no source keep their rest turn under their parent. The hips go
where the source's hips go, through `Placement` (scaled by the leg ratio about the floor).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..clip import Clip
from ..skeleton import Pose
from ..transforms import (
    quat_conj,
    quat_from_axis_angle,
    quat_mul,
    quat_normalize,
    quat_rotate,
)
from .mapping import Pair, anatomical_offsets
from .roles import LEGS, UP, Roles

FLOOR_PERCENT = 5.0  # as lint's contacts find a foot's floor (core/lint/contacts.py)


@dataclass(frozen=True)
class Placement:
    """Source world points to target world points: turned about +Y from the source's facing
    onto the target's, and scaled by the leg ratio about the floor under the origin (the
    source's planted ankle height goes to the target's rest ankle height)."""

    turn: np.ndarray  # (4,) about +Y
    scale: float
    source_origin: np.ndarray  # (3,)
    target_origin: np.ndarray  # (3,)

    def __call__(self, points: np.ndarray) -> np.ndarray:
        return self.scale * quat_rotate(self.turn, points - self.source_origin) + self.target_origin

    def direction(self, v: np.ndarray) -> np.ndarray:
        return quat_rotate(self.turn, v)


def placement(t: Roles, s: Roles, source_pos: np.ndarray) -> Placement:
    """source_pos: (frames, joints, 3), the source clip's world positions."""
    fs, ft = s.forward, t.forward
    angle = float(np.arctan2(np.cross(fs, ft) @ UP, fs @ ft))
    turn = quat_from_axis_angle(UP, angle)
    ankles = [s.limbs[r][-1] for r in LEGS]
    floor = min(float(np.percentile(source_pos[:, a, 1], FLOOR_PERCENT)) for a in ankles)
    ankle_t = float(np.mean([t.pos[t.limbs[r][-1], 1] for r in LEGS])) - float(t.pos[:, 1].min())
    return Placement(turn, t.leg_length() / s.leg_length(), np.array([0.0, floor, 0.0]), np.array([0.0, ankle_t, 0.0]))


def transfer(t: Roles, s: Roles, pairs: list[Pair], source_quat: np.ndarray, source_pos: np.ndarray,
             place: Placement, frame_time: float) -> Clip:
    """The target clip before IK: source_quat (frames, joints, 4) world rotations."""
    sk = t.skeleton
    n_frames = source_quat.shape[0]
    os_, ot = anatomical_offsets(s, pairs, "source"), anatomical_offsets(t, pairs, "target")
    world = np.empty((n_frames, len(sk), 4))
    given = np.zeros(len(sk), dtype=bool)
    for k, p in enumerate(pairs):
        q = quat_mul(quat_mul(place.turn, source_quat[:, p.source]), quat_mul(os_[k], quat_conj(ot[k])))
        world[:, p.target] = quat_normalize(q)
        given[p.target] = True
    local = np.empty_like(world)
    rest = sk.rest_rotations
    for j in range(len(sk)):
        parent = int(sk.parents[j])
        if not given[j]:
            world[:, j] = rest[j] if parent < 0 else quat_mul(world[:, parent], rest[j])
        local[:, j] = world[:, j] if parent < 0 else quat_normalize(quat_mul(quat_conj(world[:, parent]), world[:, j]))
    trans = np.broadcast_to(sk.offsets, (n_frames,) + sk.offsets.shape).copy()
    set_world_position(sk, local, trans, t.hips, place(source_pos[:, s.hips]))
    return Clip(local, trans, frame_time)


def set_world_position(sk, rot: np.ndarray, trans: np.ndarray, joint: int, where: np.ndarray) -> None:
    """Write `joint`'s local translation (in place) so that it lands at `where` (frames, 3)."""
    parent = int(sk.parents[joint])
    if parent < 0:
        trans[:, joint] = where
        return
    pos, q = sk.fk(Pose(rot, trans))
    trans[:, joint] = quat_rotate(quat_conj(q[:, parent]), where - pos[:, parent])
