"""Look-at: turn a head (eye, turret) so its forward axis points at a target.

The turn is spread over several joints (neck and head share it by weights) and limited to a
cone around the head's rest forward, taken under the incoming pose of everything above the
look-at joints: when the body turns, the cone turns with it. Turns start from the incoming
pose, so the look-at is a layer over the animation and keeps the roll the clip gave the head.

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
from ..transforms import TINY, quat_from_matrix, quat_normalize, quat_to_matrix


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
    cone_from: str = "rest",
) -> Pose:
    """Return a new pose whose last joint in `joints` aims `forward_axis` at `target`.

    joints: names root-ward first, the aiming joint last; each must be an ancestor of the next.
    weights: each joint's share of the turn (normalised; [0.4, 0.6] = neck 40%, head 60%).
    The aim is exact when the aiming joint has a share (it turns last, about its own
    position); with weight only on its parents a near target is approximate.
    forward_axis, up_axis: in the aiming joint's local frame.
    max_angle_deg: the cone the aim stays inside, around the rest forward (see cone_from).
    max_twist_deg: if given, the head's roll about its forward axis away from level (see
    head_roll) is limited to this; 0 keeps the horizon level like a turret. Level is
    undefined looking straight up the incoming up axis, so a twist limit is flip-free only
    with a cone under 90 degrees; without one (None) the pure swing never flips.
    blend: 0 keeps the incoming pose, 1 aims fully; in between the aim angle is scaled.
    cone_from: "rest" centres the cone on the forward the head has with the look-at joints
    at their rest rotations and everything above them as posed: an anatomical limit that
    follows the torso, whatever the clip does with the neck. "pose" centres it on the
    incoming forward: a layer that may add max_angle_deg to whatever the clip looks at.

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
    if cone_from not in ("rest", "pose"):
        raise ValueError(f"look-at: cone_from must be 'rest' or 'pose', got {cone_from!r}")
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
    # path), so their world transforms are walked down it once and updated in place after
    # each turn. Rotation matrices, not quaternions: a 3x3 matmul is one cheap numpy call
    # where a quaternion rotate is several, and per-call cost is what a single frame pays.
    path = _path_to(skeleton, head)
    at = {j: k for k, j in enumerate(path)}
    world, pos = _walk(out, path)
    ref_fwd = world[-1] @ fwd
    ref_up = world[-1] @ up
    if cone_from == "rest":
        rest = Pose(out.rotations.copy(), out.translations)
        rest.rotations[..., idx, :] = skeleton.rest_rotations[idx]
        cone_axis = _walk(rest, path)[0][-1] @ fwd
    else:
        cone_axis = ref_fwd
    max_angle = np.radians(max_angle_deg)

    # What is left for each joint and those after it; summed from the tip so a tiny weight
    # never leaves a round-off zero to divide by.
    left = np.cumsum(share[::-1])[::-1]
    last = max(k for k, w in enumerate(share) if w > 0.0)
    turned = []
    for k, (j, w) in enumerate(zip(idx, share)):
        if w <= 0.0:
            continue
        # This joint takes its share of what is left, so the last weighted joint finishes
        # the turn exactly from wherever the earlier ones moved the head to. Every swing
        # turns about the same axis (the normal of the plane holding the incoming forward
        # and the target, which a turn about that axis never leaves), so splitting the turn
        # adds no roll.
        frac = 1.0 if k == last else w / left[k]
        cur_fwd = world[-1] @ fwd
        offset = target - pos[-1]
        # A target on the head gives no direction: keep looking where the head looks now.
        near = np.linalg.norm(offset, axis=-1, keepdims=True) <= TINY
        aim = _apply(_swing(cone_axis, np.where(near, cur_fwd, offset), 1.0, max_angle), cone_axis)
        if blend < 1.0:
            aim = _apply(_swing(ref_fwd, aim, blend), ref_fwd)
        _turn_at(path, at[j], world, pos, _swing(cur_fwd, aim, frac))
        turned.append(at[j])

    if max_twist_deg is not None:
        new_fwd = world[-1] @ fwd
        roll = head_roll(ref_up, new_fwd, world[-1] @ up)
        limit = np.radians(max_twist_deg)
        _turn_at(path, len(path) - 1, world, pos, _rotation(new_fwd, np.clip(roll, -limit, limit) - roll))
        turned.append(len(path) - 1)

    turned = sorted(set(turned))
    local = np.stack([world[k] if k == 0 else np.swapaxes(world[k - 1], -1, -2) @ world[k] for k in turned], axis=-3)
    out.rotations[..., [path[k] for k in turned], :] = quat_normalize(quat_from_matrix(local))
    return out


