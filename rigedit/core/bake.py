"""Bake a rig's IK over a whole clip into a new clip.

Each frame is what `Rig.solve` gives at that frame's time, chain by chain in the rig's order:
the animated pose of the frame, each chain solved from there (its root's parent taken from
the pose built so far, so an arm sees the solved spine), each bone turned by the shortest arc
toward the solution, and the result slerped with the animated rotations by the chain's weight.
Weights, targets and poles come from the timeline where it has keys, else from the chain.

Every frame is solved from its own animated pose, never warm-started from the frame before,
so the frames are independent: a frame baked equals `rig.reset(); rig.solve()` at its time,
and bone twist follows the animation. (The editor's live solve warm-starts each chain from
its last solution, so during playback twist and FABRIK's answer can drift from the bake.)
The frames go through Rig.solve's own compiled frame (ik/frame_kernel.solve_frames: the
rig's chains packed once, frame_pack.FrameTables, every frame solved cold in one call per
block of frames), so the bake has no solver path of its own; input a solver refuses stops
the bake with the error Rig.solve would raise, naming the frame.

With every weight 0 the baked clip is the input clip, bit for bit. The pose layer (issue 25,
rig_posing.py) is on each frame's animated pose, evaluated at the frame's time.

A chain following the clip (issue 14, clip_goals.py) aims at the animated tip plus its
offset curve at each frame, with its pole placed from the animated bend frame after frame
(a straight frame keeps the side of the one before), as the live solve does; with no offset
keys its baked frames are the clip's to round-off.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .clip import Clip
from .clip_goals import clip_goal_frames
from .frame_pack import FrameState, FrameTables, tables_key
from .ik.frame_codes import I_GOAL, I_HAS_POLE, I_POLE, I_SIZE, I_WEIGHT, STOP_SPAN
from .rig_frame import compiled_kernel, refused
from .rig_posing import layered_frames
from .transforms import quat_mul, quat_rotate

# Progress: called with (steps done, steps in all); returning False cancels the bake.
Progress = Callable[[int, int], "bool | None"]


class BakeCancelled(Exception):
    """The progress callback asked to stop; nothing was changed."""


@dataclass
class BakeResult:
    clip: Clip
    errors: dict[str, np.ndarray]  # chain -> (frames,) tip distance to its target after IK, before blending
    reached: dict[str, np.ndarray]  # chain -> (frames,) bool, error within the chain's tolerance

    def summary(self) -> str:
        lines = [f"{self.clip.n_frames} frames at {self.clip.frame_rate:.4g} fps"]
        for name, err in self.errors.items():
            ok = int(self.reached[name].sum())
            lines.append(f"  {name}: reached {ok}/{len(err)} frames, largest miss {err.max() * 1000:.3g} mm")
        return "\n".join(lines)


def bake(rig, *, timeline=None, progress: Progress | None = None, frames=None) -> BakeResult:
    """Solve `rig` at every frame of its clip (or of the timeline's range, on the rest pose, when
    it has no clip) and return the baked clip. The rig itself is not changed.

    `frames`: only these frame numbers (of the clip, or of the timeline without one), in the
    order given; the result's clip then holds just those frames (the editor's onion skin and
    motion trails solve a window around the playhead this way)."""
    timeline = rig.timeline if timeline is None else timeline
    if getattr(rig, "ground", None) is not None or getattr(rig, "gait", None) is not None:
        return _bake_by_solving(rig, timeline, progress, frames)  # issue 8 (INTEGRATION)
    rot, trans, times, frame_time = _frames(rig, timeline, frames)
    names = rig.chain_names
    inputs = _inputs(rig, timeline, rot, trans, times)
    first = trans[0] if len(trans) else rig.skeleton.rest_pose().translations
    offsets = {name: [tuple(v) for v in first[plan.idx].tolist()] for name, plan in rig.plans.items()}
    tables = FrameTables(rig, tables_key(rig, rig.frame_board.stamps), offsets)
    out = np.zeros((len(times),) + tables.out.shape)
    _solve_frames(rig, tables, inputs, rot, trans, times, out, progress)
    errors = {name: out[:, c, 0].copy() for c, name in enumerate(names)}
    reached = {name: errors[name] <= rig.chain(name).tolerance for name in names}
    return BakeResult(Clip(rot, trans, frame_time), errors, reached)


BLOCK = 64  # frames a compiled call: progress is reported, and a cancel heard, between blocks


def _solve_frames(rig, tables, inputs, rot, trans, times, out, progress: Progress | None) -> None:
    """Every frame through the compiled frame (frame_kernel.solve_frames), cold, in blocks;
    `rot` becomes the solved poses and `out` the reports."""
    kernel = compiled_kernel()
    fresh = FrameState(tables)
    n, f = len(times), 0
    span = len(tables.names) * STOP_SPAN
    _report(progress, 0, n)
    while f < n:
        end = min(n, f + BLOCK)
        stopped = kernel.solve_frames(tables.table, tables.floats, inputs[f:end], rot[f:end], trans[f:end], fresh.state,
                                      fresh.slots, out[f:end])  # fmt: skip
        if stopped >= 0:
            at, code = divmod(stopped, span)
            raise ValueError(f"frame {f + at} (time {float(times[f + at]):.6g} s): {refused(rig, tables.names, code)}")
        f = end
        _report(progress, f, n)


def _inputs(rig, timeline, rot, trans, times) -> np.ndarray:
    """Every frame's goal, pole and weight per chain (frames, chains, I_SIZE), as the
    timeline sets them, follow-clip chains aiming where the clip puts their tips."""
    follow = rig.clip is not None and any(ch.follow_clip for ch in rig.chains)
    animated = _world_all(rot, trans, [int(p) for p in rig.skeleton.parents]) if follow else None
    inputs = np.zeros((len(times), len(rig.chain_names), I_SIZE))
    for c, (name, ch) in enumerate(rig.chains_by_name.items()):
        weight, target, pole = _settings(ch, timeline, times)
        if follow and ch.follow_clip:
            target, pole = clip_goal_frames(ch, rig.plans[name].idx, animated, times)
        inputs[:, c, I_GOAL:I_GOAL + 3], inputs[:, c, I_WEIGHT] = target, weight
        if pole is not None:
            inputs[:, c, I_POLE:I_POLE + 3], inputs[:, c, I_HAS_POLE] = pole, 1.0
    return inputs


def _bake_by_solving(rig, timeline, progress: Progress | None, frames=None) -> BakeResult:
    """Issue 8: a rig whose solve depends on more than the frame's own inputs (feet on a
    ground move the pelvis; a gait remembers where feet were planted) is baked by playing it
    frame by frame through Rig.solve, on a copy, as the editor plays it."""
    rot, trans, times, frame_time = _frames(rig, timeline, frames)
    work = rig.copy()
    poses_rot, poses_trans = [], []
    errors = {name: np.zeros(len(times)) for name in work.chain_names}
    for f, t in enumerate(times):
        if timeline is not None:
            timeline.apply(work, float(t))
        else:
            work.time = float(t)
        work.advance_gait(None if f == 0 else float(times[f] - times[f - 1]))
        reports = work.solve()
        pose = work.pose
        poses_rot.append(pose.rotations)
        poses_trans.append(pose.translations)
        for name, r in reports.items():
            errors[name][f] = r.error
        _report(progress, f + 1, len(times))
    reached = {name: errors[name] <= work.chain(name).tolerance for name in errors}
    return BakeResult(Clip(np.array(poses_rot), np.array(poses_trans), frame_time), errors, reached)


def _report(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None and progress(done, total) is False:
        raise BakeCancelled(f"bake cancelled after {done} of {total} steps")


def _frames(rig, timeline, frames=None):
    """Each frame's animated pose (rotations, translations), times and frame time: the
    clip's frames, or the rest pose over the timeline's range, with the pose layer on;
    only `frames` (frame numbers) when given."""
    rot, trans, times, frame_time, first = _base_frames(rig, timeline)
    if frames is not None:
        pick = np.asarray(frames, dtype=np.int64) - first
        if pick.ndim != 1 or np.any(pick < 0) or np.any(pick >= len(times)):
            raise ValueError(f"bake frames must be frame numbers from {first} to {first + len(times) - 1}, got {frames!r}")
        rot, trans, times = rot[pick], trans[pick], times[pick]
    rot, trans = layered_frames(rig.pose_layer, rot, trans, times, rig.skeleton, rig.root_indices())
    return rot, trans, times, frame_time


def _base_frames(rig, timeline):
    """Every frame's rotations and translations before the pose layer, times, frame time,
    and the number of the first frame (0 for a clip; the timeline's first without one)."""
    clip = rig.clip
    if clip is not None:
        times = np.arange(clip.n_frames) * clip.frame_time
        return clip.rotations.copy(), clip.translations.copy(), times, clip.frame_time, 0
    rest = rig.skeleton.rest_pose()
    first = 0
    if timeline is None:
        times = np.array([float(rig.time)])
        frame_time = 1.0 / 30.0
    else:
        first = timeline.first_frame
        times = np.arange(first, timeline.last_frame + 1) / timeline.frame_rate
        frame_time = 1.0 / timeline.frame_rate
    n = len(times)
    return (np.broadcast_to(rest.rotations, (n,) + rest.rotations.shape).copy(),
            np.broadcast_to(rest.translations, (n,) + rest.translations.shape).copy(), times, frame_time, first)


def _settings(ch, timeline, times: np.ndarray):
    """Per-frame weight (F,), target (F, 3) and pole (F, 3) or None, as Timeline.apply sets them."""
    n = len(times)
    track = None if timeline is None else timeline.track(ch.name)
    weight = track.weight.sample(times) if track is not None and len(track.weight) else np.full(n, ch.weight)
    if track is not None and len(track.target):
        target = track.target.sample(times)
    else:
        target = np.broadcast_to(np.asarray(ch.target, dtype=np.float64), (n, 3)).copy()
    if track is not None and len(track.pole):
        pole = track.pole.sample(times)
    elif ch.pole is not None:
        pole = np.broadcast_to(np.asarray(ch.pole, dtype=np.float64), (n, 3)).copy()
    else:
        pole = None
    return np.asarray(weight, dtype=np.float64), target, pole


def _world_all(rot: np.ndarray, trans: np.ndarray, parents: list[int]) -> np.ndarray:
    """World positions (F, joints, 3) of every joint over the frames (parents come first)."""
    n = rot.shape[1]
    pos = np.zeros(trans.shape)
    q = np.zeros(rot.shape)
    for j in range(n):
        p = parents[j]
        if p < 0:
            pos[:, j] = trans[:, j]
            q[:, j] = rot[:, j]
        else:
            pos[:, j] = pos[:, p] + quat_rotate(q[:, p], trans[:, j])
            q[:, j] = quat_mul(q[:, p], rot[:, j])
    return pos
