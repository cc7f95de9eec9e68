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

The solve itself is look_at_kernel.py's compiled kernel, which the rig's look_at chains and
the bake call too; this module checks the arguments and lays the poses out for it.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..skeleton import Pose, Skeleton
from ..transforms import TINY


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
    fwd, up = _check_axes(forward_axis, up_axis)
    _check_limits(max_angle_deg, max_twist_deg, blend, cone_from)
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
    local, _, _ = aim_frames(
        skeleton, out.rotations, out.translations, idx, share, np.broadcast_to(target, lead + (3,)),
        fwd, up, np.radians(max_angle_deg), None if max_twist_deg is None else np.radians(max_twist_deg), blend,
        cone_from == "rest",
    )  # fmt: skip
    out.rotations[..., idx, :] = local
    return out


def aim_frames(skeleton: Skeleton, rotations, translations, idx, shares, target, fwd, up, max_angle, max_twist=None,
               blend=1.0, cone_rest=True):  # fmt: skip
    """The look-at kernel over poses with any leading (frame) axes: rotations (..., n, 4) and
    translations (..., n, 3) of every joint, target (..., 3); idx the look-at joints (each an
    ancestor of the next), shares theirs (summing to 1); unit fwd and up; radians (max_twist
    None: free). Arguments are taken as checked. Returns the look-at joints' new local
    rotations (..., len(idx), 4), and the head's world positions and forwards (..., 3)."""
    from .look_at_kernel import NO_TWIST_LIMIT, aim_rows  # numba's import waits for the first look-at solve

    lead = rotations.shape[:-2]
    path = path_to(skeleton, idx[-1])
    at = {j: k for k, j in enumerate(path)}
    rot = np.ascontiguousarray(rotations[..., path, :], dtype=np.float64).reshape(-1, len(path), 4)
    trans = np.ascontiguousarray(np.broadcast_to(translations, lead + translations.shape[-2:])[..., path, :], dtype=np.float64)
    frames = rot.shape[0]
    local = np.empty((frames, len(idx), 4))
    heads = np.empty((frames, 3))
    fwds = np.empty((frames, 3))
    aim_rows(
        rot, trans.reshape(frames, len(path), 3), np.array([at[j] for j in idx], dtype=np.int64),
        np.asarray(shares, dtype=np.float64), np.ascontiguousarray(skeleton.rest_rotations[idx], dtype=np.float64),
        np.array(target, dtype=np.float64).reshape(frames, 3), _tuple3(fwd), _tuple3(up), float(max_angle),
        NO_TWIST_LIMIT if max_twist is None else float(max_twist), float(blend), bool(cone_rest), local, heads, fwds,
    )  # fmt: skip
    return local.reshape(lead + (len(idx), 4)), heads.reshape(lead + (3,)), fwds.reshape(lead + (3,))


def path_to(skeleton: Skeleton, joint: int) -> list[int]:
    """Joint indices from the skeleton's root down to `joint`."""
    path = [joint]
    while skeleton.parents[path[-1]] >= 0:
        path.append(int(skeleton.parents[path[-1]]))
    return path[::-1]


def _tuple3(v) -> tuple[float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]))


def _rows3(*arrays):
    """Arrays (..., 3) broadcast together, as C-ordered float64 (N, 3) rows, and the lead shape."""
    arrays = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in arrays])
    lead = arrays[0].shape[:-1]
    return [np.array(a, order="C").reshape(-1, 3) for a in arrays], lead  # copies: one compiled version


def head_roll(ref_up, fwd, up) -> np.ndarray:
    """Signed roll (radians) of a head about its forward axis `fwd` (unit), away from level.

    Level is the incoming up `ref_up` made perpendicular to `fwd`: the frame a turret
    (yaw about up, then pitch) would have. A head looking up-left by a pure swing tilts
    away from it; 0 where level is undefined (looking straight along ref_up).
    """
    from .look_at_kernel import head_rolls  # numba's import waits for the first use

    (r, f, u), lead = _rows3(ref_up, fwd, up)
    out = np.empty(r.shape[0])
    head_rolls(r, f, u, out)
    return out.reshape(lead)


def clamp_to_cone(direction, axis, max_angle: float) -> np.ndarray:
    """Unit `direction` turned toward `axis` (unit) until within `max_angle` radians of it.

    A zero direction (target on the head) reads as the axis itself: nothing to look at.
    """
    from .look_at_kernel import clamp_rows  # numba's import waits for the first use

    (d, a), lead = _rows3(direction, axis)
    norm = np.linalg.norm(d, axis=-1, keepdims=True)
    d = np.where(norm > TINY, d, a)
    out = np.empty_like(d)
    clamp_rows(d, a, float(max_angle), out)
    return out.reshape(lead + (3,))


def _unit(v, name):
    v = np.asarray(v, dtype=np.float64)
    if v.shape != (3,) or not np.all(np.isfinite(v)) or np.linalg.norm(v) <= TINY:
        raise ValueError(f"look-at: {name} must be a finite, non-zero 3-vector, got {v!r}")
    return v / np.linalg.norm(v)


def _check_axes(forward_axis, up_axis):
    """The unit forward and up axes; ValueError unless they are finite, non-zero and apart."""
    fwd = _unit(forward_axis, "forward_axis")
    up = _unit(up_axis, "up_axis")
    if abs(np.dot(fwd, up)) > 1.0 - 1e-6:
        raise ValueError("look-at: up_axis must not be parallel to forward_axis")
    return fwd, up


def _check_limits(max_angle_deg, max_twist_deg, blend, cone_from) -> None:
    if not (np.isfinite(max_angle_deg) and 0.0 <= max_angle_deg <= 180.0):
        raise ValueError(f"look-at: max_angle_deg must be within [0, 180], got {max_angle_deg!r}")
    if max_twist_deg is not None and not (np.isfinite(max_twist_deg) and max_twist_deg >= 0.0):
        raise ValueError(f"look-at: max_twist_deg must be >= 0 or None, got {max_twist_deg!r}")
    if cone_from not in ("rest", "pose"):
        raise ValueError(f"look-at: cone_from must be 'rest' or 'pose', got {cone_from!r}")
    if not (np.isfinite(blend) and 0.0 <= blend <= 1.0):
        raise ValueError(f"look-at: blend must be within [0, 1], got {blend!r}")


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
