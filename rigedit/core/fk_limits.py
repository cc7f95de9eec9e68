"""Joint limits on a hand-set (FK) rotation: the least turn that brings a joint back within
the limit a chain gives it, through the one clamp every solver uses (`ik/limits.clamp_bone`).

A chain's limit on a joint constrains the bone leaving it (joint -> the chain's next joint)
against the bone entering it, measured as the lint measures it (`lint/limits.py`): the bone
in is the chain's previous joint, or for the chain's first joint its nearest ancestor not on
top of it; a hinge's axis is in the bone in's frame. A chain at weight 0 is switched off and
its limits with it (as IK limits in Blender hold the IK only), so a joint rotates freely there.
At weight > 0 the chain's IK blends over the joints it turns (`overruling_chain`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ik.limits import Limit, clamp_bone
from .skeleton import Pose, Skeleton
from .transforms import TINY, quat_between, quat_conj, quat_mul, quat_normalize


@dataclass(frozen=True)
class JointLimit:
    """A limit on joint `joint`, measured with the bone prev -> joint in and joint -> nxt out;
    `frame` is the joint whose world rotation a hinge's axis is given in."""

    chain: str
    limit: Limit
    joint: int
    prev: int
    nxt: int
    frame: int


def joint_limit(rig, name: str, *, active_only: bool = True) -> JointLimit | None:
    """The limit a chain puts on joint `name` (the first chain that limits it), or None. With
    `active_only`, chains at weight 0 are left out."""
    sk = rig.skeleton
    j = sk.index(name)
    for ch in rig.chains:
        lim = ch.limits.get(name)
        if lim is None or (active_only and ch.weight <= 0.0):
            continue
        idx = [sk.index(n) for n in ch.joints]
        k = idx.index(j)
        if k + 1 >= len(idx):
            continue  # a limit needs a bone out
        prev = idx[k - 1] if k > 0 else _ancestor_apart(sk, j)
        if prev is None:
            continue
        frame = prev if k > 0 else int(sk.parents[j])
        return JointLimit(ch.name, lim, j, prev, idx[k + 1], frame)
    return None


def overruling_chain(rig, name: str):
    """The chain whose IK turns joint `name` at weight > 0 (its result blends over the
    joint's own rotation; at weight 1 it replaces it), or None."""
    return next((ch for ch in rig.chains if name in ch.joints[:-1] and ch.weight > 0.0), None)


def clamp_rotation(skeleton: Skeleton, pose: Pose, jl: JointLimit) -> np.ndarray:
    """Joint jl.joint's local rotation in `pose` turned the least so that its bone out keeps
    within jl.limit (unchanged when it already does). The twist about the bone is kept."""
    pos, world = skeleton.fk(pose)
    j = jl.joint
    bone, parent_bone = pos[jl.nxt] - pos[j], pos[j] - pos[jl.prev]
    if np.linalg.norm(bone) <= TINY or np.linalg.norm(parent_bone) <= TINY:
        return pose.rotations[j].copy()  # a bone of no length has no direction to limit
    try:
        allowed = clamp_bone(jl.limit, parent_bone, world[jl.frame], bone)
    except ValueError:  # a hinge axis along the bone in (this pose): no plane to bend in
        return pose.rotations[j].copy()
    turned = quat_mul(quat_between(bone, allowed), world[j])
    p = int(skeleton.parents[j])
    local = turned if p < 0 else quat_mul(quat_conj(world[p]), turned)
    return quat_normalize(local)


def _ancestor_apart(skeleton: Skeleton, joint: int) -> int | None:
    """The nearest ancestor not on top of `joint` at rest, or None."""
    j = joint
    while skeleton.parents[j] >= 0:
        if np.linalg.norm(skeleton.offsets[j]) > 0.0:
            return int(skeleton.parents[j])
        j = int(skeleton.parents[j])
    return None
