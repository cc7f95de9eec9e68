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


IN_PLACE_WINDOW_S = 1.0  # "in place" takes out the hips' travel averaged over this long (a stride or two)


@dataclass(frozen=True)
class Placement:
    """Source world points to target world points: turned about +Y from the source's facing
    onto the target's, scaled about the floor under the origin (the source's planted ankle
    height goes to the target's rest ankle height): heights by the leg ratio, distances over
    the ground by it too, or not at all (root motion "kept"); then, for root motion
    "in_place", less the hips' travel on each frame (`path`)."""

    turn: np.ndarray  # (4,) about +Y
    scale: float
    source_origin: np.ndarray  # (3,)
    target_origin: np.ndarray  # (3,)
    ground_scale: float = 1.0  # over the ground: scale, or 1 for root motion kept as is
    path: np.ndarray | None = None  # (frames, 3) taken off every placed point (root motion in place)

    def world(self, points: np.ndarray) -> np.ndarray:
        """Placed, the travel still in (feet are locked on the ground here, then moved)."""
        v = quat_rotate(self.turn, points - self.source_origin)
        k = np.array([self.ground_scale, self.scale, self.ground_scale])
        return k * v + self.target_origin

    def __call__(self, points: np.ndarray) -> np.ndarray:
        """points (frames, 3), one a frame of the clip."""
        out = self.world(points)
        return out if self.path is None else out - self.path

    def direction(self, v: np.ndarray) -> np.ndarray:
        return quat_rotate(self.turn, v)


def placement(t: Roles, s: Roles, source_pos: np.ndarray, root: str = "scaled", fps: float = 30.0) -> Placement:
    """source_pos: (frames, joints, 3), the source clip's world positions; root: options.ROOT_MODES."""
    turn = facing_turn(t, s)
    ankles = [s.limbs[r][-1] for r in LEGS]
    floor = min(float(np.percentile(source_pos[:, a, 1], FLOOR_PERCENT)) for a in ankles)
    ankle_t = float(np.mean([t.pos[t.limbs[r][-1], 1] for r in LEGS])) - float(t.pos[:, 1].min())
    scale = t.leg_length() / s.leg_length()
    place = Placement(turn, scale, np.array([0.0, floor, 0.0]), np.array([0.0, ankle_t, 0.0]),
                      1.0 if root == "kept" else scale)
    if root != "in_place":
        return place
    hips = place.world(source_pos[:, s.hips])
    path = _running_mean(hips, max(1, round(IN_PLACE_WINDOW_S * fps)))  # the travel; the sway stays
    path[:, 1] = 0.0
    path -= path[:1]  # the first frame stays where it is
    return Placement(turn, scale, place.source_origin, place.target_origin, scale, path)


def facing_turn(t: Roles, s: Roles) -> np.ndarray:
    """(4,) the turn about +Y from the source's facing onto the target's."""
    fs, ft = s.forward, t.forward
    return quat_from_axis_angle(UP, float(np.arctan2(np.cross(fs, ft) @ UP, fs @ ft)))


def _running_mean(x: np.ndarray, window: int) -> np.ndarray:
    """(frames, 3) centred mean over `window` frames, the ends held (edge-padded)."""
    half = window // 2
    padded = np.concatenate([np.repeat(x[:1], half, 0), x, np.repeat(x[-1:], half, 0)])
    c = np.cumsum(np.concatenate([np.zeros((1, 3)), padded]), axis=0)
    w = 2 * half + 1
    return (c[w:] - c[:-w]) / w


def transfer(t: Roles, s: Roles, pairs: list[Pair], source_quat: np.ndarray, source_pos: np.ndarray,
             place: Placement, frame_time: float, planted: dict | None = None) -> Clip:
    """The target clip before IK: source_quat (frames, joints, 4) world rotations; planted:
    per leg role, a frame of the source with that foot flat (mapping.anatomical_offsets)."""
    sk = t.skeleton
    n_frames = source_quat.shape[0]
    os_, ot = anatomical_offsets(s, pairs, "source", planted), anatomical_offsets(t, pairs, "target")
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
