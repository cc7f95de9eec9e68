"""The IK goals carried across and the target's limbs solved onto them with the two-bone
kernel (core/ik two_bone_ik_batch, all frames in one call).

- A foot's goal is the source's ankle through the same placement as the hips (transfer.py),
  so the stride is scaled with the hips and the feet land where the scaled walk puts them;
  a hand's goal is where the transferred rotations put it, so the arm's bones point as the
  source's do (its reach as a fraction of its length is the source's), moved off the body
  where a wider target needs it (space.py).
- Where a leg would have to reach further for its goal than the source's leg does, as a
  fraction of its length (the pelvis and legs are built in other proportions, so a knee the
  source bends could come out straight, or the goal out of reach), the hips are lowered
  just enough on that frame: the knee bends at least as much as the source's.
- The pole is the source limb's bend plane, turned into the target's facing: knees and
  elbows bend as the source's do. A straight source limb (CMU's knees in mid-stance) keeps
  the side of the last frame clearly bent (_bend says when a bend is the limb's own).
- The limb is written back as a hinge, the way riggers build knees and elbows: the upper
  bone is twisted about itself so that the limb's bend plane is the one it bends in in the
  target's reference pose (its hinge axis, the plane's normal, as a preset's hinge limit
  has it), so the knee or elbow turns about that axis only; a limb straight in the
  reference pose takes the axis square to the bone and its pole side. The tip keeps the
  world rotation the transfer gave it (the foot stays flat on the ground).
"""
from __future__ import annotations

import numpy as np

from ..clip import Clip
from ..clip_goals import STRAIGHT_REL
from ..ik import two_bone_ik_batch
from ..lint.fix import DEFINED_BEND_DEG

# A limb bent this much or more bends in its own plane (see _bend). Ten degrees: an elbow
# passing straight in the Bandai walk turns its plane by 90 degrees while under one degree,
# and eases back into a plane of its own by ten.
OWN_BEND_DEG = 10.0
from ..skeleton import Pose
from ..transforms import quat_conj, quat_mul, quat_normalize, quat_rotate
from .feet import RAISE_EASE_S, eased_max
from .mapping import axes_rotation
from .roles import ARMS, LEGS, UP, Roles
from .space import keep_off_body
from .transfer import Placement, set_world_position


def _bend(pos: np.ndarray, quat: np.ndarray, sk, joints: list[int]) -> np.ndarray | None:
    """Unit bend direction (frames, 3) of a source limb in world; None if it is never bent.

    Bent OWN_BEND_DEG or more, a limb bends in its own plane. Bent less, its plane is less and
    less its own (an elbow passing straight turns its bend plane any way in a frame or two):
    the direction is eased, by the bend, from the side of the last frame bent that much (in
    the frame of the limb root's parent) to its own. A limb bent the other way than that
    side (a knee locked a hair past straight) takes that side: the target's knee may bend
    more than the source's (the hips lowered), and must not bend backward then.
    """
    root, mid, tip = joints[0], joints[len(joints) // 2], joints[-1]
    u, v = pos[:, mid] - pos[:, root], pos[:, tip] - pos[:, mid]
    line = pos[:, tip] - pos[:, root]
    line = line / np.maximum(np.linalg.norm(line, axis=-1, keepdims=True), 1e-300)
    off = u - np.einsum("fi,fi->f", u, line)[:, None] * line
    size = np.linalg.norm(off, axis=-1)
    cos = np.einsum("fi,fi->f", u, v) / np.maximum(np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1), 1e-300)
    angle = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    own_frames = angle >= OWN_BEND_DEG
    if not own_frames.any():
        return None
    parent = int(sk.parents[root])
    frame = quat[:, parent] if parent >= 0 else np.tile([0.0, 0.0, 0.0, 1.0], (len(pos), 1))
    local = quat_rotate(quat_conj(frame), off / np.maximum(size, 1e-300)[:, None])
    idx = np.maximum.accumulate(np.where(own_frames, np.arange(len(pos)), -1))
    idx[idx < 0] = int(np.argmax(own_frames))  # before the first frame bent that much: its side
    carried = local[idx]
    x = np.clip(angle / OWN_BEND_DEG, 0.0, 1.0)
    w = x * x * (3.0 - 2.0 * x)
    some = size > STRAIGHT_REL * (np.linalg.norm(u, axis=-1) + np.linalg.norm(v, axis=-1))
    w = np.where(some & (np.einsum("fi,fi->f", local, carried) >= 0.0), w, 0.0)
    mixed = w[:, None] * local + (1.0 - w[:, None]) * carried
    return quat_rotate(frame, mixed / np.linalg.norm(mixed, axis=-1, keepdims=True))


def _extension(s: Roles, source_pos: np.ndarray, role: str) -> np.ndarray:
    """(frames,) how far a source leg reaches, root to tip, as a fraction of its length."""
    j = s.limbs[role]
    return np.minimum(np.linalg.norm(source_pos[:, j[-1]] - source_pos[:, j[0]], axis=-1) / s.limb_length(role), 1.0)


