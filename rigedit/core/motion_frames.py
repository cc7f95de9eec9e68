"""The rig's shown pose at chosen frames, as world joint positions: what onion skins and
motion trails draw.

A frame's pose is the bake's (bake.py: the clip or rest pose, the timeline's keys, every
chain solved from the frame's own animated pose), so a ghost equals `rig.reset();
rig.solve()` at its time on a copy of the rig; no second evaluator. Frames are numbered as
the bake numbers them: the clip's frames (0 at 0 s) when there is a clip, else the
timeline's.
"""
from __future__ import annotations

import math

import numpy as np

from .bake import bake
from .skeleton import Pose


def frame_span(rig, timeline=None) -> tuple[int, int, float]:
    """(first frame, last frame, seconds per frame) of what `frame_positions` can solve."""
    timeline = rig.timeline if timeline is None else timeline
    clip = rig.clip
    if clip is not None:
        return 0, clip.n_frames - 1, clip.frame_time
    return timeline.first_frame, timeline.last_frame, 1.0 / timeline.frame_rate


def frame_at(rig, time: float, timeline=None) -> int:
    """The frame nearest `time` (half a frame rounds up), within the span."""
    first, last, dt = frame_span(rig, timeline)
    return min(max(math.floor(float(time) / dt + 0.5), first), last)


def frame_positions(rig, frames, timeline=None) -> np.ndarray:
    """World positions (len(frames), joints, 3) of the rig's solved pose at each frame.
    The rig itself is not changed."""
    frames = [int(f) for f in frames]
    if not frames:
        return np.zeros((0, len(rig.skeleton), 3))
    baked = bake(rig, timeline=timeline, frames=frames).clip
    return rig.skeleton.fk_matrices(Pose(baked.rotations, baked.translations))[0]
