"""Look-at: turn a head (eye, turret) so its forward axis points at a target.

The turn is spread over several joints (neck and head share it by weights) and limited to a
cone around the forward direction the head has in the incoming pose, so the look-at is a
layer over the animation: when the body turns, the cone turns with it.

Why swings, not look-at matrices: a "look-at matrix" rebuilds the head frame from the aim
direction and a world up vector, and that frame spins 180 degrees about the aim as the target
passes overhead (up and aim become parallel, then cross). Here every turn is the shortest-arc
swing from the head's current forward to the aim, measured from the incoming pose. A swing
never adds roll about the forward axis, and as the target moves over the head the swing axis
(perpendicular to both directions) stays put, so the up vector moves continuously. The only
discontinuity left is inherent: a target exactly behind a cone-limited head, where left and
right are equally short. A target nearly behind turns the head along the great circle from
where it looked toward the target, which can run over or under rather than sideways (the
cone boundary point nearest the target is on that circle).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..skeleton import Pose, Skeleton
from ..transforms import TINY, quat_between, quat_conj, quat_from_axis_angle, quat_mul, quat_normalize, quat_rotate


def solve_look_at(
    skeleton: Skeleton,
    pose: Pose,
    joints: Sequence[str],
    weights: Sequence[float],
    target,
    forward_axis=(0.0, 0.0, 1.0),
    up_axis=(0.0, 1.0, 0.0),
    max_angle_deg: float = 80.0,
    *,
    max_twist_deg: float | None = None,
    blend: float = 1.0,
) -> Pose:
    """Return a new pose whose last joint in `joints` aims `forward_axis` at `target`.

    joints: names root-ward first, the aiming joint last; each must be an ancestor of the next.
    weights: each joint's share of the turn (normalised; [0.4, 0.6] = neck 40%, head 60%).
    The aim is exact when the aiming joint has a share (it turns last, about its own
    position); with weight only on its parents a near target is approximate.
    forward_axis, up_axis: in the aiming joint's local frame.
    max_angle_deg: the cone around the incoming forward direction the aim stays inside.
    max_twist_deg: if given, the head's roll about its forward axis away from level (see
    head_roll) is limited to this; 0 keeps the horizon level like a turret. Level is
    undefined looking straight up the incoming up axis, so a twist limit is flip-free only
    with a cone under 90 degrees; without one (None) the pure swing never flips.
    blend: 0 keeps the incoming pose, 1 aims fully; in between the aim angle is scaled.

    Pose and target may carry matching leading (frame) axes: a whole clip is solved at once.
    """
    idx, share = _check_joints(skeleton, joints, weights)
    fwd = _unit(forward_axis, "forward_axis")
    up = _unit(up_axis, "up_axis")
    if abs(np.dot(fwd, up)) > 1.0 - 1e-6:
        raise ValueError("look-at: up_axis must not be parallel to forward_axis")
    if not (np.isfinite(max_angle_deg) and 0.0 <= max_angle_deg <= 180.0):
        raise ValueError(f"look-at: max_angle_deg must be within [0, 180], got {max_angle_deg!r}")
    if max_twist_deg is not None and not (np.isfinite(max_twist_deg) and max_twist_deg >= 0.0):
        raise ValueError(f"look-at: max_twist_deg must be >= 0 or None, got {max_twist_deg!r}")
    if not (np.isfinite(blend) and 0.0 <= blend <= 1.0):
        raise ValueError(f"look-at: blend must be within [0, 1], got {blend!r}")
    target = np.asarray(target, dtype=np.float64)
    if target.shape[-1:] != (3,) or not np.all(np.isfinite(target)):
        raise ValueError(f"look-at: target must be finite points (..., 3), got shape {target.shape}")

    lead = np.broadcast_shapes(pose.rotations.shape[:-2], target.shape[:-1])
    n = len(skeleton)
    out = Pose(
        np.broadcast_to(pose.rotations, lead + (n, 4)).copy(),
        np.broadcast_to(pose.translations, lead + (n, 3)).copy(),
    )
    if blend == 0.0:
        return out

    head = idx[-1]
    # Only the joints from the root to the head matter (every turning joint is on that
    # path), so world transforms are walked down it and updated in place after each turn:
    # full FK per joint would cost 20x more on a 60-joint skeleton.
    path = _path_to(skeleton, head)
    at = {j: k for k, j in enumerate(path)}
    world, pos = _walk(out, path)
    ref_fwd = quat_rotate(world[-1], fwd)
    ref_up = quat_rotate(world[-1], up)
    max_angle = np.radians(max_angle_deg)

    # What is left for each joint and those after it; summed from the tip so a tiny weight
    # never leaves a round-off zero to divide by.
    left = np.cumsum(share[::-1])[::-1]
    last = max(k for k, w in enumerate(share) if w > 0.0)
    for k, (j, w) in enumerate(zip(idx, share)):
        if w <= 0.0:
            continue
        # This joint takes its share of what is left, so the last weighted joint finishes
        # the turn exactly from wherever the earlier ones moved the head to. Every swing
        # turns about the same axis (the normal of the plane holding the incoming forward
        # and the target, which a turn about that axis never leaves), so splitting the turn
        # adds no roll.
        frac = 1.0 if k == last else w / left[k]
        cur_fwd = quat_rotate(world[-1], fwd)
        aim = _aim(target - pos[-1], ref_fwd, cur_fwd, max_angle, blend)
        turn = _scale_rotation(quat_between(cur_fwd, aim), frac)
        _turn_at(out, path, at[j], world, pos, turn)

    if max_twist_deg is not None:
        new_fwd = quat_rotate(world[-1], fwd)
        roll = head_roll(ref_up, new_fwd, quat_rotate(world[-1], up))
        limit = np.radians(max_twist_deg)
        fix = quat_from_axis_angle(new_fwd, np.clip(roll, -limit, limit) - roll)
        _turn_at(out, path, len(path) - 1, world, pos, fix)
    return out


def _path_to(skeleton: Skeleton, joint: int) -> list[int]:
    path = [joint]
    while skeleton.parents[path[-1]] >= 0:
        path.append(int(skeleton.parents[path[-1]]))
    return path[::-1]


def _walk(pose: Pose, path: list[int]):
    """World rotations and positions of the joints on a root-to-joint path."""
    world = [pose.rotations[..., path[0], :]]
    pos = [pose.translations[..., path[0], :]]
    for j in path[1:]:
        pos.append(pos[-1] + quat_rotate(world[-1], pose.translations[..., j, :]))
        world.append(quat_mul(world[-1], pose.rotations[..., j, :]))
    return world, pos


def _turn_at(pose: Pose, path: list[int], k: int, world: list, pos: list, turn) -> None:
    """Turn path joint k by a world rotation about its own position: set its local rotation
    and carry the joints below it along."""
    j = path[k]
    for m in range(k, len(path)):
        world[m] = quat_normalize(quat_mul(turn, world[m]))
        if m > k:
            pos[m] = pos[k] + quat_rotate(turn, pos[m] - pos[k])
    parent = world[k - 1] if k > 0 else np.array([0.0, 0.0, 0.0, 1.0])
    pose.rotations[..., j, :] = quat_normalize(quat_mul(quat_conj(parent), world[k]))


def head_roll(ref_up, fwd, up) -> np.ndarray:
    """Signed roll (radians) of a head about its forward axis `fwd`, away from level.

    Level is the incoming up `ref_up` made perpendicular to `fwd`: the frame a turret
    (yaw about up, then pitch) would have. A head looking up-left by a pure swing tilts
    away from it; 0 where level is undefined (looking straight along ref_up).
    """
    level = ref_up - fwd * np.sum(ref_up * fwd, axis=-1, keepdims=True)
    b = up - fwd * np.sum(up * fwd, axis=-1, keepdims=True)
    defined = np.linalg.norm(level, axis=-1) > 1e-9
    roll = np.arctan2(np.sum(np.cross(level, b) * fwd, axis=-1), np.sum(level * b, axis=-1))
    return np.where(defined, roll, 0.0)


def clamp_to_cone(direction, axis, max_angle: float) -> np.ndarray:
    """Unit `direction` turned toward `axis` (unit) until within `max_angle` radians of it.

    A zero direction (target on the head) reads as the axis itself: nothing to look at.
    """
    d = np.asarray(direction, dtype=np.float64)
    norm = np.linalg.norm(d, axis=-1, keepdims=True)
    d = np.where(norm > TINY, d / np.where(norm > TINY, norm, 1.0), axis)
    swing = quat_between(axis, d)
    return quat_rotate(_clamp_rotation(swing, max_angle), axis)


def _aim(offset, ref_fwd, cur_fwd, max_angle, blend):
    norm = np.linalg.norm(offset, axis=-1, keepdims=True)
    # A target on the head gives no direction: keep looking where the head looks now.
    direction = np.where(norm > TINY, offset, cur_fwd)
    swing = _clamp_rotation(quat_between(ref_fwd, direction), max_angle)
    return quat_rotate(_scale_rotation(swing, blend), ref_fwd)


def _axis_angle(q):
    q = np.where(q[..., 3:4] < 0.0, -q, q)
    s = np.linalg.norm(q[..., :3], axis=-1)
    axis = q[..., :3] / np.where(s > TINY, s, 1.0)[..., None]
    return axis, 2.0 * np.arctan2(s, q[..., 3])


def _scale_rotation(q, t):
    axis, angle = _axis_angle(q)
    return quat_from_axis_angle(axis, angle * t)


def _clamp_rotation(q, max_angle):
    axis, angle = _axis_angle(q)
    return quat_from_axis_angle(axis, np.minimum(angle, max_angle))


def _unit(v, name):
    v = np.asarray(v, dtype=np.float64)
    if v.shape != (3,) or not np.all(np.isfinite(v)) or np.linalg.norm(v) <= TINY:
        raise ValueError(f"look-at: {name} must be a finite, non-zero 3-vector, got {v!r}")
    return v / np.linalg.norm(v)


def _check_joints(skeleton, joints, weights):
    if len(joints) == 0:
        raise ValueError("look-at: joints must name at least the aiming joint")
    idx = [skeleton.index(name) for name in joints]
    for a, b in zip(idx, idx[1:]):
        anc = skeleton.parents[b]
        while anc >= 0 and anc != a:
            anc = skeleton.parents[anc]
        if anc != a:
            raise ValueError(f"look-at: {skeleton.names[a]!r} is not an ancestor of {skeleton.names[b]!r}")
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (len(idx),):
        raise ValueError(f"look-at: {len(idx)} joints need {len(idx)} weights, got {list(np.ravel(w))}")
    if not np.all(np.isfinite(w)) or np.any(w < 0.0) or w.sum() <= 0.0:
        raise ValueError(f"look-at: weights must be finite, >= 0 and not all zero, got {list(w)}")
    return idx, list(w / w.sum())
