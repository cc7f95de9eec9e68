"""3-vectors and quaternions (x, y, z, w) as tuples of plain floats, for per-joint loops.

A FABRIK joint update is a dozen flops. On small numpy arrays each call costs ~1 us, ten
times the arithmetic, so the single-chain solver and its limits work in floats and convert
to numpy once at the end. The formulas are those of `transforms.py` (the same shortest arc,
the same half-turn axis), so a chain turned here and a skeleton turned there agree.
"""
from __future__ import annotations

from math import sqrt

IDENTITY = (0.0, 0.0, 0.0, 1.0)
Y_UP = (0.0, 1.0, 0.0)

# As transforms.TINY: a vector shorter than this (metres) has no direction. Far under any
# bone a rig has (1 cm bones at 100 m scale are ~1e-4 apart), far above float64 round-off.
TINY = 1e-12


def dot(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a) -> float:
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


def unit_or(a, fallback):
    """a / |a|, or `fallback` (already unit) when a has no direction."""
    n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    if n <= TINY:
        return fallback
    return (a[0] / n, a[1] / n, a[2] / n)


def perpendicular(u):
    """A unit vector perpendicular to unit u: u x (the world axis u is least aligned with),
    the choice transforms.quat_between makes for a half turn."""
    other = (1.0, 0.0, 0.0) if abs(u[0]) < 0.9 else (0.0, 1.0, 0.0)
    p = cross(u, other)
    n = norm(p)
    return (p[0] / n, p[1] / n, p[2] / n)


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def qnormalize(q):
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if n <= TINY:
        return IDENTITY
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def qrot(q, v):
    """Rotate v by unit quaternion q: v + 2w (u x v) + 2 u x (u x v)."""
    ux, uy, uz, w = q
    vx, vy, vz = v
    tx = 2.0 * (uy * vz - uz * vy)
    ty = 2.0 * (uz * vx - ux * vz)
    tz = 2.0 * (ux * vy - uy * vx)
    return (
        vx + w * tx + uy * tz - uz * ty,
        vy + w * ty + uz * tx - ux * tz,
        vz + w * tz + ux * ty - uy * tx,
    )


def qbetween(a, b):
    """Shortest-arc rotation taking direction a to direction b (transforms.quat_between)."""
    na = norm(a)
    nb = norm(b)
    if na <= TINY or nb <= TINY:
        return IDENTITY
    ua = (a[0] / na, a[1] / na, a[2] / na)
    ub = (b[0] / nb, b[1] / nb, b[2] / nb)
    d = dot(ua, ub)
    if d < -1.0 + 1e-12:
        p = perpendicular(ua)
        return (p[0], p[1], p[2], 0.0)
    c = cross(ua, ub)
    return qnormalize((c[0], c[1], c[2], 1.0 + d))
