"""The figure's size: the length export tolerances are relative to.

"Within 1e-5 of the figure" means of this length: the largest diagonal of the box around the
joints in any one frame (the rest pose when there is no clip). Per frame, so a walk across a
room does not make the figure as big as the room.
"""
from __future__ import annotations

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Pose, Skeleton


def figure_size(skeleton: Skeleton, clip: Clip | None = None) -> float:
    """Metres; 1.0 for a figure with no extent (one joint, or all joints at one point)."""
    pose = skeleton.rest_pose() if clip is None else Pose(clip.rotations, clip.translations)
    pos, _ = skeleton.fk(pose)
    pos = pos.reshape(-1, len(skeleton), 3)
    size = float(np.linalg.norm(np.ptp(pos, axis=1), axis=-1).max()) if pos.size else 0.0
    return size if size > 0 and np.isfinite(size) else 1.0


def world_positions(skeleton: Skeleton, clip: Clip | None = None) -> np.ndarray:
    """Joint world positions (frames, joints, 3): the clip's, or the rest pose as one frame."""
    if clip is None:
        pos, _ = skeleton.fk(skeleton.rest_pose())
        return pos[None]
    pos, _ = skeleton.fk(Pose(clip.rotations, clip.translations))
    return pos
