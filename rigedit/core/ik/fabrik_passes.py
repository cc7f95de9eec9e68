"""FABRIK's step, written once and compiled: one joint's limit (`limit_dir`), the backward
and forward passes, the CCD sweep, and the small row helpers the other FABRIK modules share.

A pose is four arrays: points (n, 3); per bone its hinge's world axis (rows read only for
hinges), its direction, and its turn (the world rotation carrying its frame from the
reference pose's, the start, to where it is now). Limits are per bone: a kind code, two
parameters ((cos, sin) of a cone's half angle, or a hinge's (lo, hi) in radians), the
reference directions and hinge axes, and the bone entering the root (`root_dir`, read only
when joint 0 has a limit). An unlimited chain has every kind NONE and `limited` False: then
only the points are worked (no frame is carried).

The per-bone helpers (scalar_quat's quaternions, limits.py's clamps) are compiled from their
Python source via `register_jitable`. numba caches the machine code beside this file;
`jitable.fresh_cache` drops it when those sources change. This module has no entry point
compiled on import, so the full-body kernel can use `limit_dir` without compiling FABRIK.
"""
from __future__ import annotations

import math

import numba

from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import limits, rows
from .rows import row3 as _row3, row4 as _row3q  # noqa: F401 (the FABRIK modules read rows by these names)

NONE, CONE, HINGE, FREE_CONE = 0, 1, 2, 3  # FREE_CONE: a cone of 180 degrees or more

fresh_cache(__file__, sq, limits, rows)
jitable(
    sq.qmul, sq.qconj, sq.qrot, sq.qbetween, sq.near_opposite_turn, sq.turn_unit, sq.perpendicular, sq.cross, sq.dot,
    sq.norm, sq.unit_or, limits.hinge_axis_found, limits.clamp_cone, limits.clamp_hinge, limits._circular_gap,
)

TINY = sq.TINY
qmul, qconj, qrot, qbetween, turn_unit, unit_or, dot = sq.qmul, sq.qconj, sq.qrot, sq.qbetween, sq.turn_unit, sq.unit_or, sq.dot
perpendicular, cross = sq.perpendicular, sq.cross
hinge_axis_found, clamp_cone, clamp_hinge = limits.hinge_axis_found, limits.clamp_cone, limits.clamp_hinge

_jit = numba.njit(cache=True, nogil=True)
# The passes' helpers are inlined into their callers by numba itself: a call that passes a
# pose (four arrays) costs more than the bone loop it runs (an unlimited N=10 solve took
# 2.4 us, 1.7 inlined). `iterate` is inlined only into the unlimited solve (fabrik_free, see
# fabrik_loop._iterate_inlined); the limited one calls it.
_inline = numba.njit(cache=True, nogil=True, inline="always")


@_inline
def _gap(pts, target):
    n = pts.shape[0] - 1
    dx, dy, dz = pts[n, 0] - target[0], pts[n, 1] - target[1], pts[n, 2] - target[2]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


# --- the step: one joint's limit, the passes, the sweep ------------------------------------


@_jit
def limit_dir(kind, a, b, parent, axis, u):
    """The direction nearest unit u that joint's limit allows, against the unit parent
    direction: CONE with (a, b) = (cos, sin) of its half angle, HINGE with range (a, b)
    radians about `axis` (world; made perpendicular to parent here, and left free when it
    lies along it: no plane to bend in). A clamped direction is normalised again: the clamp
    builds it from vectors unit only to round-off, and a bone's length is its direction's."""
    if kind == CONE:
        if u[0] * parent[0] + u[1] * parent[1] + u[2] * parent[2] >= a:
            return u  # inside the cone: most bones, most passes
        v = clamp_cone((a, b), parent, u)
    elif kind == HINGE:
        found, h = hinge_axis_found(axis, parent)
        if not found:
            return u
        v = clamp_hinge((a, b), parent, h, u)
    else:
        return u
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return (v[0] / n, v[1] / n, v[2] / n)


