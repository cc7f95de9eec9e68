"""Quaternion (x, y, z, w) and vector helpers on plain Python floats, for one joint at a time.

The rig solves one short chain at a time. For a handful of joints, a numpy call (~1 us here)
costs more than the arithmetic it does, so the per-chain walk stays in floats. The formulas
are those of `transforms.py` (same shortest arc, same half-turn choice), so results agree with
the vectorised forms to round-off.
"""
from __future__ import annotations

from math import sqrt

Quat = tuple[float, float, float, float]
Vec = tuple[float, float, float]

IDENTITY: Quat = (0.0, 0.0, 0.0, 1.0)
ZERO: Vec = (0.0, 0.0, 0.0)
TINY = 1e-12  # as transforms.TINY: shorter than this, a vector has no direction


def qmul(a, b) -> Quat:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def qconj(q) -> Quat:
    return (-q[0], -q[1], -q[2], q[3])


def qnormalize(q) -> Quat:
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if n <= TINY:
        return IDENTITY
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def qrot(q, v) -> Vec:
    """v rotated by unit quaternion q: v + 2w (u x v) + 2 u x (u x v), as transforms.quat_rotate."""
    ux, uy, uz, w = q
    vx, vy, vz = v
    tx = 2.0 * (uy * vz - uz * vy)
    ty = 2.0 * (uz * vx - ux * vz)
    tz = 2.0 * (ux * vy - uy * vx)
    return (
        vx + w * tx + (uy * tz - uz * ty),
        vy + w * ty + (uz * tx - ux * tz),
        vz + w * tz + (ux * ty - uy * tx),
    )


def add(a, b) -> Vec:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a, b) -> Vec:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def dist(a, b) -> float:
    dx, dy, dz = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    return sqrt(dx * dx + dy * dy + dz * dz)


def qbetween(a, b) -> Quat:
    """Shortest-arc rotation taking direction a to direction b (transforms.quat_between)."""
    na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2])
    if na <= TINY or nb <= TINY:
        return IDENTITY
    ax, ay, az = a[0] / na, a[1] / na, a[2] / na
    bx, by, bz = b[0] / nb, b[1] / nb, b[2] / nb
    dot = ax * bx + ay * by + az * bz
    if dot < -1.0 + 1e-12:
        # Opposite directions: a half turn about an axis perpendicular to a, picked as
        # transforms._half_turn_about_perpendicular picks it.
        ox, oy, oz = (1.0, 0.0, 0.0) if abs(ax) < 0.9 else (0.0, 1.0, 0.0)
        px, py, pz = ay * oz - az * oy, az * ox - ax * oz, ax * oy - ay * ox
        n = sqrt(px * px + py * py + pz * pz)
        return (px / n, py / n, pz / n, 0.0)
    return qnormalize((ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, 1.0 + dot))