def _path_to(skeleton: Skeleton, joint: int) -> list[int]:
    path = [joint]
    while skeleton.parents[path[-1]] >= 0:
        path.append(int(skeleton.parents[path[-1]]))
    return path[::-1]


def _walk(pose: Pose, path: list[int]):
    """World rotation matrices and positions of the joints on a root-to-joint path."""
    mats = quat_to_matrix(pose.rotations[..., path, :])
    offsets = pose.translations[..., path, :]
    world = [mats[..., 0, :, :]]
    pos = [offsets[..., 0, :]]
    for k in range(1, len(path)):
        pos.append(pos[-1] + _apply(world[-1], offsets[..., k, :]))
        world.append(world[-1] @ mats[..., k, :, :])
    return world, pos


def _turn_at(path: list[int], k: int, world: list, pos: list, turn) -> None:
    """Turn path joint k by a world rotation about its own position; the joints below follow."""
    for m in range(k, len(path)):
        world[m] = turn @ world[m]
        if m > k:
            pos[m] = pos[k] + _apply(turn, pos[m] - pos[k])


def _swing(a, b, frac, max_angle=np.pi):
    """Rotation matrix turning unit direction a toward direction b along the shortest arc,
    by `frac` of the angle between them after capping it at `max_angle`."""
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    axis = _cross(a, b)
    s = np.linalg.norm(axis, axis=-1)
    c = np.sum(a * b, axis=-1)
    # Opposite directions: turn about a fixed perpendicular (as quat_between does), so the
    # result is deterministic rather than round-off.
    perp = _cross(a, np.where(np.abs(a[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]))
    axis = np.where((s <= TINY)[..., None], perp, axis)
    return _rotation(axis, np.minimum(np.arctan2(s, c), max_angle) * frac)


def _rotation(axis, angle):
    """Rotation matrices (Rodrigues) about axes (..., 3), any length, by angles (...)."""
    n = np.linalg.norm(axis, axis=-1, keepdims=True)
    x, y, z = np.moveaxis(axis / np.where(n > TINY, n, 1.0), -1, 0)
    zero = np.zeros_like(x)
    k = np.stack([zero, -z, y, z, zero, -x, -y, x, zero], axis=-1).reshape(x.shape + (3, 3))
    sin = np.sin(angle)[..., None, None]
    cos = np.cos(angle)[..., None, None]
    return np.eye(3) + sin * k + (1.0 - cos) * (k @ k)


def _apply(m, v):
    """Matrices (..., 3, 3) times vectors (..., 3), broadcast over the leading axes."""
    return (m @ v[..., None])[..., 0]


def _cross(a, b):
    # np.cross spends most of its time on axis handling; three vectors' worth of products
    # written out are several times faster for the small arrays a single frame has.
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), axis=-1)


def head_roll(ref_up, fwd, up) -> np.ndarray:
    """Signed roll (radians) of a head about its forward axis `fwd`, away from level.

    Level is the incoming up `ref_up` made perpendicular to `fwd`: the frame a turret
    (yaw about up, then pitch) would have. A head looking up-left by a pure swing tilts
    away from it; 0 where level is undefined (looking straight along ref_up).
    """
    level = ref_up - fwd * np.sum(ref_up * fwd, axis=-1, keepdims=True)
    b = up - fwd * np.sum(up * fwd, axis=-1, keepdims=True)
    defined = np.linalg.norm(level, axis=-1) > 1e-9
    roll = np.arctan2(np.sum(_cross(level, b) * fwd, axis=-1), np.sum(level * b, axis=-1))
    return np.where(defined, roll, 0.0)


def clamp_to_cone(direction, axis, max_angle: float) -> np.ndarray:
    """Unit `direction` turned toward `axis` (unit) until within `max_angle` radians of it.

    A zero direction (target on the head) reads as the axis itself: nothing to look at.
    """
    d = np.asarray(direction, dtype=np.float64)
    norm = np.linalg.norm(d, axis=-1, keepdims=True)
    d = np.where(norm > TINY, d / np.where(norm > TINY, norm, 1.0), axis)
    return _apply(_swing(axis, d, 1.0, max_angle), axis)


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