@_inline
def forward(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, keep_shape, limited, pts, axes, dirs, turns):
    """FABRIK's forward pass into (pts, axes, dirs, turns): from the root aim[0], each bone
    aimed at the next point of `aim`, limited relative to its placed parent, the frame turns
    carried along (limited only). With keep_shape each bone aims where its frame already
    points instead (conforming a start pose to its lengths and limits). A bone whose aim
    sits on its joint keeps its reference direction (turned with its parent)."""
    m = lengths.shape[0]
    q = (0.0, 0.0, 0.0, 1.0)
    parent = (root_dir[0], root_dir[1], root_dir[2])
    x0, y0, z0 = aim[0, 0], aim[0, 1], aim[0, 2]
    pts[0, 0], pts[0, 1], pts[0, 2] = x0, y0, z0
    for k in range(m):
        c = _row3(ref_dirs, k)
        if limited:
            c = qrot(q, c)
            # Only hinge rows are read, but a pose is handed on (warm starts, saved files):
            # no row may keep a scratch buffer's leftovers.
            axes[k, 0], axes[k, 1], axes[k, 2] = 0.0, 0.0, 0.0
        u = c
        l = lengths[k]
        if l > TINY:
            if not keep_shape:
                dx, dy, dz = aim[k + 1, 0] - x0, aim[k + 1, 1] - y0, aim[k + 1, 2] - z0
                d = math.sqrt(dx * dx + dy * dy + dz * dz)
                if d > TINY and not limited:
                    # Unlimited, the bone's direction is not kept: the step is dx * (l / d),
                    # one multiplication fewer on the pass's chain of dependent operations
                    # (each bone waits for the one before) than l * (dx / d).
                    s = l / d
                    x0 += dx * s
                    y0 += dy * s
                    z0 += dz * s
                    pts[k + 1, 0], pts[k + 1, 1], pts[k + 1, 2] = x0, y0, z0
                    continue
                if d > TINY:
                    inv = 1.0 / d  # one division on the pass's critical path, not three
                    u = (dx * inv, dy * inv, dz * inv)
            if limited:
                kind = kinds[k]
                if kind == HINGE:
                    axis = qrot(q, _row3(ref_axes, k))
                    axes[k, 0], axes[k, 1], axes[k, 2] = axis
                    u = limit_dir(kind, params[k, 0], params[k, 1], parent, axis, u)
                elif kind == CONE:
                    u = limit_dir(kind, params[k, 0], params[k, 1], parent, parent, u)
                q = turn_unit(c, u, q)
        x0 += l * u[0]
        y0 += l * u[1]
        z0 += l * u[2]
        pts[k + 1, 0], pts[k + 1, 1], pts[k + 1, 2] = x0, y0, z0
        if limited:
            dirs[k, 0], dirs[k, 1], dirs[k, 2] = u
            turns[k, 0], turns[k, 1], turns[k, 2], turns[k, 3] = q
        parent = u


@_inline
def backward(pts, axes, kinds, params, ref_dirs, lengths, target, limited, out):
    """FABRIK's backward pass into `out`: tip onto the target, then each bone pulled toward
    its old joint and, limited, clamped relative to the bone after it as caliko does (the
    same cone; a hinge's range negated, about the axis the last forward pass found). The
    forward pass enforces the limits exactly; this only keeps the backward pass from undoing
    them, which is what makes limited FABRIK converge. out[0] is not written: the caller
    pins the root there, so the pass stops at joint 1 (the root's own step, one bone's
    work of the pass, would be thrown away)."""
    m = pts.shape[0] - 1
    x1, y1, z1 = target[0], target[1], target[2]
    out[m, 0], out[m, 1], out[m, 2] = x1, y1, z1
    have_child = False  # the bone after this one is placed and has a direction
    child = (0.0, 0.0, 0.0)
    for k in range(m - 1, 0, -1):
        l = lengths[k]
        if l > TINY:
            dx, dy, dz = x1 - pts[k, 0], y1 - pts[k, 1], z1 - pts[k, 2]
            d = math.sqrt(dx * dx + dy * dy + dz * dz)
            if d > TINY and not limited:  # as in forward: dx * (l / d)
                s = l / d
                x1 -= dx * s
                y1 -= dy * s
                z1 -= dz * s
                out[k, 0], out[k, 1], out[k, 2] = x1, y1, z1
                continue
            if d > TINY:
                inv = 1.0 / d
                u = (dx * inv, dy * inv, dz * inv)
            else:
                u = _row3(ref_dirs, k)
            if limited and have_child and k + 1 < m:
                kind = kinds[k + 1]
                if kind == HINGE:
                    u = limit_dir(kind, -params[k + 1, 1], -params[k + 1, 0], child, _row3(axes, k + 1), u)
                elif kind == CONE:
                    u = limit_dir(kind, params[k + 1, 0], params[k + 1, 1], child, child, u)
            x1 -= l * u[0]
            y1 -= l * u[1]
            z1 -= l * u[2]
            child = u
            have_child = True
        else:
            have_child = False  # no direction to read the next limit against
        out[k, 0], out[k, 1], out[k, 2] = x1, y1, z1


