"""The look-at solve, compiled: one frame (`aim_row`) or every frame of a clip (`aim_rows`),
on plain arrays. `look_at.solve_look_at` and the rig's look_at chains (the compiled frame's aim row)
call it; look_at.py's docstring says why the turns are swings and how the cone is placed.

A frame is the joints on the path from the skeleton's root to the aiming joint (the head,
last): their local rotations (x, y, z, w) and offsets. The look-at joints are given by their
positions on that path (ancestors first, the head last), each with its share of the turn and
its rest rotation. Everything above and between them keeps its rotation.

Why compiled: a live drag solves the chain every frame over a handful of joints, where a
numpy call (~1 us) costs more than the arithmetic it does, and interpreted floats cost ~1 us
a quaternion product. The quaternion helpers are scalar_quat's, compiled from the same
source (`jitable`). numba caches the machine code beside this file; `jitable.fresh_cache`
drops it when scalar_quat.py changes, which numba alone would not notice.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import rows
from .rows import row3, row4

fresh_cache(__file__, sq, rows)
jitable(sq.qmul, sq.qconj, sq.qrot, sq.qnormalize, sq.qabout, sq.cross, sq.dot, sq.norm)

TINY = sq.TINY
qmul, qconj, qrot, qnormalize, qabout, cross, dot, norm = (
    sq.qmul, sq.qconj, sq.qrot, sq.qnormalize, sq.qabout, sq.cross, sq.dot, sq.norm,
)  # fmt: skip
NO_TWIST_LIMIT = -1.0  # max_twist below 0: the roll is free

_jit = numba.njit(cache=True, nogil=True)
# aim_row's steps are inlined into it by numba itself: a frame is about a microsecond, and
# calls that pass the path's arrays would add to it.
_inline = numba.njit(cache=True, nogil=True, inline="always")


@_jit
def swing(a, b, frac, max_angle):
    """The rotation turning unit direction a toward direction b (non-zero) along the
    shortest arc, by `frac` of the angle between them after capping it at `max_angle`."""
    nb = norm(b)
    b = (b[0] / nb, b[1] / nb, b[2] / nb)
    axis = cross(a, b)
    s = norm(axis)
    c = dot(a, b)
    if s <= TINY:
        # Opposite (or equal) directions: a fixed perpendicular, as quat_between picks, so
        # the turn is deterministic rather than round-off.
        axis = cross(a, (1.0, 0.0, 0.0) if abs(a[0]) < 0.9 else (0.0, 1.0, 0.0))
    return qabout(axis, min(math.atan2(s, c), max_angle) * frac)


@_jit
def head_roll(ref_up, fwd, up):
    """The head's signed roll (radians) about unit `fwd` away from level (`ref_up` made
    perpendicular to fwd: the frame a turret would have); 0 where level is undefined."""
    d = dot(ref_up, fwd)
    level = (ref_up[0] - fwd[0] * d, ref_up[1] - fwd[1] * d, ref_up[2] - fwd[2] * d)
    if norm(level) <= 1e-9:
        return 0.0
    d = dot(up, fwd)
    b = (up[0] - fwd[0] * d, up[1] - fwd[1] * d, up[2] - fwd[2] * d)
    return math.atan2(dot(cross(level, b), fwd), dot(level, b))


@_jit
def ray_miss(head, fwd, target):
    """Distance (metres) from `target` to the ray from `head` along unit `fwd`; behind the
    head, the ray's nearest point is the head itself."""
    to = (target[0] - head[0], target[1] - head[1], target[2] - head[2])
    along = dot(to, fwd)
    if along <= 0.0:
        return norm(to)
    return norm((to[0] - along * fwd[0], to[1] - along * fwd[1], to[2] - along * fwd[2]))


