"""Two-bone IK's middle-joint limit on a solved limb (`mid_limit`), compiled by numba: a
cone clamps the lower bone; a hinge (a knee) twists the upper bone about itself until its
axis is the bend plane's normal and clamps only the bend angle (two_bone_kernel.py applies
it after the closed form; solve_two_bone_pose calls it directly).
"""
from __future__ import annotations

import math

import numba
from numba import float64, int64, types

from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import limits, two_bone_codes
from .two_bone_codes import CONE, NO_LIMIT, ON_LINE, STRAIGHT_RAD

fresh_cache(__file__, two_bone_codes, sq, limits)
jitable(
    sq.qmul, sq.qrot, sq.qbetween, sq.near_opposite_turn, sq.turn_unit, sq.perpendicular, sq.cross, sq.dot, sq.norm,
    sq.sub, sq.unit_or, limits.hinge_axis_found,
)  # fmt: skip

# mid_limit's twist outcome: none needed, a twist about the upper bone, or (hinge) no axis
# off the upper bone to twist (solve_two_bone_pose refuses that hinge; the rig bends it about
# a fixed perpendicular).
NO_TWIST, TWIST, NO_AXIS = 0, 1, 2

_f8, _i8 = float64, int64
_Vec = types.UniTuple(_f8, 3)
_Quat = types.UniTuple(_f8, 4)

@numba.njit(cache=True, nogil=True)
def _rotated_end(start, u, axis, angle, length):
    """start + length * (unit u turned by angle about the unit axis perpendicular to it)."""
    c, s = math.cos(angle), math.sin(angle)
    w = sq.cross(axis, u)
    return (
        start[0] + length * (c * u[0] + s * w[0]),
        start[1] + length * (c * u[1] + s * w[1]),
        start[2] + length * (c * u[2] + s * w[2]),
    )


@numba.njit(cache=True, nogil=True)
def _bend_normal(normal, planar, u, fallback):
    """The unit bend-plane normal made exactly perpendicular to the upper bone u (a turn
    about it then keeps the lower bone's length), or `fallback` for a limb with no bend
    plane (`planar` False: straight, or folded back onto itself, where the bones' cross
    product is round-off pointing anywhere)."""
    if not planar:
        return fallback
    k = sq.dot(normal, u)
    return sq.unit_or((normal[0] - k * u[0], normal[1] - k * u[1], normal[2] - k * u[2]), fallback)


@numba.njit(cache=True, nogil=True)
def _hinge_bend(bend, lo, hi, found, hinge, normal, planar, u):
    """(axis, angle, clamped): how the limb bends at a hinge of range [lo, hi] (radians),
    given its solved bend angle, its bend plane's normal (`planar`: see _bend_normal) and
    the hinge axis the upper bone carries (`found` False when that lies along u)."""
    if bend > STRAIGHT_RAD and found:
        # A limb folded back onto itself has no bend plane: it bends about the hinge.
        n = _bend_normal(normal, planar, u, hinge)
        # Align the hinge with +n (the bend reads +bend) or -n (it reads -bend): whichever
        # needs the smaller clamp, and on a tie the smaller twist.
        plus = min(max(bend, lo), hi)
        minus = min(max(-bend, lo), hi)
        gap_plus, gap_minus = abs(plus - bend), abs(minus + bend)
        if gap_plus < gap_minus or (gap_plus == gap_minus and sq.dot(hinge, n) >= 0.0):
            return n, plus, gap_plus > 0.0
        return (-n[0], -n[1], -n[2]), minus, gap_minus > 0.0
    # Straight, or no axis: no bend plane to align with; bend (if the range says so) about
    # the carried axis, else a fixed perpendicular.
    angle = min(max(0.0, lo), hi)
    return (hinge if found else sq.perpendicular(u)), angle, angle != 0.0


@numba.njit((types.Tuple((_Vec, _i8, _f8, _f8))(_i8, _Vec, _f8, _f8, _Vec, _Vec, _Vec, _Vec, _Quat)), cache=True, nogil=True)
def mid_limit(kind, axis_local, lo, hi, root, mid, new_mid, new_end, f0):
    """The middle joint's limit on a solved limb: (new end, twist outcome, sin and cos of
    half the twist about the upper bone).

    kind CONE (lo: the half angle) or HINGE (axis_local: the unit axis in the upper bone's
    frame f0 at the warm start root/mid; range [lo, hi]), radians. A cone clamps the lower
    bone. A hinge is a knee: the limb bends in the plane the closed form chose (the pole's),
    so the upper bone is twisted about itself until its hinge axis is that plane's normal
    (or its opposite, whichever needs the smaller clamp), and only the bend angle is clamped
    to the range. Without the twist a hinge whose axis misses the pole's plane would throw
    the end off a target the knee could reach."""
    w = sq.sub(new_mid, root)
    v = sq.sub(new_end, new_mid)
    lu, ll = sq.norm(w), sq.norm(v)
    if kind == NO_LIMIT or lu <= sq.TINY or ll <= sq.TINY:
        return new_end, NO_TWIST, 0.0, 1.0  # a zero-length bone cannot bend wrong
    u = (w[0] / lu, w[1] / lu, w[2] / lu)
    normal = sq.cross(w, v)
    nn = sq.norm(normal)
    bend = math.atan2(nn, sq.dot(w, v))
    planar = nn > ON_LINE * lu * ll
    if kind == CONE:
        if bend <= lo:
            return new_end, NO_TWIST, 0.0, 1.0
        return _rotated_end(new_mid, u, _bend_normal(normal, planar, u, sq.perpendicular(u)), lo, ll), NO_TWIST, 0.0, 1.0
    # The axis the upper bone's frame would carry after a plain shortest-arc turn.
    found, hinge = limits.hinge_axis_found(sq.qrot(sq.qmul(sq.qbetween(sq.sub(mid, root), u), f0), axis_local), u)
    axis, angle, clamped = _hinge_bend(bend, lo, hi, found, hinge, normal, planar, u)
    if clamped:
        new_end = _rotated_end(new_mid, u, axis, angle, ll)
    if not found:
        return new_end, NO_AXIS, 0.0, 1.0
    half = 0.5 * math.atan2(sq.dot(u, sq.cross(hinge, axis)), sq.dot(hinge, axis))
    return new_end, TWIST, math.sin(half), math.cos(half)