@_jit
def ccd(src, ref, kinds, params, root_dir, lengths, target, swept, sweep, out):
    """One CCD sweep from the pose `src` into the pose `out`: tip to root, each joint turns
    the rest of the chain about itself (about its hinge axis, for a hinge) to bring the tip
    toward the target, limited. A turn at k moves only what lies beyond k, so only the tip
    is carried through the sweep (`sweep` holds the turns) and the points are rebuilt once
    at the end (into `swept`); then a forward pass (`step`, against `ref`) re-aims every
    bone at its swept position, putting the frames and the limits back exactly."""
    pts, axes, dirs, turns = src
    n = pts.shape[0]
    ex, ey, ez = pts[n - 1, 0], pts[n - 1, 1], pts[n - 1, 2]
    for k in range(n - 2, -1, -1):
        sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = 0.0, 0.0, 0.0, 1.0
        if lengths[k] <= TINY:
            continue
        px, py, pz = pts[k, 0], pts[k, 1], pts[k, 2]
        a = (ex - px, ey - py, ez - pz)
        b = (target[0] - px, target[1] - py, target[2] - pz)
        kind = kinds[k]
        parent = (root_dir[0], root_dir[1], root_dir[2]) if k == 0 else _row3(dirs, k - 1)
        found = False
        axis = a
        if kind == HINGE:
            found, axis = hinge_axis_found(_row3(axes, k), parent)
            if found:
                da, db = dot(a, axis), dot(b, axis)
                a = (a[0] - da * axis[0], a[1] - da * axis[1], a[2] - da * axis[2])
                b = (b[0] - db * axis[0], b[1] - db * axis[1], b[2] - db * axis[2])
        u = _row3(dirs, k)
        v = qrot(qbetween(a, b), u)
        if kind == CONE:
            v = limit_dir(kind, params[k, 0], params[k, 1], parent, parent, unit_or(v, parent))
        elif kind == FREE_CONE:
            v = unit_or(v, parent)
        elif found:
            v = limit_dir(kind, params[k, 0], params[k, 1], parent, axis, v)
        turn = qbetween(u, v)
        sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = turn
        wx, wy, wz = qrot(turn, (ex - px, ey - py, ez - pz))
        ex, ey, ez = px + wx, py + wy, pz + wz
    turn_and_step(pts, sweep, swept, ref, kinds, params, root_dir, lengths, out)


@_jit
def turn_and_step(pts, sweep, swept, ref, kinds, params, root_dir, lengths, out):
    """Each joint k turned by sweep[k], carrying the rest of the chain with it (into
    `swept`), then a forward pass (`step`) re-aiming every bone at its swept position: how
    both the CCD sweep and the least-squares step (fabrik_newton.dls) apply their turns."""
    n = pts.shape[0]
    x, y, z = pts[0, 0], pts[0, 1], pts[0, 2]
    swept[0, 0], swept[0, 1], swept[0, 2] = x, y, z
    carried = (0.0, 0.0, 0.0, 1.0)
    for k in range(n - 1):
        carried = qmul(carried, _row3q(sweep, k))
        bx, by, bz = qrot(carried, (pts[k + 1, 0] - pts[k, 0], pts[k + 1, 1] - pts[k, 1], pts[k + 1, 2] - pts[k, 2]))
        x, y, z = x + bx, y + by, z + bz
        swept[k + 1, 0], swept[k + 1, 1], swept[k + 1, 2] = x, y, z
    step(swept, ref, kinds, params, root_dir, lengths, out)


@_jit
def step(aim, ref, kinds, params, root_dir, lengths, out):
    """A limited forward pass toward `aim`, into `out`, its frames read against the
    reference pose `ref` (points, hinge axes, directions, turns): each bone's frame is its
    reference frame turned by one shortest arc from its reference direction, and the turns
    are composed with ref's, so out's turns still lead from the solve's start."""
    forward(aim, kinds, params, ref[2], ref[1], root_dir, lengths, False, True, out[0], out[1], out[2], out[3])
    turns, before = out[3], ref[3]
    for k in range(turns.shape[0]):
        w = qmul(_row3q(turns, k), _row3q(before, k))
        n = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3])
        turns[k, 0], turns[k, 1], turns[k, 2], turns[k, 3] = w[0] / n, w[1] / n, w[2] / n, w[3] / n
