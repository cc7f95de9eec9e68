"""A skeleton's body parts by role, from the chain proposer (core/autochains): the hips, the
spine and head chains, each limb's joints, and which way the figure faces.

Roles are what the proposer names its chains ("left_leg", "spine"...) from the hierarchy and
the pose, never from joint names, so a CMU, Bandai, Mixamo or glTF skeleton and the bundled
humanoid all come out in the same terms.

The pose the roles are read in is the skeleton's rest pose when that is a standing figure
with two legs, else the clip's first frame: a BVH file's rest pose can be no pose at all
(Bandai's lays every bone along +X, which the proposer reads as a quadruped).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..autochains import facing_of, find_hips, propose_chains
from ..skeleton import Pose, Skeleton
from .errors import RetargetError

LEGS = ("left_leg", "right_leg")
ARMS = ("left_arm", "right_arm")
UP = np.array([0.0, 1.0, 0.0])


@dataclass
class Roles:
    skeleton: Skeleton
    pose: Pose  # the reference pose the roles and the facing were read in
    pos: np.ndarray  # (joints, 3) world positions in that pose
    quat: np.ndarray  # (joints, 4) world rotations in that pose
    hips: int
    spine: list[int]
    head: list[int]
    limbs: dict[str, list[int]]  # role -> joints root to tip (legs and arms)
    forward: np.ndarray  # horizontal unit vector the figure faces
    at_rest: bool = True  # the reference pose is the skeleton's rest pose (not a clip's frame)

    @property
    def left(self) -> np.ndarray:
        return np.cross(UP, self.forward)

    def limb_length(self, role: str) -> float:
        j = self.limbs[role]
        return float(sum(np.linalg.norm(self.pos[b] - self.pos[a]) for a, b in zip(j, j[1:])))

    @property
    def height(self) -> float:
        """Top joint above lowest in the reference pose (the quality measures' height)."""
        return max(float(np.ptp(self.pos[:, 1])), 1e-9)

    def leg_length(self) -> float:
        return 0.5 * (self.limb_length(LEGS[0]) + self.limb_length(LEGS[1]))


def _read(skeleton: Skeleton, pose: Pose) -> tuple[dict, str | None, np.ndarray | None]:
    chains = {c.name: [skeleton.index(n) for n in c.joints] for c in propose_chains(skeleton, pose)}
    return chains, find_hips(skeleton, pose), facing_of(skeleton, pose)


def _usable(chains: dict, hips, forward) -> bool:
    return hips is not None and forward is not None and all(r in chains for r in LEGS)


def find_roles(skeleton: Skeleton, first_frame: Pose | None, label: str) -> Roles:
    """The roles of `skeleton`, read in its rest pose or else `first_frame`; RetargetError
    naming `label` when neither shows a figure with two legs."""
    tried = [skeleton.rest_pose()] + ([first_frame] if first_frame is not None else [])
    found = None
    for pose in tried:
        chains, hips, forward = _read(skeleton, pose)
        if _usable(chains, hips, forward):
            found = pose, chains, hips, forward
            break
    if found is None:
        chains, hips, forward = _read(skeleton, tried[-1])
        if hips is None or not all(r in chains for r in LEGS):
            have = ", ".join(sorted(chains)) or "no chains"
            raise RetargetError(f"{label}: no left and right legs found in the skeleton ({len(skeleton)} joints; found {have}); "
                                "retargeting needs a two-legged figure")
        raise RetargetError(f"{label}: cannot tell which way the figure faces (no toes, bent knees or side names)")
    pose, chains, hips, forward = found
    pos, quat = skeleton.fk(pose)
    limbs = {r: chains[r] for r in LEGS + ARMS if r in chains}
    return Roles(skeleton, pose, pos, quat, skeleton.index(hips), chains.get("spine", []), chains.get("head", []), limbs,
                 forward, at_rest=pose is tried[0])
