"""Limited FABRIK, compiled: the forward and backward passes with limits, the CCD sweep and
the loop that runs them (fabrik.py's limited iteration), on numpy arrays.

Why compiled: a limited pass is a few dozen flops a bone, and in Python floats each bone
cost ~1 us of interpreter around them. A rig solves its limited chains every frame (the
humanoid's spine, the creature's eight legs), and those passes were most of `Rig.solve`'s
time. Here the whole iteration, with its sweeps, is one call.

The per-bone helpers are the very functions the Python code calls (scalar_quat's
quaternion helpers, limits.py's clamps), compiled from the same source via
`register_jitable`: one definition, and the same operations in the same order, so a chain
solved here rounds as it did in Python floats (IEEE float64, no fast-math).

A pose is four arrays: points (n, 3); per bone its hinge's world axis (only hinge bones'
rows are read), its direction, and its turn (the world rotation carrying its frame from
the reference pose's to where it is now). The limits are per bone: a kind code, two
parameters ((cos, sin) of a cone's half angle, or a hinge's (lo, hi) in radians), the
reference pose's directions and hinge axes, and the bone entering the root (`root_dir`,
read only when joint 0 has a limit).

numba caches the machine code beside this file; `jitable.fresh_cache` drops it when
scalar_quat.py or limits.py change, which numba alone would not notice.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import limits

NONE, CONE, HINGE, FREE_CONE = 0, 1, 2, 3  # FREE_CONE: a cone of 180 degrees or more

fresh_cache(__file__, sq, limits)
jitable(
    sq.qmul, sq.qconj, sq.qrot, sq.qbetween, sq.near_opposite_turn, sq.turn_unit, sq.perpendicular, sq.cross, sq.dot,
    sq.norm, sq.unit_or, limits.hinge_axis_found, limits.clamp_cone, limits.clamp_hinge, limits._circular_gap,
)

TINY = sq.TINY
qmul, qconj, qrot, qbetween, turn_unit, unit_or, dot = sq.qmul, sq.qconj, sq.qrot, sq.qbetween, sq.turn_unit, sq.unit_or, sq.dot
hinge_axis_found, clamp_cone, clamp_hinge = limits.hinge_axis_found, limits.clamp_cone, limits.clamp_hinge

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _row3(a, k):
    return (a[k, 0], a[k, 1], a[k, 2])


@_jit
def _gap(pts, target):
    n = pts.shape[0] - 1
    dx, dy, dz = pts[n, 0] - target[0], pts[n, 1] - target[1], pts[n, 2] - target[2]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


@_jit
def forward(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, keep_shape):
    """FABRIK's forward pass with limits (chain_frames.forward_limited's contract): from the
    root aim[0], aim each bone at the next point of `aim`, clamp it relative to its placed
    parent, and carry the frame turns along. With keep_shape each bone aims where its frame
    already points instead (conforming a start pose). Returns (points, axes, dirs, turns)."""
    m = lengths.shape[0]
    pts = np.empty((m + 1, 3))
    axes = np.zeros((m, 3))
    dirs = np.empty((m, 3))
    turns = np.empty((m, 4))
    q = (0.0, 0.0, 0.0, 1.0)
    parent = _row3(root_dir.reshape(1, 3), 0)
    x0, y0, z0 = aim[0, 0], aim[0, 1], aim[0, 2]
    pts[0, 0], pts[0, 1], pts[0, 2] = x0, y0, z0
    for k in range(m):
        c = qrot(q, _row3(ref_dirs, k))
        u = c
        l = lengths[k]
        if l > TINY:
            if not keep_shape:
                dx, dy, dz = aim[k + 1, 0] - x0, aim[k + 1, 1] - y0, aim[k + 1, 2] - z0
                n = math.sqrt(dx * dx + dy * dy + dz * dz)
                if n > TINY:
                    u = (dx / n, dy / n, dz / n)
            kind = kinds[k]
            if kind == CONE:
                # Inside the cone (most bones, most passes) u stands: test before the call.
                if u[0] * parent[0] + u[1] * parent[1] + u[2] * parent[2] < params[k, 0]:
                    u = clamp_cone((params[k, 0], params[k, 1]), parent, u)
            elif kind == HINGE:
                axis = qrot(q, _row3(ref_axes, k))
                axes[k, 0], axes[k, 1], axes[k, 2] = axis
                found, h = hinge_axis_found(axis, parent)
                if found:  # (a hinge turned onto its parent bone leaves no plane: left free)
                    u = clamp_hinge((params[k, 0], params[k, 1]), parent, h, u)
            q = turn_unit(c, u, q)
        x0 += l * u[0]
        y0 += l * u[1]
        z0 += l * u[2]
        pts[k + 1, 0], pts[k + 1, 1], pts[k + 1, 2] = x0, y0, z0
        dirs[k, 0], dirs[k, 1], dirs[k, 2] = u
        turns[k, 0], turns[k, 1], turns[k, 2], turns[k, 3] = q
        parent = u
    return pts, axes, dirs, turns


@_jit
def backward(pts, axes, kinds, params, ref_dirs, lengths, target):
    """FABRIK's backward pass with limits, as caliko does it: tip onto the target, then each
    bone pulled toward its old joint and clamped relative to the bone after it (the same
    cone; a hinge's range negated, about the axis the last forward pass found). The forward
    pass enforces the limits exactly; this only keeps the backward pass from undoing them,
    which is what makes limited FABRIK converge. Returns the points root first, the root
    where the pass left it (the caller pins it)."""
    n = pts.shape[0]
    m = n - 1
    out = np.empty((n, 3))
    x1, y1, z1 = target
    out[m, 0], out[m, 1], out[m, 2] = x1, y1, z1
    have_child = False  # the bone after this one is placed and has a direction
    child = (0.0, 0.0, 0.0)
    for k in range(m - 1, -1, -1):
        l = lengths[k]
        if l > TINY:
            dx, dy, dz = x1 - pts[k, 0], y1 - pts[k, 1], z1 - pts[k, 2]
            nn = math.sqrt(dx * dx + dy * dy + dz * dz)
            u = (dx / nn, dy / nn, dz / nn) if nn > TINY else _row3(ref_dirs, k)
            kind = kinds[k + 1] if k + 1 < m else NONE
            if have_child and kind == CONE:
                if u[0] * child[0] + u[1] * child[1] + u[2] * child[2] < params[k + 1, 0]:
                    u = clamp_cone((params[k + 1, 0], params[k + 1, 1]), child, u)
            elif have_child and kind == HINGE:
                found, axis = hinge_axis_found(_row3(axes, k + 1), child)
                if found:
                    u = clamp_hinge((-params[k + 1, 1], -params[k + 1, 0]), child, axis, u)
            x1 -= l * u[0]
            y1 -= l * u[1]
            z1 -= l * u[2]
            child = u
            have_child = True
        else:
            have_child = False  # no direction to read the next limit against
        out[k, 0], out[k, 1], out[k, 2] = x1, y1, z1
    return out


@_jit
def ccd(pts, axes, dirs, kinds, params, ref_dirs, ref_axes, root_dir, lengths, target):
    """One CCD sweep (ccd_sweep.py's reasons) from the pose (pts, axes, dirs): tip to root,
    each joint turns the rest of the chain about itself (about its hinge axis, for a hinge)
    to bring the tip toward the target, clamped to its limit. A turn at k moves only what
    lies beyond k, so only the tip is carried through the sweep and the points are rebuilt
    once at the end; then a forward pass re-aims every bone at its swept position, putting
    the frames' twist and the limits back exactly. Returns what `forward` returns."""
    n = pts.shape[0]
    ex, ey, ez = pts[n - 1, 0], pts[n - 1, 1], pts[n - 1, 2]
    turns = np.empty((n - 1, 4))
    turned = np.zeros(n - 1, np.bool_)
    for k in range(n - 2, -1, -1):
        if lengths[k] <= TINY:
            continue
        px, py, pz = pts[k, 0], pts[k, 1], pts[k, 2]
        a = (ex - px, ey - py, ez - pz)
        b = (target[0] - px, target[1] - py, target[2] - pz)
        kind = kinds[k]
        parent = _row3(root_dir.reshape(1, 3), 0) if k == 0 else _row3(dirs, k - 1)
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
            v = clamp_cone((params[k, 0], params[k, 1]), parent, v)
        elif kind == FREE_CONE:
            v = unit_or(v, parent)  # clamp_cone without a cone
        elif found:
            v = clamp_hinge((params[k, 0], params[k, 1]), parent, axis, v)
        turn = qbetween(u, v)
        turns[k, 0], turns[k, 1], turns[k, 2], turns[k, 3] = turn
        turned[k] = True
        wx, wy, wz = qrot(turn, (ex - px, ey - py, ez - pz))
        ex, ey, ez = px + wx, py + wy, pz + wz
    swept = np.empty((n, 3))
    x, y, z = pts[0, 0], pts[0, 1], pts[0, 2]
    swept[0, 0], swept[0, 1], swept[0, 2] = x, y, z
    carried = (0.0, 0.0, 0.0, 1.0)
    for k in range(n - 1):
        if turned[k]:
            carried = qmul(carried, (turns[k, 0], turns[k, 1], turns[k, 2], turns[k, 3]))
        bx, by, bz = qrot(carried, (pts[k + 1, 0] - pts[k, 0], pts[k + 1, 1] - pts[k, 1], pts[k + 1, 2] - pts[k, 2]))
        x, y, z = x + bx, y + by, z + bz
        swept[k + 1, 0], swept[k + 1, 1], swept[k + 1, 2] = x, y, z
    return forward(swept, kinds, params, ref_dirs, ref_axes, root_dir, lengths, False)


@_jit
def iterate(
    pts, axes, dirs, turns, kinds, params, ref_dirs, ref_axes, root_dir, lengths, tx, ty, tz, err, tol, cap, min_gain,
    ccd_when_above, limited_stall, out_of_reach_stall, cones_only, errors, out_pts, out_axes, out_dirs, out_turns,
):  # fmt: skip
    """fabrik.iterate over limited iterations, from the pose (pts, axes, dirs, turns) at tip
    error `err`. An iteration is a backward and a forward pass; when that keeps more than
    ccd_when_above of the error, also a CCD sweep after the pass and one from the old pose,
    keeping whichever ends nearest (a pass cannot turn a hinge plane). An iteration that
    would raise the error is dropped and ends the loop, its entry repeating the kept error.
    The loop stops within `tol`, after `cap` iterations, or on an iteration gaining no more
    than min_gain, or than limited_stall of the error it started from (out_of_reach_stall
    when the pass itself ended farther off on a cones-only chain: the target is past what
    the cones allow). Writes each iteration's error to `errors` and, when an iteration was
    kept, the pose it ended at to the out arrays (points, axes, dirs, turns: passed in, as
    arrays made here would each cost a microsecond to hand back). Returns (error,
    iterations, whether an iteration was kept)."""
    target = (tx, ty, tz)
    pose = (pts, axes, dirs, turns)
    root = _row3(pts, 0)
    count = 0
    kept = False
    while err > tol and count < cap:
        q = backward(pose[0], pose[1], kinds, params, ref_dirs, lengths, target)
        q[0, 0], q[0, 1], q[0, 2] = root
        passed = forward(q, kinds, params, ref_dirs, ref_axes, root_dir, lengths, False)
        best, best_e = passed, _gap(passed[0], target)
        outran = best_e >= err and cones_only
        if best_e > err * ccd_when_above:  # the pass is stalling: try the sweeps
            for start in (passed, pose):
                tried = ccd(start[0], start[1], start[2], kinds, params, ref_dirs, ref_axes, root_dir, lengths, target)
                te = _gap(tried[0], target)
                if te < best_e:
                    best, best_e = tried, te
                if best_e <= err * ccd_when_above:
                    break  # the sweep after the pass did it: the one from the old pose can wait
        if best_e > err:
            errors[count] = err
            count += 1
            break
        errors[count] = best_e
        count += 1
        gain = err - best_e
        ratio = out_of_reach_stall if outran else limited_stall
        floor = min_gain if min_gain >= ratio * err else ratio * err
        pose, err, kept = best, best_e, True
        if gain <= floor:
            break
    if kept:
        _copy_pose(pose, out_pts, out_axes, out_dirs, out_turns)
    return err, count, kept


@_jit
def forward_into(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, keep_shape, out_pts, out_axes, out_dirs, out_turns):
    """`forward`, its result written to the out arrays (points, axes, dirs, turns)."""
    got = forward(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, keep_shape)
    _copy_pose(got, out_pts, out_axes, out_dirs, out_turns)


@_jit
def _copy_pose(pose, out_pts, out_axes, out_dirs, out_turns):
    out_pts[...] = pose[0]
    out_axes[...] = pose[1]
    out_dirs[...] = pose[2]
    out_turns[...] = pose[3]


@_jit
def turned_locals(bx, by, bz, bw, frames, turns, out, world):
    """The local rotations of a limited result's joints (all but the tip) and its bones'
    world frames: each bone's reference frame turned by the turn its forward pass carried,
    then seen from its parent's new frame (rig_solve.turned_locals). Returns ((m, 4) local
    rotations, (m, 4) world frames), written to `out` and `world`, from the root parent's
    world rotation (bx, by, bz, bw)."""
    m = turns.shape[0]
    parent = (bx, by, bz, bw)
    for k in range(m):
        # Both unit to round-off, and w only feeds the normalised local rotations and, as
        # the next warm start's frames, the next turn * frame: left as is.
        w = qmul((turns[k, 0], turns[k, 1], turns[k, 2], turns[k, 3]), (frames[k, 0], frames[k, 1], frames[k, 2], frames[k, 3]))
        lx, ly, lz, lw = qmul(qconj(parent), w)
        n = math.sqrt(lx * lx + ly * ly + lz * lz + lw * lw)
        out[k, 0], out[k, 1], out[k, 2], out[k, 3] = lx / n, ly / n, lz / n, lw / n
        world[k, 0], world[k, 1], world[k, 2], world[k, 3] = w
        parent = w


# solve_warm's outcomes.
AT_TARGET, NEEDS_ARC, SOLVED = 0, 1, 2


@_jit
def solve_warm(
    pts, axes, dirs, frames, bx, by, bz, bw, kinds, params, root_dir, lengths, tx, ty, tz, tol, cap, stall_relative,
    straight_relative, ccd_when_above, limited_stall, out_of_reach_stall, cones_only, errors,
    out_pts, out_axes, out_dirs, out_turns, out_locals, out_world,
):  # fmt: skip
    """A rig chain's limited solve warm-started from its own last result (points, hinge
    axes and directions, which meet the limits and are the reference of its frame turns,
    and its bones' world frames), in one call: the frame-to-frame case, where the Python
    around the passes cost more than they did. Returns (outcome, error, iterations, kept):
    AT_TARGET when the start is within `tol` (nothing solved), NEEDS_ARC when it is a
    straight chain off target (the caller's general path bends it into an arc first),
    else SOLVED: `iterate`'s loop ran, and when an iteration was kept the out arrays hold
    its pose and, as `turned_locals` gives them, its local rotations and world frames."""
    n = pts.shape[0] - 1
    target = (tx, ty, tz)
    err = _gap(pts, target)
    if err <= tol:
        return AT_TARGET, err, 0, False
    total = 0.0
    for k in range(n):
        total += lengths[k]
    dx, dy, dz = pts[n, 0] - pts[0, 0], pts[n, 1] - pts[0, 1], pts[n, 2] - pts[0, 2]
    span = math.sqrt(dx * dx + dy * dy + dz * dz)
    if cap > 0 and total > TINY and span >= total * (1.0 - straight_relative):  # arc_start.is_straight
        return NEEDS_ARC, err, 0, False
    err, count, kept = iterate(
        pts, axes, dirs, out_turns, kinds, params, dirs, axes, root_dir, lengths, tx, ty, tz, err, tol, cap,
        stall_relative * total, ccd_when_above, limited_stall, out_of_reach_stall, cones_only, errors, out_pts, out_axes, out_dirs, out_turns,
    )  # fmt: skip
    if kept:
        turned_locals(bx, by, bz, bw, frames, out_turns, out_locals, out_world)
    return SOLVED, err, count, kept