def _lower_hips(t: Roles, s: Roles, clip: Clip, goals: dict[str, np.ndarray], source_pos: np.ndarray) -> None:
    """Lower the hips (in place) on frames where a leg would reach further than the source's."""
    sk = t.skeleton
    pos, _ = sk.fk(Pose(clip.rotations, clip.translations))
    drop = np.zeros(clip.n_frames)
    for role, goal in goals.items():
        length = t.limb_length(role) * _extension(s, source_pos, role)
        v = goal - pos[:, t.limbs[role][0]]
        flat = v[:, 0] ** 2 + v[:, 2] ** 2
        drop = np.maximum(drop, -np.sqrt(np.maximum(length * length - flat, 0.0)) - v[:, 1])
    # Eased like a raised foot (feet.py), so the hips do not kink where the leg they are
    # lowered for changes, and a knee does not snap straight there.
    drop = eased_max(drop, max(1, round(0.5 * RAISE_EASE_S * clip.frame_rate)))
    if drop.max() > 0.0:
        set_world_position(sk, clip.rotations, clip.translations, t.hips, pos[:, t.hips] - drop[:, None] * UP)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _hinge(t: Roles, role: str) -> np.ndarray:
    """The limb's hinge axis in the reference pose (world): the normal of its bend plane, or
    for a limb straight there, square to the upper bone and the way it bends (a knee's shin
    goes back from its pole in front, an elbow's forearm forward)."""
    root, mid, tip = (t.pos[j] for j in t.limbs[role])
    u, v = mid - root, tip - mid
    n = np.cross(u, v)
    if np.linalg.norm(n) > np.sin(np.radians(DEFINED_BEND_DEG)) * np.linalg.norm(u) * np.linalg.norm(v):
        return _unit(n)
    pole = -t.forward if role in ARMS else t.forward
    return _unit(np.cross(u, -pole))


def _solve(t: Roles, clip: Clip, role: str, goal: np.ndarray, bend: np.ndarray | None) -> None:
    """Solve one limb onto `goal` (frames, 3) and write it back as a hinge, in place."""
    sk = t.skeleton
    pos, quat = sk.fk(Pose(clip.rotations, clip.translations))
    root, mid, tip = t.limbs[role]
    length = t.limb_length(role)
    pole = None if bend is None else 0.5 * (pos[:, root] + goal) + bend * length
    r = two_bone_ik_batch(pos[:, root], pos[:, mid], pos[:, tip], goal, pole)
    u, v = r.mid - pos[:, root], r.end - r.mid
    # The pole's plane, which the solved limb bends in: defined however straight the limb is.
    n = np.cross(u, v) if bend is None else np.cross(u, -bend)
    keep = np.linalg.norm(n, axis=-1) <= STRAIGHT_REL * length * length  # no plane at all: as it was
    n[keep] = quat_rotate(quat[keep, root], quat_rotate(quat_conj(t.quat[root]), _hinge(t, role)))
    n = _unit(n)
    hinge = _hinge(t, role)

    def world(bone: np.ndarray, a: int, b: int) -> np.ndarray:
        """The bone's world rotation: its reference rotation carried from the reference
        (bone, hinge) frame onto the solved (bone, plane normal) frame."""
        frame0 = axes_rotation(_unit(t.pos[b] - t.pos[a]), hinge)
        return quat_mul(axes_rotation(_unit(bone), n), quat_mul(quat_conj(frame0), t.quat[a]))

    up_w, low_w = world(u, root, mid), world(v, mid, tip)
    parent = int(sk.parents[root])
    base = quat[:, parent] if parent >= 0 else np.tile([0.0, 0.0, 0.0, 1.0], (clip.n_frames, 1))
    clip.rotations[:, root] = quat_normalize(quat_mul(quat_conj(base), up_w))
    clip.rotations[:, mid] = quat_normalize(quat_mul(quat_conj(up_w), low_w))
    clip.rotations[:, tip] = quat_normalize(quat_mul(quat_conj(low_w), quat[:, tip]))


def solve_limbs(t: Roles, s: Roles, clip: Clip, source_pos: np.ndarray, source_quat: np.ndarray,
                place: Placement, foot_goals: dict[str, np.ndarray], arm_space: bool = True) -> list[str]:
    """Solve the target's two-bone limbs (in place) onto goals carried from the source; the
    legs onto `foot_goals` (frames, 3) per leg role; hands kept off the body (space.py)
    when `arm_space`. The roles solved."""
    _lower_hips(t, s, clip, foot_goals, source_pos)
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
            # The hand where the transferred rotations put it: the arm's bones point as the
            # source's do (the solve only writes the elbow back as a hinge), unless the hand
            # must be moved off the body.
            pos, _ = t.skeleton.fk(Pose(clip.rotations, clip.translations))
            goal = pos[:, joints[-1]].copy()
            if arm_space:
                goal = keep_off_body(goal, t, pos, s, source_pos, sj[-1])
        _solve(t, clip, role, goal, bend)
        solved.append(role)
    return solved
