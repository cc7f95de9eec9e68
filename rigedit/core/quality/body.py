"""What the quality measures read: a clip's world positions, the figure's height, and its body
parts by role (feet, legs, arms, torso) from the chain proposer (core/autochains).

Roles come from the hierarchy and the pose, never from joint names, so any humanoid file is
measured the same way. They are read in the reference pose: the taller of the skeleton's rest
pose and the clip's first frame of motion, when it shows two legs, else the other (a BVH rest
pose can be no pose at all: Bandai's lays every bone along +X, LaFAN1's lies flat).

The height every measure is scaled by (`height`) is the figure's standing height: its top joint
above its lowest in the rest pose or on the first frame of motion, whichever is taller (a rest
pose can lie flat, LaFAN1's; a T-pose and a standing first frame agree). Up is +Y and the ground is the plane y = 0, as the readers bring
every file in (metres, Y up).

A foot is the leg chain's tip (the ankle) and the joints below it (toe, toe end) that are not
on top of another one; its ball, what foot skate reads, is the ankle and the joint one bone
below it (the toe's base), as the literature's foot joints are (SMPL's ankle and foot). Joints are not soles: a planted ankle stands 4-12 cm up and a toe joint
up to 4 cm (Bandai's). So contact tests read heights above the foot's *floor*, where its lowest
point is when the foot is down (its CLEARANCE_PERCENT lowest over the clip, never below 0), as
the literature puts the floor at the motion's lowest foot joint; an ankle then stands its own
height above the toes and counts as low only when it comes down to them. Ground penetration
reads the raw heights against y = 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..autochains import find_hips, propose_chains
from ..clip import Clip
from ..lint.jumps import reference_frame
from ..skeleton import Pose, Skeleton

CLEARANCE_PERCENT = 1.0
SIDES = ("left", "right")
ZERO_BONE = 1e-6  # of the height: a joint this close to its parent is on top of it


@dataclass
class Body:
    skeleton: Skeleton
    pos: np.ndarray  # (frames, joints, 3) world positions, metres (file units)
    fps: float
    first: int  # the first frame of motion (1 when frame 0 is a reference pose, as lint decides)
    height: float  # the figure's height in its reference pose, file units
    hips: int | None
    spine: list[int]  # hips up to the neck's base (the torso's bones)
    legs: dict[str, list[int]]  # side -> hip .. ankle
    arms: dict[str, list[int]]  # side -> shoulder .. wrist
    feet: dict[str, list[int]] = field(default_factory=dict)  # side -> ankle and the distinct joints below it
    hands: dict[str, list[int]] = field(default_factory=dict)  # side -> wrist and the distinct joints below it
    balls: dict[str, list[int]] = field(default_factory=dict)  # side -> the ankle and the joint one bone below it (skate.py)

    @property
    def n_frames(self) -> int:
        return len(self.pos)

    @property
    def two_legged(self) -> bool:
        return len(self.legs) == 2

    @property
    def moving(self) -> np.ndarray:
        """The motion's positions (the reference frame left out)."""
        return self.pos[self.first :]

    def floor(self, side: str, points: list[int] | None = None) -> float:
        """Where the foot's lowest point (of `points`, default the whole foot) is when the foot
        is down (see the module docstring)."""
        low = self.moving[:, self.feet[side] if points is None else points, 1].min(axis=1)
        return max(0.0, float(np.percentile(low, CLEARANCE_PERCENT)))

    def foot_heights(self, side: str) -> np.ndarray:
        """(frames, points) each foot point's height above the foot's floor."""
        return self.pos[:, self.feet[side], 1] - self.floor(side)


def body_of(skeleton: Skeleton, clip: Clip) -> Body:
    """The Body of `clip` on `skeleton`. ValueError for a clip that is not one of this skeleton's
    or has non-finite values."""
    if clip.rotations.shape[1] != len(skeleton):
        raise ValueError(f"the clip has {clip.rotations.shape[1]} joints, the skeleton {len(skeleton)}")
    if not (np.isfinite(clip.rotations).all() and np.isfinite(clip.translations).all()):
        raise ValueError("the clip has non-finite rotations or translations")
    pos, _ = skeleton.fk(Pose(clip.rotations, clip.translations))
    pos = pos.reshape(clip.n_frames, len(skeleton), 3)
    first = 1 if reference_frame(clip.rotations) else 0
    pose, chains, hips = _roles(skeleton, clip.frame(first))
    ref, _ = skeleton.fk(pose)
    height = max(_tall(skeleton, skeleton.rest_pose()), float(np.ptp(pos[first, :, 1])), 1e-9)
    legs = _sided(chains, "leg")
    arms = _sided(chains, "arm")
    spine = ([hips] if hips is not None else []) + [j for j in chains.get("spine", []) if j != hips]
    neck = chains.get("head", [])[:1]
    spine += [j for j in neck if j not in spine]
    body = Body(skeleton, pos, clip.frame_rate, first, height, hips, spine, legs, arms)
    body.feet = {s: _below(skeleton, ref, leg[-1], height) for s, leg in legs.items()}
    body.hands = {s: _below(skeleton, ref, arm[-1], height) for s, arm in arms.items()}
    body.balls = {s: _below(skeleton, ref, leg[-1], height, bones=1) for s, leg in legs.items()}
    return body


def _tall(skeleton: Skeleton, pose: Pose) -> float:
    return float(np.ptp(skeleton.fk(pose)[0][:, 1])) if len(skeleton) > 1 else 0.0


def _roles(skeleton: Skeleton, first_frame: Pose):
    """(reference pose, chains by name as joint indices, hips index) from the taller of the rest
    pose and the first frame of motion when it shows two legs, else from the other."""
    found = None
    # The standing pose first: a rest pose lying flat (LaFAN1's) shows two legs with their
    # sides read wrong.
    for pose in sorted((skeleton.rest_pose(), first_frame), key=lambda p: -_tall(skeleton, p)):
        chains = {c.name: [skeleton.index(n) for n in c.joints] for c in propose_chains(skeleton, pose)}
        hips = find_hips(skeleton, pose)
        found = pose, chains, None if hips is None else skeleton.index(hips)
        if len(_sided(chains, "leg")) == 2 and hips is not None:
            break
    return found


def _sided(chains: dict, kind: str) -> dict[str, list[int]]:
    """left/right limbs of a kind ("leg", "arm") among the proposer's chains (a quadruped's
    hind legs count as its legs, its front legs as its arms)."""
    out = {}
    for side in SIDES:
        for name in (f"{side}_{kind}", f"hind_{side}_leg" if kind == "leg" else f"front_{side}_leg"):
            if name in chains:
                out[side] = chains[name]
                break
    return out


def _below(skeleton: Skeleton, ref: np.ndarray, joint: int, height: float, bones: int | None = None) -> list[int]:
    """`joint` and the joints under it, leaving out those on top of their parent; with `bones`,
    only those at most that many bones (of non-zero length) below it."""
    out, todo = [], [(joint, 0)]
    while todo:
        j, depth = todo.pop(0)
        p = int(skeleton.parents[j])
        if j != joint and np.linalg.norm(ref[j] - ref[p]) > ZERO_BONE * height:
            depth += 1
            if bones is not None and depth > bones:
                continue
            out.append(j)
        elif j == joint:
            out.append(j)
        todo += [(c, depth) for c in skeleton.children(j)]
    return out
