"""FABRIK on a skeleton: solve the chain's FK positions, write the answer back as rotations.

    pose, r = solve_fabrik_pose(skeleton, pose, joints, target, *, tolerance=1e-3,
                                max_iterations=10, limits=None, warm_points=None, pole=None)

joints: joint names or skeleton indices, root to tip (a connected chain).
limits: {joint name or skeleton index: HingeLimit | ConeLimit}. Frames come from the
    skeleton: a limit on a chain joint is measured against the bone entering it, and a
    hinge's axis is in that bone's frame, i.e. the world rotation of the previous chain
    joint. For the chain root that is its skeleton parent (the direction from the nearest
    ancestor at a distance, the frame of the parent joint); a limit on a chain root with no
    parent bone is refused.
warm_points: (n, 3) to start from instead of the pose's own positions (e.g. the last
    frame's answer over a new animated pose); the chain is first turned toward them, so its
    frames follow, and only their directions count: the skeleton keeps its bone lengths.

Unlimited, the result is written with `skeleton.write_chain_positions` (shortest-arc turns,
twist kept). Limited, the chain's joints take the bones' frames the solver carried pass by
pass (r.frames), the frames its limits were held in, so the limits hold in the returned pose.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..skeleton import Pose, Skeleton, write_chain_positions
from ..transforms import quat_conj, quat_mul, quat_normalize
from ._floats import TINY
from .chain_frames import ChainLimits
from .fabrik import FabrikResult, fabrik


def solve_fabrik_pose(
    skeleton: Skeleton,
    pose: Pose,
    joints,
    target,
    *,
    tolerance=1e-3,
    max_iterations=10,
    limits: Mapping | None = None,
    warm_points=None,
    pole=None,
    arc_start=True,
) -> tuple[Pose, FabrikResult]:
    chain = chain_of(skeleton, joints)
    if np.asarray(pose.rotations).ndim != 2:
        raise ValueError("solve_fabrik_pose solves one pose; got rotations of shape " f"{np.shape(pose.rotations)}")
    if warm_points is not None:
        warm = np.asarray(warm_points, dtype=np.float64)
        if warm.shape != (len(chain), 3) or not np.all(np.isfinite(warm)):
            raise ValueError(f"warm_points must be ({len(chain)}, 3) finite numbers, got shape {warm.shape}")
        pose = write_chain_positions(skeleton, pose, chain, warm)
    pos, rot = skeleton.fk(pose)
    chain_limits = _chain_limits(skeleton, chain, pos, rot, limits) if limits else None
    r = fabrik(
        pos[chain],
        target,
        tolerance=tolerance,
        max_iterations=max_iterations,
        limits=chain_limits,
        pole=pole,
        arc_start=arc_start,
    )
    if r.frames is None:
        return write_chain_positions(skeleton, pose, chain, r.points), r
    return write_chain_frames(skeleton, pose, chain, r.frames, rot), r


def write_chain_frames(skeleton: Skeleton, pose: Pose, chain: list[int], frames, world) -> Pose:
    """`pose` with the chain's joints but the tip turned to the world rotations `frames`
    ((n - 1, 4)), under the chain root's parent as `world` (the pose's FK rotations) has it."""
    parent = int(skeleton.parents[chain[0]])
    above = world[parent] if parent >= 0 else np.array([0.0, 0.0, 0.0, 1.0])
    parents = np.vstack([above[None], frames[:-1]])
    rotations = np.array(pose.rotations, dtype=np.float64)
    rotations[chain[:-1]] = quat_normalize(quat_mul(quat_conj(parents), frames))
    return Pose(rotations, np.array(pose.translations, dtype=np.float64))


def chain_of(skeleton: Skeleton, joints) -> list[int]:
    """Skeleton indices of a connected chain given by names or indices."""
    if isinstance(joints, (str, bytes)) or len(joints) < 2:
        raise ValueError(f"a chain needs at least 2 joints, root to tip; got {joints!r}")
    idx = [_joint_index(skeleton, j) for j in joints]
    for a, b in zip(idx, idx[1:]):
        if skeleton.parents[b] != a:
            raise ValueError(f"{skeleton.names[b]!r} is not a child of {skeleton.names[a]!r}")
    return idx


def _joint_index(skeleton: Skeleton, j) -> int:
    if isinstance(j, str):
        return skeleton.index(j)
    if isinstance(j, (int, np.integer)) and not isinstance(j, bool) and 0 <= j < len(skeleton):
        return int(j)
    raise ValueError(f"{j!r} is neither a joint name nor a joint index of this {len(skeleton)}-joint skeleton")


def _chain_limits(skeleton, chain, pos, rot, limits) -> ChainLimits:
    if not isinstance(limits, Mapping):
        raise ValueError(f"limits must map joint name or index -> limit, got {type(limits).__name__}")
    where = {j: k for k, j in enumerate(chain)}
    keyed = {}
    for key, lim in limits.items():
        try:
            j = _joint_index(skeleton, key)
        except KeyError:
            raise ValueError(f"limit on {key!r}: no such joint") from None
        if j not in where:
            raise ValueError(f"limit on {skeleton.names[j]!r}, which is not in the chain")
        keyed[where[j]] = lim
    parent = int(skeleton.parents[chain[0]])
    root_frame = rot[parent] if parent >= 0 else None
    root_dir = _incoming_direction(skeleton, chain[0], pos)
    if keyed.get(0) is not None and root_dir is None:
        raise ValueError(
            f"limit on {skeleton.names[chain[0]]!r}: the chain root has no parent bone to measure it against"
        )
    return ChainLimits(keyed, root_dir=root_dir, root_frame=root_frame, frames=rot[chain[:-1]])


def _incoming_direction(skeleton, joint, pos):
    """Direction of the bone entering `joint`: from the nearest ancestor not on top of it."""
    p = int(skeleton.parents[joint])
    while p >= 0:
        v = pos[joint] - pos[p]
        if np.linalg.norm(v) > TINY:
            return v
        p = int(skeleton.parents[p])
    return None
