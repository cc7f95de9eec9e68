"""The IK goals carried across and the target's limbs solved onto them with the two-bone
kernel (core/ik two_bone_ik_batch, all frames in one call).

- A foot's goal is the source's ankle through the same placement as the hips (transfer.py),
  so the stride is scaled with the hips and the feet land where the scaled walk puts them;
  a hand's goal is the source's wrist about the shoulder, scaled by the arms' own ratio (a
  long-armed source's reach stays a reach, not a straight arm).
- Where the hips are too high for a leg to reach its goal (the pelvis and legs are built in
  other proportions), the hips are lowered just enough on that frame.
- The pole is the source limb's bend plane, turned into the target's facing: knees and
  elbows bend as the source's do. A straight source limb (CMU's knees in mid-stance) keeps
  the bend of the last frame that had one, in the hips' or chest's frame, as lint --fix does.
- Each bone turns by the shortest arc onto the solution (bake's write-back), and the tip
  keeps the world rotation the transfer gave it (the foot stays flat on the ground).
"""
from __future__ import annotations

import numpy as np

from ..bake import turn_bones_toward
from ..clip import Clip
from ..ik import two_bone_ik_batch
from ..lint.fix import DEFINED_BEND_DEG
from ..skeleton import Pose
from ..transforms import quat_conj, quat_mul, quat_normalize, quat_rotate
from .roles import LEGS, UP, Roles
from .transfer import Placement, set_world_position

REACH = 1.0 - 1e-6  # of the leg's length: lower the hips when a goal is further than this


def _bend(pos: np.ndarray, quat: np.ndarray, sk, joints: list[int]) -> np.ndarray:
    """Unit bend direction (frames, 3) of a source limb in world, a straight frame's carried
    from the last bent one in the frame of the limb root's parent."""
    root, mid, tip = joints[0], joints[len(joints) // 2], joints[-1]
    u, v = pos[:, mid] - pos[:, root], pos[:, tip] - pos[:, mid]
    cos = np.einsum("fi,fi->f", u, v) / np.maximum(np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1), 1e-300)
    line = pos[:, tip] - pos[:, root]
    line = line / np.maximum(np.linalg.norm(line, axis=-1, keepdims=True), 1e-300)
    off = u - np.einsum("fi,fi->f", u, line)[:, None] * line
    bent = cos < np.cos(np.radians(DEFINED_BEND_DEG))
    parent = int(sk.parents[root])
    frame = quat[:, parent] if parent >= 0 else np.tile([0.0, 0.0, 0.0, 1.0], (len(pos), 1))
    local = quat_rotate(quat_conj(frame), off / np.maximum(np.linalg.norm(off, axis=-1, keepdims=True), 1e-300))
    if not bent.any():
        return None
    idx = np.where(bent, np.arange(len(pos)), -1)
    idx = np.maximum.accumulate(idx)
    idx[idx < 0] = int(np.argmax(bent))  # before the first bent frame: its bend
    return quat_rotate(frame, local[idx])


def _lower_hips(t: Roles, clip: Clip, goals: dict[str, np.ndarray]) -> None:
    """Lower the hips (in place) on frames where a leg cannot reach its goal."""
    sk = t.skeleton
    pos, _ = sk.fk(Pose(clip.rotations, clip.translations))
    drop = np.zeros(clip.n_frames)
    for role, goal in goals.items():
        length = t.limb_length(role) * REACH
        v = goal - pos[:, t.limbs[role][0]]
        flat = v[:, 0] ** 2 + v[:, 2] ** 2
        drop = np.maximum(drop, -np.sqrt(np.maximum(length * length - flat, 0.0)) - v[:, 1])
    if drop.max() > 0.0:
        set_world_position(sk, clip.rotations, clip.translations, t.hips, pos[:, t.hips] - drop[:, None] * UP)


def _solve(t: Roles, clip: Clip, role: str, goal: np.ndarray, bend: np.ndarray | None) -> None:
    """Solve one limb onto `goal` (frames, 3), in place."""
    sk = t.skeleton
    pos, quat = sk.fk(Pose(clip.rotations, clip.translations))
    root, mid, tip = t.limbs[role]
    length = t.limb_length(role)
    pole = None if bend is None else 0.5 * (pos[:, root] + goal) + bend * length
    r = two_bone_ik_batch(pos[:, root], pos[:, mid], pos[:, tip], goal, pole)
    parent = int(sk.parents[root])
    base = quat[:, parent] if parent >= 0 else np.tile([0.0, 0.0, 0.0, 1.0], (clip.n_frames, 1))
    solved = np.stack([pos[:, root], r.mid, r.end], axis=1)
    turned = turn_bones_toward(base, clip.rotations[:, [root, mid]], clip.translations[:, [root, mid, tip]], solved)
    clip.rotations[:, root], clip.rotations[:, mid] = turned[:, 0], turned[:, 1]
    mid_world = quat_mul(quat_mul(base, turned[:, 0]), turned[:, 1])
    clip.rotations[:, tip] = quat_normalize(quat_mul(quat_conj(mid_world), quat[:, tip]))


def solve_limbs(t: Roles, s: Roles, clip: Clip, source_pos: np.ndarray, source_quat: np.ndarray,
                place: Placement, foot_goals: dict[str, np.ndarray]) -> list[str]:
    """Solve the target's two-bone limbs (in place) onto goals carried from the source; the
    legs onto `foot_goals` (frames, 3) per leg role. The roles solved."""
    _lower_hips(t, clip, foot_goals)
    solved = []
    for role, joints in t.limbs.items():
        if len(joints) != 3 or role not in s.limbs:
            continue  # a FABRIK limb (twist joints) keeps the transferred rotations
        sj = s.limbs[role]
        bend = _bend(source_pos, source_quat, s.skeleton, sj)
        bend = None if bend is None else place.direction(bend)
        if role in LEGS:
            goal = foot_goals[role]
        else:
            pos, _ = t.skeleton.fk(Pose(clip.rotations, clip.translations))
            ratio = t.limb_length(role) / max(s.limb_length(role), 1e-12)
            goal = pos[:, joints[0]] + ratio * place.direction(source_pos[:, sj[-1]] - source_pos[:, sj[0]])
        _solve(t, clip, role, goal, bend)
        solved.append(role)
    return solved
