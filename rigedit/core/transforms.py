"""Quaternions (x, y, z, w) and rigid transforms, vectorised over leading axes.

Every function accepts arrays of shape (..., 4) for quaternions and (..., 3) for vectors
and broadcasts the leading axes, so the same code serves one joint, a whole skeleton and a
whole clip. Euler angles go through scipy's Rotation: its intrinsic/extrinsic handling of
the twelve orders is well tested and easy to get subtly wrong by hand.
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])

# Below this a vector is treated as having no direction: a zero-length bone, a target on
# the joint. 1e-12 m is far under any bone a rig can have (1 cm bones at 100 m scale still
# give directions of ~1e-4), yet far above float64 round-off on unit vectors.
TINY = 1e-12
# Below this cosine quat_between leaves the half-angle form (see scalar_quat.NEAR_OPPOSITE).
NEAR_OPPOSITE = -0.999
HALF_TURN_SINE = 1e-6  # as scalar_quat.HALF_TURN_SINE: nearer opposite, a half turn then a small arc


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a * b: rotating by the result is rotating by b, then by a."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack(
        (
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ),
        axis=-1,
    )


def quat_conj(q: np.ndarray) -> np.ndarray:
    """The inverse of a unit quaternion."""
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate((-q[..., :3], q[..., 3:]), axis=-1)


quat_inv = quat_conj


def quat_normalize(q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, dtype=np.float64)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    # A zero quaternion is no rotation at all; identity is the only safe reading of it.
    out = np.where(n > TINY, q / np.where(n > TINY, n, 1.0), IDENTITY)
    return out


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors v by unit quaternions q (broadcast over leading axes)."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    u = q[..., :3]
    w = q[..., 3:4]
    # v' = v + 2w (u x v) + 2 u x (u x v): two cross products, no matrix built.
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def quat_from_axis_angle(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    axis = np.asarray(axis, dtype=np.float64)
    angle = np.asarray(angle, dtype=np.float64)
    n = np.linalg.norm(axis, axis=-1, keepdims=True)
    unit = axis / np.where(n > TINY, n, 1.0)
    half = 0.5 * angle[..., None]
    return np.concatenate((unit * np.sin(half), np.cos(half)), axis=-1)


def quat_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Shortest-arc rotation taking direction a to direction b.

    Zero-length inputs give identity (nothing to turn). Opposite directions turn by pi
    about an axis perpendicular to a, chosen deterministically.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a, b = np.broadcast_arrays(a, b)
    na = np.linalg.norm(a, axis=-1, keepdims=True)
    nb = np.linalg.norm(b, axis=-1, keepdims=True)
    degenerate = (na[..., 0] <= TINY) | (nb[..., 0] <= TINY)
    ua = a / np.where(na > TINY, na, 1.0)
    ub = b / np.where(nb > TINY, nb, 1.0)
    dot = np.sum(ua * ub, axis=-1)
    axis = np.cross(ua, ub)
    # The half-angle form (axis, 1 + dot) normalised is exact and stable except near pi,
    # where 1 + dot cancels: there a turn by pi - e about the axis (made exactly
    # perpendicular to ua), e = atan2(|axis|, -dot) (scalar_quat.near_opposite_turn).
    q = quat_normalize(np.concatenate((axis, (1.0 + dot)[..., None]), axis=-1))
    near = dot < NEAR_OPPOSITE
    if np.any(near):
        q = np.where(near[..., None], _near_opposite_turn(ua[near], axis[near], dot[near], q.shape, near), q)
    return np.where(degenerate[..., None], IDENTITY, q)


def _near_opposite_turn(ua, axis, dot, shape, near) -> np.ndarray:
    """scalar_quat.near_opposite_turn for the rows `near`."""
    s = np.linalg.norm(axis, axis=-1)
    p = axis - np.sum(axis * ua, axis=-1, keepdims=True) * ua
    n = np.where(s > HALF_TURN_SINE, np.linalg.norm(p, axis=-1), 1.0)
    half = 0.5 * np.arctan2(s, -dot)
    part = np.concatenate((p * (np.cos(half) / n)[..., None], np.sin(half)[..., None]), axis=-1)
    flat = s <= HALF_TURN_SINE
    if np.any(flat):
        # The half turn about the fixed perpendicular, then the small arc from -a to b.
        h = _half_turn_about_perpendicular(ua[flat])
        small = quat_normalize(np.concatenate((-axis[flat], (1.0 - dot[flat])[..., None]), axis=-1))
        part[flat] = quat_mul(small, h)
    out = np.zeros(shape)
    out[near] = part
    return out


def _half_turn_about_perpendicular(u: np.ndarray) -> np.ndarray:
    # Cross with the world axis u is least aligned with, so the result is never tiny.
    pick_x = np.abs(u[..., 0:1]) < 0.9
    other = np.where(pick_x, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    perp = np.cross(u, other)
    perp = perp / np.linalg.norm(perp, axis=-1, keepdims=True)
    return np.concatenate((perp, np.zeros(perp.shape[:-1] + (1,))), axis=-1)


def quat_slerp(a: np.ndarray, b: np.ndarray, t) -> np.ndarray:
    """Spherical interpolation from a (t=0) to b (t=1), along the shorter arc.

    t = 0 and t = 1 return a and b exactly (a blend weight of 0 must give the animated
    pose bit for bit).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    dot = np.sum(a * b, axis=-1, keepdims=True)
    end = b
    b = np.where(dot < 0.0, -b, b)
    dot = np.abs(dot)
    tt = t[..., None] if t.ndim else t
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    sin_theta = np.sin(theta)
    near = sin_theta < 1e-9
    safe = np.where(near, 1.0, sin_theta)
    wa = np.where(near, 1.0 - tt, np.sin((1.0 - tt) * theta) / safe)
    wb = np.where(near, tt, np.sin(tt * theta) / safe)
    out = quat_normalize(wa * a + wb * b)
    out = np.where(tt == 0.0, a, out)
    # The end itself, not its sign-flipped twin used for the shorter arc.
    return np.where(tt == 1.0, end, out)