@_jit
def _turn_at(k, turn, world, pos):
    """Turn path joint k by world rotation `turn` about its own position; the joints below follow."""
    px, py, pz = pos[k, 0], pos[k, 1], pos[k, 2]
    for m in range(k, world.shape[0]):
        q = qmul(turn, row4(world, m))
        world[m, 0], world[m, 1], world[m, 2], world[m, 3] = q
        if m > k:
            v = qrot(turn, (pos[m, 0] - px, pos[m, 1] - py, pos[m, 2] - pz))
            pos[m, 0], pos[m, 1], pos[m, 2] = px + v[0], py + v[1], pz + v[2]


@_inline
def _path_world(rot, trans, world, pos):
    """The path's world rotations and positions into world (P, 4) and pos (P, 3), from its
    local ones; returns the last joint's (position, rotation)."""
    q = row4(rot, 0)
    p = row3(trans, 0)
    world[0, 0], world[0, 1], world[0, 2], world[0, 3] = q
    pos[0, 0], pos[0, 1], pos[0, 2] = p
    for k in range(1, rot.shape[0]):
        v = qrot(q, row3(trans, k))
        p = (p[0] + v[0], p[1] + v[1], p[2] + v[2])
        q = qmul(q, row4(rot, k))
        world[k, 0], world[k, 1], world[k, 2], world[k, 3] = q
        pos[k, 0], pos[k, 1], pos[k, 2] = p
    return p, q


@_inline
def _rest_cone_axis(rot, at, rest, world, fwd):
    """The head's forward with the look-at joints at their rest rotations and everything
    above them as posed: the cone's axis with cone_rest."""
    m = at.shape[0]
    k0 = at[0]
    c = row4(world, k0 - 1) if k0 > 0 else sq.IDENTITY
    i = 0
    for k in range(k0, rot.shape[0]):
        if i < m and at[i] == k:
            c = qmul(c, row4(rest, i))
            i += 1
        else:
            c = qmul(c, row4(rot, k))
    return qrot(c, fwd)


@_inline
def _spread_turn(at, shares, target, fwd, cone_axis, ref_fwd, max_angle, blend, world, pos, turned):
    """The aim's turn shared over the look-at joints (`turned[i]`: joint i turned)."""
    n = world.shape[0]
    m = at.shape[0]
    last = 0
    for i in range(m):
        if shares[i] > 0.0:
            last = i
    for i in range(m):
        w = shares[i]
        if w <= 0.0:
            continue
        # This joint takes its share of what is left (summed from the tip, so a tiny share
        # never leaves a round-off zero to divide by); the last weighted joint finishes the
        # turn exactly from wherever the earlier ones moved the head to. Every swing turns
        # about the normal of the plane of the incoming forward and the target, which a turn
        # about it never leaves, so splitting the turn adds no roll.
        left = 0.0
        for r in range(m - 1, i - 1, -1):
            left += shares[r]
        frac = 1.0 if i == last else w / left
        cur_fwd = qrot(row4(world, n - 1), fwd)
        offset = (target[0] - pos[n - 1, 0], target[1] - pos[n - 1, 1], target[2] - pos[n - 1, 2])
        if norm(offset) <= TINY:
            offset = cur_fwd  # a target on the head gives no direction: keep looking ahead
        aim = qrot(swing(cone_axis, offset, 1.0, max_angle), cone_axis)
        if blend < 1.0:
            aim = qrot(swing(ref_fwd, aim, blend, math.pi), ref_fwd)
        _turn_at(at[i], swing(cur_fwd, aim, frac, math.pi), world, pos)
        turned[i] = True


@_inline
def _limit_twist(ref_up, fwd, up, max_twist, world, pos):
    """The head's roll away from level clamped to max_twist, about its own forward."""
    n = world.shape[0]
    head = row4(world, n - 1)
    new_fwd = qrot(head, fwd)
    roll = head_roll(ref_up, new_fwd, qrot(head, up))
    _turn_at(n - 1, qabout(new_fwd, min(max(roll, -max_twist), max_twist) - roll), world, pos)


