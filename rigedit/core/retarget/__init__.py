"""Retarget a clip from one skeleton onto another (issue 17 item 3).

    result = retarget_clip(source_skeleton, clip, target_skeleton)
    result.clip          # the motion on the target skeleton, its bone lengths kept
    result.max_slide     # metres: the furthest a foot strays over the ground in a contact

How, step by step (one module each):
1. roles.py: both skeletons' hips, spine, head and limbs from the chain proposer, and facing;
2. mapping.py: source joints onto target joints by role, and each pair's anatomical frame;
3. transfer.py: world rotations across through those frames (a T-pose source onto an A-pose
   target, +X bones onto +Y bones), the hips' path scaled by the leg-length ratio;
4. feet.py: the source's foot contacts (lint's detection), the foot goals locked on them;
5. limbs.py: the goals carried across and the limbs solved by the two-bone kernel, knees
   and elbows bending on the source's side.
Retargeting a clip onto its own skeleton gives the clip back (to round-off).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..clip import Clip
from ..skeleton import Pose, Skeleton
from .errors import RetargetError
from .feet import Contacts, contacts_of, lock, slides
from .limbs import solve_limbs
from .mapping import map_joints
from .roles import LEGS, find_roles
from .transfer import placement, transfer

__all__ = ["RetargetError", "RetargetResult", "retarget_clip"]


@dataclass
class RetargetResult:
    clip: Clip  # on the target skeleton
    chains: list[str]  # the roles mapped ("spine", "left_leg"...)
    solved: list[str]  # the limbs solved by IK onto carried goals
    leg_ratio: float  # target leg length / source leg length: the root motion's scale
    contacts: Contacts  # per leg role, the source's planted frames (first, last)
    slides: dict[str, list[float]]  # per leg role, per contact: metres the ankle strays over the ground

    @property
    def max_slide(self) -> float:
        return max((v for s in self.slides.values() for v in s), default=0.0)


def retarget_clip(source: Skeleton, clip: Clip, target: Skeleton, *, lock_feet: bool = True,
                  target_pose: Pose | None = None,
                  source_label: str = "the source", target_label: str = "the target") -> RetargetResult:
    """`clip` (on `source`) as a clip on `target`. The target's roles are read in its rest
    pose, or in `target_pose` (its own clip's first frame, say) when the rest pose is no
    standing figure; the source's in its rest pose or the clip's first frame. Labels name
    the two in error messages."""
    if clip.rotations.shape[1] != len(source):
        raise RetargetError(f"{source_label}: the clip has {clip.rotations.shape[1]} joints, the skeleton {len(source)}")
    if not (np.isfinite(clip.rotations).all() and np.isfinite(clip.translations).all()):
        raise RetargetError(f"{source_label}: the clip has non-finite rotations or translations")
    s = find_roles(source, clip.frame(0), source_label)
    t = find_roles(target, target_pose, target_label)
    pairs, mapped = map_joints(t, s)
    s_pos, s_quat = source.fk(Pose(clip.rotations, clip.translations))
    place = placement(t, s, s_pos)
    out = transfer(t, s, pairs, s_quat, s_pos, place, clip.frame_time)
    contacts = contacts_of(source, clip, {r: s.limbs[r] for r in LEGS})
    goals = {}
    for role in LEGS:
        goal = place(s_pos[:, s.limbs[role][-1]])
        goals[role] = lock(goal, contacts[role], clip.frame_rate) if lock_feet else goal
    solved = solve_limbs(t, s, out, s_pos, s_quat, place, goals)
    pos, _ = target.fk(Pose(out.rotations, out.translations))
    slid = {r: slides(pos[:, t.limbs[r][-1]], contacts[r]) for r in LEGS}
    return RetargetResult(out, mapped, solved, place.scale, contacts, slid)
