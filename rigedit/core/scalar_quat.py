"""Quaternion (x, y, z, w) and vector helpers on plain Python floats, for one joint at a time.

The compiled kernels compile these same functions (jitable.py), and Python code that handles
one short chain (a saved pose put back, rig_pose.py) calls them as they are: for a handful of
joints, a numpy call (~1 us here) costs more than the arithmetic it does. The formulas
are those of `transforms.py` (same shortest arc, same half-turn choice), so results agree with
the vectorised forms to round-off.
"""
from __future__ import annotations

from math import atan2, cos, sin, sqrt

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


def qabout(axis, angle: float) -> Quat:
    """The rotation by `angle` radians about `axis` (any length; one with no direction: no turn)."""
    n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2])
    if n <= TINY:
        return IDENTITY
    s = sin(0.5 * angle) / n
    return (axis[0] * s, axis[1] * s, axis[2] * s, cos(0.5 * angle))


def add(a, b) -> Vec:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a, b) -> Vec:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def dist(a, b) -> float:
    dx, dy, dz = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    return sqrt(dx * dx + dy * dy + dz * dz)


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


def qbetween(a, b) -> Quat:
    """Shortest-arc rotation taking direction a to direction b (transforms.quat_between)."""
    na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2])
    if na <= TINY or nb <= TINY:
        return IDENTITY
    ax, ay, az = a[0] / na, a[1] / na, a[2] / na
    bx, by, bz = b[0] / nb, b[1] / nb, b[2] / nb
    dot = ax * bx + ay * by + az * bz
    if dot < NEAR_OPPOSITE:
        return near_opposite_turn(ax, ay, az, bx, by, bz, dot)
    # qnormalize, written out: the solvers call this for every joint of every sweep.
    x, y, z, w = ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, 1.0 + dot
    n = sqrt(x * x + y * y + z * z + w * w)
    if n <= TINY:
        return IDENTITY
    return (x / n, y / n, z / n, w / n)


def turn_unit(c, u, q) -> Quat:
    """q turned by the shortest arc from unit direction c to unit direction u, normalised.

    The solvers' carried limit frames (ik/chain_frames.py) and the rig's write-back
    (bone_turns.local_turns) both turn bones this way; one function keeps their frames bit
    for bit alike, which the limits' hold-after-write tests rely on. The arc's own
    normalisation folds into the product's."""
    cx, cy, cz = c
    ux, uy, uz = u
    d = cx * ux + cy * uy + cz * uz
    if d < NEAR_OPPOSITE:
        bx, by, bz, bw = near_opposite_turn(cx, cy, cz, ux, uy, uz, d)
    else:
        bx, by, bz, bw = cy * uz - cz * uy, cz * ux - cx * uz, cx * uy - cy * ux, 1.0 + d
    qx, qy, qz, qw = q
    rx = bw * qx + bx * qw + by * qz - bz * qy
    ry = bw * qy - bx * qz + by * qw + bz * qx
    rz = bw * qz + bx * qy - by * qx + bz * qw
    rw = bw * qw - bx * qx - by * qy - bz * qz
    n = sqrt(rx * rx + ry * ry + rz * rz + rw * rw)
    return (rx / n, ry / n, rz / n, rw / n)


# Below this cosine the half-angle form (a x b, 1 + a.b) loses precision: 1 + a.b cancels
# (at 1e-5 rad from a half turn it keeps ~1e-6 of it). near_opposite_turn takes over.
# The same constant as transforms.NEAR_OPPOSITE, so the two forms switch together.
NEAR_OPPOSITE = -0.999


# Closer than this (radians) to opposite, a x b is too much round-off to take as the axis:
# its direction (the turn's twist about a) would differ between two computations of the
# same bones by ~1e-16 / HALF_TURN_SINE. There the turn is the deterministic half turn
# about a x (the world axis a is least aligned with), taking a to -a, followed by the
# shortest arc from -a to b (well conditioned): b is still hit to round-off, and the
# turn's angle is within this of the shortest arc's.
HALF_TURN_SINE = 1e-6


def near_opposite_turn(ax, ay, az, bx, by, bz, dot) -> Quat:
    """The turn from unit a to unit b when they are nearly opposite: by pi - e about p,
    with e = atan2(|a x b|, -a.b) (no cancellation) and p = a x b made exactly
    perpendicular to a; within HALF_TURN_SINE of opposite, the half turn about a fixed
    perpendicular and then the small arc (transforms.quat_between does the same)."""
    px, py, pz = ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
    s = sqrt(px * px + py * py + pz * pz)
    if s <= HALF_TURN_SINE:
        ox, oy = (1.0, 0.0) if abs(ax) < 0.9 else (0.0, 1.0)
        hx, hy, hz = -az * oy, az * ox, ax * oy - ay * ox
        n = sqrt(hx * hx + hy * hy + hz * hz)
        hx, hy, hz = hx / n, hy / n, hz / n
        # The small arc from -a to b: (-a x b, 1 - a.b), normalised; then small * (h, 0).
        mx, my, mz, mw = -px, -py, -pz, 1.0 - dot
        n = sqrt(mx * mx + my * my + mz * mz + mw * mw)
        mx, my, mz, mw = mx / n, my / n, mz / n, mw / n
        return (
            mw * hx + my * hz - mz * hy,
            mw * hy - mx * hz + mz * hx,
            mw * hz + mx * hy - my * hx,
            -(mx * hx + my * hy + mz * hz),
        )
    k = px * ax + py * ay + pz * az  # round-off only, but it tilts the axis by k / s
    px, py, pz = px - k * ax, py - k * ay, pz - k * az
    n = sqrt(px * px + py * py + pz * pz)
    half = 0.5 * atan2(s, -dot)
    c = cos(half) / n
    return (px * c, py * c, pz * c, sin(half))
