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
A two-bone limb without limits is solved for all frames in one vectorised call,
`two_bone_ik_batch`, after FK along just the chain's ancestors (a few quaternion products
over a leading frame axis); FABRIK chains and limited limbs go frame by frame through the
rig's own per-chain solve.

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

from . import scalar_quat as sq
from .clip import Clip
from .clip_goals import clip_goal_frames
from .ik import registry, two_bone_ik_batch
from .bone_turns import chain_pose
from .rig_posing import layered
from .rig_solve import turn_toward
from .skeleton import Pose
from .rig_uses import aimed_targets, look_at_frames
from .transforms import quat_between, quat_conj, quat_mul, quat_normalize, quat_rotate, quat_slerp

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
    skeleton = rig.skeleton
    parents = [int(p) for p in skeleton.parents]
    chains = list(rig.chains)
    steps = sum(rot.shape[0] if _per_frame(ch) else 1 for ch in chains)
    done = 0
    _report(progress, done, steps)
    errors, reached = {}, {}
    follow = rig.clip is not None and any(ch.follow_clip for ch in chains)
    animated = _world_all(rot, trans, parents) if follow else None  # before any chain turns a joint
    for ch in chains:
        idx = skeleton.chain_indices(list(ch.joints))
        weight, target, pole = _settings(ch, timeline, times)
        if follow and ch.follow_clip:
            target, pole = clip_goal_frames(ch, idx, animated, times)
        base_pos, base_rot = _world(rot, trans, parents, parents[idx[0]])
        # --- issue 8 (INTEGRATION): look_at chains and the reach clamp / soft IK, as Rig.solve does them
        if not registry.get(ch.solver).reaches:
            ik, err = look_at_frames(skeleton, ch, idx, rot, trans, target)
            errors[ch.name], reached[ch.name] = err, err <= ch.tolerance
            done += 1
            _report(progress, done, steps)
            if np.any(weight != 0.0):
                blended = quat_slerp(rot[:, idx], ik, weight[:, None])
                rot[:, idx] = np.where((weight != 0.0)[:, None, None], blended, rot[:, idx])
            continue
        aim = aimed_targets(ch, base_pos, base_rot, trans, idx, target)
        # --- end issue 8
        if _per_frame(ch):
            solved, ik = [], []
            for f in range(rot.shape[0]):
                s, q = _solve_frame(ch, base_pos[f], base_rot[f], rot[f], trans[f], idx, aim[f], None if pole is None else pole[f])
                solved.append(s)
                ik.append(q)
                done += 1
                if f % 16 == 15 or f == rot.shape[0] - 1:
                    _report(progress, done, steps)
            solved, ik = np.array(solved), np.array(ik)
        else:
            points = _chain_points(base_pos, base_rot, rot, trans, idx)
            r = two_bone_ik_batch(points[:, 0], points[:, 1], points[:, 2], aim, pole, eps=min(1e-6, ch.tolerance))
            solved = np.stack([points[:, 0], r.mid, r.end], axis=1)
            ik = _turn_toward(base_rot, rot[:, idx[:-1]], trans[:, idx], solved)
            done += 1
            _report(progress, done, steps)
        err = np.linalg.norm(solved[:, -1] - target, axis=-1)
        errors[ch.name], reached[ch.name] = err, err <= ch.tolerance
        moved = weight != 0.0
        if np.any(moved):
            blended = quat_slerp(rot[:, idx[:-1]], ik, weight[:, None])
            rot[:, idx[:-1]] = np.where(moved[:, None, None], blended, rot[:, idx[:-1]])
    return BakeResult(Clip(rot, trans, frame_time), errors, reached)


def _per_frame(ch) -> bool:
    """Chains the vectorised path does not cover (the solver's method says: the loop
    solvers, and limits): the rig's per-chain solve, frame by frame, so the two never disagree."""
    return not registry.get(ch.solver).method.bake_rows(ch)


def _solve_frame(ch, base_pos, base_rot, rot, trans, idx, target, pole):
    """One chain at one frame, started from the frame's animated pose, as Rig.solve does it."""
    c = ch.detached()  # a loose copy aims where it is told, clip or not
    c.target = target
    c.pole = pole
    base_pos, base_rot = tuple(base_pos.tolist()), tuple(base_rot.tolist())
    offsets = [tuple(trans[j].tolist()) for j in idx]
    current = [tuple(rot[j].tolist()) for j in idx[:-1]]
    points, frames = chain_pose(base_pos, base_rot, offsets, current)
    root_dir = sq.qrot(base_rot, offsets[0]) if c.joints[0] in c.limits else None
    solved, twists, limited = registry.get(c.solver).method.bake_frame(c, base_rot, points, frames, root_dir)
    if limited is not None:
        return solved, limited  # written in the frames its limits were held in
    if solved is points:
        return points, current  # already there: the rig keeps the rotations as they are, so do we
    return solved, turn_toward(base_rot, frames, points, solved, twists)


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
    layer = rig.pose_layer
    if not layer.is_empty:
        roots = rig.root_indices()
        for f, t in enumerate(times):
            shown = layered(layer, Pose(rot[f], trans[f]), float(t), rig.skeleton, roots)
            rot[f], trans[f] = shown.rotations, shown.translations
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


def _world(rot: np.ndarray, trans: np.ndarray, parents: list[int], j: int):
    """World position (F, 3) and rotation (F, 4) of joint j (the world origin for j = -1)."""
    n = rot.shape[0]
    pos = np.zeros((n, 3))
    q = np.zeros((n, 4))
    q[:, 3] = 1.0
    path = []
    while j >= 0:
        path.append(j)
        j = parents[j]
    for k in reversed(path):
        pos = pos + quat_rotate(q, trans[:, k])
        q = quat_mul(q, rot[:, k])
    return pos, q


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


def _chain_points(base_pos, base_rot, rot, trans, idx) -> np.ndarray:
    q = base_rot
    pos = base_pos + quat_rotate(q, trans[:, idx[0]])
    out = [pos]
    for j, child in zip(idx, idx[1:]):
        q = quat_mul(q, rot[:, j])
        pos = pos + quat_rotate(q, trans[:, child])
        out.append(pos)
    return np.stack(out, axis=1)


def _turn_toward(base_rot, rots, offsets, solved) -> np.ndarray:
    """Local rotations (F, k-1, 4) turning each bone by the shortest arc onto the solved
    positions, keeping its twist: skeleton.write_chain_positions over a frame axis."""
    out = np.empty(rots.shape)
    parent_world = base_rot
    world = quat_mul(base_rot, rots[:, 0])
    last = rots.shape[1] - 1
    for k in range(rots.shape[1]):
        cur_dir = quat_rotate(world, offsets[:, k + 1])
        new_dir = solved[:, k + 1] - solved[:, k]
        new_world = quat_normalize(quat_mul(quat_between(cur_dir, new_dir), world))
        out[:, k] = quat_normalize(quat_mul(quat_conj(parent_world), new_world))
        if k < last:
            parent_world = new_world
            world = quat_normalize(quat_mul(new_world, rots[:, k + 1]))
    return out