@_jit
def aim_row(rot, trans, at, shares, rest, target, fwd, up, max_angle, max_twist, blend, cone_rest, out):
    """Aim the path's last joint's unit local `fwd` at `target`: rot (P, 4), trans (P, 3) the
    path's local rotations and offsets; at (m,) the look-at joints' path positions (rising,
    the last P - 1), shares (m,) their shares of the turn (summing to 1), rest (m, 4) their
    rest rotations. The aim stays within `max_angle` radians of the cone axis (the head's
    forward with the look-at joints at rest and the rest as posed if `cone_rest`, else its
    incoming forward); `max_twist` radians (NO_TWIST_LIMIT: free) limits its roll away from
    level; `blend` in [0, 1] scales the aim angle (0: the incoming pose exactly).

    Writes the look-at joints' new local rotations into out (m, 4); a joint that did not
    turn keeps its rotation bit for bit. Returns the head's world position and forward."""
    n = rot.shape[0]
    m = at.shape[0]
    world = np.empty((n, 4))
    pos = np.empty((n, 3))
    p, q = _path_world(rot, trans, world, pos)
    for i in range(m):
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = rot[at[i], 0], rot[at[i], 1], rot[at[i], 2], rot[at[i], 3]
    ref_fwd = qrot(q, fwd)
    if blend <= 0.0:
        return p, ref_fwd
    cone_axis = _rest_cone_axis(rot, at, rest, world, fwd) if cone_rest else ref_fwd
    turned = np.zeros(m, dtype=np.bool_)
    _spread_turn(at, shares, target, fwd, cone_axis, ref_fwd, max_angle, blend, world, pos, turned)
    if max_twist >= 0.0:
        _limit_twist(qrot(q, up), fwd, up, max_twist, world, pos)
        turned[m - 1] = True
    for i in range(m):
        if turned[i]:
            k = at[i]
            w = row4(world, 0) if k == 0 else qmul(qconj(row4(world, k - 1)), row4(world, k))
            out[i, 0], out[i, 1], out[i, 2], out[i, 3] = qnormalize(w)
    return row3(pos, n - 1), qrot(row4(world, n - 1), fwd)


@_jit
def aim_chain(rot, trans, at, shares, rest, target, fwd, up, max_angle, max_twist, cone_rest, out):
    """A rig's look_at chain for one frame (aim_row, fully aimed; a rig passes cone_rest
    True, the cone about the rest forward): writes out, returns the miss (ray_miss of the
    aimed head). cone_rest comes from the caller, not as a literal here: numba would compile
    aim_row once for the literal and again for aim_rows' bool."""
    head, head_fwd = aim_row(rot, trans, at, shares, rest, target, fwd, up, max_angle, max_twist, 1.0, cone_rest, out)
    return ray_miss(head, head_fwd, target)


@_jit
def aim_rows(rot, trans, at, shares, rest, target, fwd, up, max_angle, max_twist, blend, cone_rest, out, heads, fwds):
    """aim_row for every frame: rot (F, P, 4), trans (F, P, 3), target (F, 3), out (F, m, 4);
    each frame's head position and forward go to heads and fwds (F, 3).

    One thread: a frame costs about a microsecond (a long clip, a few milliseconds), and
    numba's only threading layer here (workqueue) must not be entered from two threads at
    once, which the editor's solver thread and a bake could do."""
    for f in range(rot.shape[0]):
        h, d = aim_row(rot[f], trans[f], at, shares, rest, row3(target, f), fwd, up, max_angle, max_twist, blend, cone_rest, out[f])
        heads[f, 0], heads[f, 1], heads[f, 2] = h
        fwds[f, 0], fwds[f, 1], fwds[f, 2] = d


@_jit
def head_rolls(ref_up, fwd, up, out):
    for f in range(fwd.shape[0]):
        out[f] = head_roll(row3(ref_up, f), row3(fwd, f), row3(up, f))


@_jit
def clamp_rows(directions, axes, max_angle, out):
    """Each unit direction turned toward its unit axis until within max_angle of it."""
    for f in range(directions.shape[0]):
        a = row3(axes, f)
        d = qrot(swing(a, row3(directions, f), 1.0, max_angle), a)
        out[f, 0], out[f, 1], out[f, 2] = d
