"""The retarget itself, step by step (the package's docstring, rigedit/core/retarget/__init__.py,
says what each module does): `retarget_clip` and the `RetargetResult` it gives."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..clip import Clip
from ..skeleton import Pose, Skeleton
from .errors import RetargetError
from .fidelity import bones_of, direction_cosines
from .feet import Contacts, clear_of_floor, clearance, contacts_of, foot_points, lock, planted_frame, slides
from .limbs import solve_limbs
from .mapping import map_joints
from .options import RetargetOptions
from .roles import LEGS, UP, find_roles
from .transfer import placement, set_world_position, transfer


@dataclass
class RetargetResult:
    clip: Clip  # on the target skeleton
    target: Skeleton
    chains: list[str]  # the roles mapped ("spine", "left_leg"...)
    solved: list[str]  # the limbs solved by IK onto carried goals
    leg_ratio: float  # target leg length / source leg length: the root motion's scale
    contacts: Contacts  # per leg role, the source's planted frames (first, last)
    slides: dict[str, list[float]]  # per leg role, per contact: metres the ankle strays over the ground
    options: RetargetOptions = RetargetOptions()  # what was asked (options.py)
    bones: list = field(default_factory=list)  # fidelity.Bone: the limbs' bones, source and target joint names
    turn: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 0.0, 1.0]))  # source facing onto target's

    def direction_cosines(self, source: Skeleton, clip: Clip) -> dict[str, float]:
        """Per bone, the mean cosine of its direction to the source's (fidelity.py)."""
        return direction_cosines(source, clip, self.target, self.clip, self.bones, self.turn)

    @property
    def max_slide(self) -> float:
        return max((v for s in self.slides.values() for v in s), default=0.0)


def retarget_clip(source: Skeleton, clip: Clip, target: Skeleton, *, target_pose: Pose | None = None,
                  source_label: str = "the source", target_label: str = "the target", **options) -> RetargetResult:
    """`clip` (on `source`) as a clip on `target`. The target's roles are read in its rest
    pose, or in `target_pose` (its own clip's first frame, say) when the rest pose is no
    standing figure; the source's in its rest pose or the clip's first frame. Labels name
    the two in error messages. options: RetargetOptions' fields by name (root, lock_feet,
    ground, arm_space; options.py), the defaults for those not given (RetargetError for a
    name or value it does not know)."""
    opts = RetargetOptions.of(**options)
    if clip.rotations.shape[1] != len(source):
        raise RetargetError(f"{source_label}: the clip has {clip.rotations.shape[1]} joints, the skeleton {len(source)}")
    if not (np.isfinite(clip.rotations).all() and np.isfinite(clip.translations).all()):
        raise RetargetError(f"{source_label}: the clip has non-finite rotations or translations")
    s = find_roles(source, clip.frame(0), source_label)
    t = find_roles(target, target_pose, target_label)
    pairs, mapped = map_joints(t, s)
    s_pos, s_quat = source.fk(Pose(clip.rotations, clip.translations))
    place = placement(t, s, s_pos, opts.root, clip.frame_rate)
    contacts = contacts_of(source, clip, {r: s.limbs[r] for r in LEGS})
    # Roles read in a frame of the clip (no rest pose to stand in): its feet may be anyhow
    # there (Bandai's first frame has a heel up), so a foot flat on the ground is read on a
    # planted frame. A rest pose stands flat (and a clip onto its own skeleton comes back).
    planted = {}
    if not s.at_rest:
        flat = {r: planted_frame(s_pos[:, s.limbs[r][-1]], contacts[r]) for r in LEGS}
        planted = {r: (s_pos[f], s_quat[f]) for r, f in flat.items() if f is not None}
    out = transfer(t, s, pairs, s_quat, s_pos, place, clip.frame_time, planted)
    t_pos, _ = target.fk(Pose(out.rotations, out.translations))
    goals, raised = {}, {}
    for role in LEGS:
        goal = place.world(s_pos[:, s.limbs[role][-1]])
        goal = lock(goal, contacts[role], clip.frame_rate) if opts.lock_feet else goal
        goal = goal if place.path is None else goal - place.path
        if opts.ground:
            ankle = t.limbs[role][-1]
            drop = t_pos[:, ankle, 1] - t_pos[:, foot_points(target, ankle), 1].min(axis=1)
            lift = clearance(s_pos[:, foot_points(source, s.limbs[role][-1]), 1], s.height) * t.height
            lifted = clear_of_floor(goal, drop, lift, clip.frame_rate)
            raised[role], goal = lifted[:, 1] - goal[:, 1], lifted
        goals[role] = goal
    if raised:
        # Where both feet are raised, the body goes up with them by the smaller raise: the
        # legs keep the bend they had (a foot pitched a few degrees down all along, as the
        # pybvh take's, is a figure set too low, not a reason to crouch).
        common = np.minimum(*(raised[r] for r in LEGS))
        set_world_position(target, out.rotations, out.translations, t.hips, t_pos[:, t.hips] + common[:, None] * UP)
    solved = solve_limbs(t, s, out, s_pos, s_quat, place, goals, opts.arm_space)
    pos, _ = target.fk(Pose(out.rotations, out.translations))
    slid = {r: slides(pos[:, t.limbs[r][-1]] + (0.0 if place.path is None else place.path), contacts[r]) for r in LEGS}
    return RetargetResult(out, target, mapped, solved, place.scale, contacts, slid, opts, bones_of(t, s), place.turn)
