"""3-vectors and quaternions (x, y, z, w) as tuples of plain floats, for per-joint loops.

A FABRIK joint update is a dozen flops. On small numpy arrays each call costs ~1 us, ten
times the arithmetic, so the single-chain solver and its limits work in floats and convert
to numpy once at the end. The formulas are those of `transforms.py` (the same shortest arc,
the same half-turn axis), so a chain turned here and a skeleton turned there agree.
"""
from __future__ import annotations

from math import sqrt

# The quaternion helpers, IDENTITY and TINY are scalar_quat's: one implementation of the
# shortest arc for the solvers, the rig and the skeleton write-back, so all turn bones alike.
from ..scalar_quat import IDENTITY, TINY, qbetween, qmul, qnormalize, qrot  # noqa: F401

Y_UP = (0.0, 1.0, 0.0)


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