def _quadratic_form_for_matrix() -> np.ndarray:
    # For a unit quaternion every entry of its matrix is a quadratic form in (x, y, z, w)
    # (the constant 1 becomes x^2 + y^2 + z^2 + w^2). Writing R = (q q^T) C turns the
    # conversion into one outer product and one matmul, which matters because numpy's
    # per-call cost, not arithmetic, dominates for a 60-joint skeleton.
    x, y, z, w = range(4)
    c = np.zeros((4, 4, 3, 3))

    def add(i, j, a, b, k):
        c[a, b, i, j] += k

    for a in range(4):
        add(0, 0, a, a, 1.0 if a in (x, w) else -1.0)
        add(1, 1, a, a, 1.0 if a in (y, w) else -1.0)
        add(2, 2, a, a, 1.0 if a in (z, w) else -1.0)
    for (i, j, a, b, k) in [
        (0, 1, x, y, 2), (0, 1, z, w, -2), (0, 2, x, z, 2), (0, 2, y, w, 2),
        (1, 0, x, y, 2), (1, 0, z, w, 2), (1, 2, y, z, 2), (1, 2, x, w, -2),
        (2, 0, x, z, 2), (2, 0, y, w, -2), (2, 1, y, z, 2), (2, 1, x, w, 2),
    ]:
        add(i, j, a, b, k / 2)
        add(i, j, b, a, k / 2)
    return c.reshape(16, 9)


_QUAT_TO_MATRIX = _quadratic_form_for_matrix()


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4)."""
    q = np.asarray(q, dtype=np.float64)
    outer = (q[..., :, None] * q[..., None, :]).reshape(q.shape[:-1] + (16,))
    return (outer @ _QUAT_TO_MATRIX).reshape(q.shape[:-1] + (3, 3))


def quat_from_matrix(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    flat = m.reshape(-1, 3, 3)
    q = Rotation.from_matrix(flat).as_quat()
    return q.reshape(m.shape[:-2] + (4,))


def quat_from_euler(order: str, angles_deg: np.ndarray) -> np.ndarray:
    """Intrinsic rotations in the given order, e.g. "ZXY" as BVH channels list them.

    Upper-case order means intrinsic to scipy, which is what BVH means: the first channel's
    rotation is applied outermost.
    """
    a = np.asarray(angles_deg, dtype=np.float64)
    flat = a.reshape(-1, 3)
    q = Rotation.from_euler(order.upper(), flat, degrees=True).as_quat()
    return q.reshape(a.shape[:-1] + (4,))


def quat_to_euler(order: str, q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, dtype=np.float64)
    flat = q.reshape(-1, 4)
    e = Rotation.from_quat(flat).as_euler(order.upper(), degrees=True)
    return e.reshape(q.shape[:-1] + (3,))


def quat_angle(q: np.ndarray) -> np.ndarray:
    """Rotation angle in radians, in [0, pi]."""
    q = np.asarray(q, dtype=np.float64)
    v = np.linalg.norm(q[..., :3], axis=-1)
    return 2.0 * np.arctan2(v, np.abs(q[..., 3]))
