"""Goals for the full-body tests and benchmark on the bundled humanoid: hand reaches past the
arm's length, and whole-body poses whose goals a body can meet (made from a real pose)."""
from __future__ import annotations

import numpy as np

import rigedit
from rigedit.core import scalar_quat as sq
from rigedit.core.skeleton import Pose

TIPS = {"spine": "Neck", "left_arm": "LeftHand", "right_arm": "RightHand", "left_leg": "LeftFoot", "right_leg": "RightFoot"}
FEET = ("LeftFoot", "RightFoot")


def humanoid() -> rigedit.Rig:
    rig = rigedit.Rig.default()
    rig.solve()
    return rig


def arm_reach(rig, chain: str = "left_arm") -> tuple[np.ndarray, float]:
    """The arm's shoulder (chain root) and its reach (the bones' summed lengths)."""
    p = [rig.world_position(j) for j in rig.chain(chain).joints]
    return p[0], float(np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[1]))


def reach_goals(rig, rng, n: int, chain: str = "left_arm", lo: float = 1.15, hi: float = 1.35) -> list[np.ndarray]:
    """n hand goals at lo..hi times the arm's reach from the shoulder, in front (+z, within
    45 degrees to either side), from level with the shoulder to 60 degrees below."""
    shoulder, reach = arm_reach(rig, chain)
    out = []
    for _ in range(n):
        k = rng.uniform(lo, hi)
        el, az = np.radians(rng.uniform(-60.0, 0.0)), np.radians(rng.uniform(-45.0, 45.0))
        d = np.array([np.cos(el) * np.sin(az), np.sin(el), np.cos(el) * np.cos(az)])
        out.append(shoulder + k * reach * d)
    return out


def _turn(rng, max_deg: float):
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    a = np.radians(rng.uniform(0.0, max_deg))
    return (*(axis * np.sin(a / 2)), np.cos(a / 2))


def body_goals(rig, rng) -> dict[str, np.ndarray]:
    """Goals for both hands, the head (spine tip) and both feet at once, all met by one pose:
    knees bent by a per-chain solve, the hips moved and turned, the spine bent within its
    cones, the feet where that pose puts them, the hands within reach of its shoulders."""
    bent = rig.copy()
    for chain, foot in (("left_leg", "LeftFoot"), ("right_leg", "RightFoot")):
        lift = np.array([rng.uniform(-0.03, 0.03), rng.uniform(0.05, 0.12), rng.uniform(0.0, 0.06)])
        bent.chain(chain).target = rig.world_position(foot) + lift
    bent.solve()
    rot, trans = bent.pose.rotations.copy(), bent.pose.translations.copy()
    names = list(rig.skeleton.names)
    trans[0] += np.array([rng.uniform(-0.03, 0.03), rng.uniform(-0.06, 0.0), rng.uniform(-0.03, 0.03)])
    rot[0] = sq.qmul(_turn(rng, 5.0), tuple(rot[0]))
    for j in ("Spine1", "Spine2", "Chest"):
        k = names.index(j)
        rot[k] = sq.qmul(_turn(rng, 12.0), tuple(rot[k]))
    pos, _ = rig.skeleton.fk(Pose(rot, trans))
    goals = {c: pos[names.index(t)].copy() for c, t in TIPS.items()}
    for chain in ("left_arm", "right_arm"):
        shoulder = pos[names.index(rig.chain(chain).joints[0])]
        d = rng.normal(size=3)
        goals[chain] = shoulder + d / np.linalg.norm(d) * rng.uniform(0.2, 0.5)
    return goals
