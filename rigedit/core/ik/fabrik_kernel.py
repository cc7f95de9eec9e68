"""FABRIK, written once and compiled: every FABRIK solve in rigedit runs `solve_row`.

`fabrik()` (fabrik.py), `fabrik_batch` (the same row function over rows, in parallel),
`solve_fabrik_pose` and the rig's FABRIK chains (rig_solve.py) are thin callers: they check
their input, hand plain arrays here and read plain arrays back.

A row solve: the start pose (conformed to the bone lengths and limits when asked), the
straight shortcut when an unlimited chain cannot reach, the arc start for a straight chain
(arc_pose: a straight chain gives FABRIK no bend plane), then `iterate`, the one loop, in
the manner of Godot's `_process_joints`: the step is a backward and a forward pass, the
limit of each joint a call (`limit_dir`) inside the step, plus CCD sweeps when a limited
pass stalls (a pass cannot turn a hinge plane). The loop stops within tolerance, at the
cap, or when the best error of the last STALL_PASSES passes fell by no more than the
stall floor; a pass that ends farther off is not kept (the reported errors never grow),
but the passes go on from it: limited FABRIK often gets worse for a pass on its way in.

A pose is four arrays: points (n, 3); per bone its hinge's world axis (rows read only for
hinges), its direction, and its turn (the world rotation carrying its frame from the
reference pose's, the start, to where it is now). Limits are per bone: a kind code, two
parameters ((cos, sin) of a cone's half angle, or a hinge's (lo, hi) in radians), the
reference directions and hinge axes, and the bone entering the root (`root_dir`, read only
when joint 0 has a limit). An unlimited chain has every kind NONE and `limited` False: then
only the points are worked (no frame is carried).

The per-bone helpers (scalar_quat's quaternions, limits.py's clamps) are compiled from their
Python source via `register_jitable`. numba caches the machine code beside this file;
`jitable.fresh_cache` drops it when those sources change.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import limits

NONE, CONE, HINGE, FREE_CONE = 0, 1, 2, 3  # FREE_CONE: a cone of 180 degrees or more

# The stall rule: the passes stop once the best tip error of the last STALL_PASSES passes
# fell by no more than the larger of STALL_RELATIVE of the chain's length (float64
# round-off in a pass is ~1e-15 of it: nothing that matters changes any more) and, with
# limits, STALL_PASSES * LIMITED_STALL of the error (LIMITED_STALL a pass on average: the
# limits hold the chain short of a target it cannot reach, and further passes creep by
# ever smaller steps). Over several passes, never one: a limited pass can lose ground and
# the next ones win it back.
STALL_PASSES = 3
STALL_RELATIVE = 1e-9
LIMITED_STALL = 1e-3
# With limits, a pass that leaves more than this fraction of the error it started from is
# stalling (typically a hinge plane that has to turn): only then are the two CCD sweeps
# tried too, each as dear as two passes. With cones only there is no hinge plane to turn,
# and passes keep drawing the tip in, if slowly: the sweeps pay only once one has all but
# stalled.
CCD_WHEN_ABOVE = 0.5
CONES_CCD_WHEN_ABOVE = 0.9
# A chain counts as straight when its tip is this close (relative) to its full reach:
# bends up to about 0.1 degree, which give FABRIK no usable bend plane either.
STRAIGHT_RELATIVE = 1e-6
# The arc replaces the start only when nearer by more than this fraction of the chain's
# length: a tie (one real bone whose target is on the root) keeps the start.
ARC_GAIN_RELATIVE = 1e-12
# Newton on the arc's polygon stops once the tip is this fraction of the tolerance from the
# target: FABRIK would spend a whole pass on what one more step here settles.
ARC_FRACTION_OF_TOLERANCE = 0.1
ARC_NEWTON_STEPS = 4
GUESS_NEWTON_STEPS = 4
GUESS_SETTLED = 1e-12
# A hint (pole side) closer than this sine to the chord leaves its side to round-off: the
# arc then bulges the way the next choice says.
SIDE_SINE = 1e-6

# A stalled limited solve restarts from its best pose with that pose's own frames only if
# some bone turned more than this (radians) since the frames the passes read: nearer, the
# two sets of frames differ in twist by ~1e-4 rad, and the restart would replay the same
# passes (a dragged chain short of its target would pay them every frame).
RESTART_TURN = 0.02
RESTART_COS = math.cos(RESTART_TURN)

# solve statuses (the callers turn them into ValueErrors naming the problem)
OK, BAD_POINTS, BAD_TARGET, BAD_SHAPE = 0, 1, 2, 3

fresh_cache(__file__, sq, limits)
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
# 2.4 us, 1.7 inlined). `iterate` is inlined only into the unlimited solve (free_row, see
# _iterate_inlined); the limited one calls it.
_inline = numba.njit(cache=True, nogil=True, inline="always")


@_jit
def _row3q(a, k):
    return (a[k, 0], a[k, 1], a[k, 2], a[k, 3])


@_jit
def _row3(a, k):
    return (a[k, 0], a[k, 1], a[k, 2])


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
    them, which is what makes limited FABRIK converge. out[0] is left where the pass put
    it (the caller pins the root)."""
    m = pts.shape[0] - 1
    x1, y1, z1 = target[0], target[1], target[2]
    out[m, 0], out[m, 1], out[m, 2] = x1, y1, z1
    have_child = False  # the bone after this one is placed and has a direction
    child = (0.0, 0.0, 0.0)
    for k in range(m - 1, -1, -1):
        l = lengths[k]
        if l > TINY:
            dx, dy, dz = x1 - pts[k, 0], y1 - pts[k, 1], z1 - pts[k, 2]
            d = math.sqrt(dx * dx + dy * dy + dz * dz)
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


# --- the loop -------------------------------------------------------------------------------


@_inline
def _copy(src, dst, limited):
    _copy_rows(src[0], dst[0])
    if limited:
        _copy_rows(src[1], dst[1])
        _copy_rows(src[2], dst[2])
        _copy_rows(src[3], dst[3])


@_inline
def _copy_rows(src, dst):
    """dst[...] = src, written out: numba's general slice assignment costs more than the
    copy of a chain's few rows."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@_jit
def iterate(
    best, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths, target, limited,
    err, tol, cap, min_gain, stall, ccd_when_above, cones_only, own_ref, errors,
):  # fmt: skip
    """The one FABRIK loop, from the pose `best` at tip error `err` (the other poses are
    work space; `ref` receives the reference the limited passes read frames against). A
    step is a backward and a forward pass; limited, when that leaves more than
    ccd_when_above of the error the step started from, also a CCD sweep after the pass and
    one from where the step started (`cones_only`: only when the pass and the first sweep
    got no nearer than the step's start), whichever ends nearest. The passes go on from the
    step's pose; `best` takes it only when nearer, so errors[i], the best tip error after
    step i, never grows. Stops within `tol`, after `cap` steps, or when the best error of
    the last STALL_PASSES steps fell by no more than max(min_gain, STALL_PASSES * stall *
    that error). Limited, a stall first restarts the passes from the best pose with its own frames as
    the reference (what a warm-started call would do); only a stall right after such a
    restart, with nothing better found since, ends the solve. `own_ref`: `best` is the
    reference pose itself (a warm start from a solve's own result), as after a restart.
    Returns (error, steps)."""
    _copy(best, work, limited)
    if limited:
        _copy_rows(ref_dirs, ref[2])
        _copy_rows(ref_axes, ref[1])
        for k in range(ref[3].shape[0]):
            ref[3][k, 0], ref[3][k, 1], ref[3][k, 2], ref[3][k, 3] = 0.0, 0.0, 0.0, 1.0
    root = _row3(best[0], 0)
    work_e = best_e = err
    count = 0
    mark = 0  # the step the stall window may start at
    restarted = own_ref  # the passes (re)started from the best pose, at error restart_e
    restart_e = err
    # A sweep after a pass that lost to the pass is kept (`memo`, its error memo_e): when the
    # next step starts from that pass's pose with the same reference, its sweep from the
    # step's start is that very sweep, and is not run again (a stalled chain's steps would
    # otherwise sweep the same pose twice each). Its buffers are made when first needed.
    memo = spare
    memo_e = 0.0
    memo_ok = memo_own = False
    while best_e > tol and count < cap:
        if limited:
            backward(work[0], work[1], kinds, params, work[2], lengths, target, True, aim)
            aim[0, 0], aim[0, 1], aim[0, 2] = root
            step(aim, ref, kinds, params, root_dir, lengths, cand)
        else:
            backward(work[0], work[1], kinds, params, ref_dirs, lengths, target, False, aim)
            aim[0, 0], aim[0, 1], aim[0, 2] = root
            forward(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, False, False, cand[0], cand[1], cand[2], cand[3])
        ce = _gap(cand[0], target)
        kept = False  # memo holds the sweep from this step's pass, which the step keeps
        if limited and ce > work_e * ccd_when_above:  # the pass is stalling: try the sweeps
            ccd(cand, ref, kinds, params, root_dir, lengths, target, swept, sweep, spare)
            se = _gap(spare[0], target)
            lost = not se < ce
            if not lost:
                cand, spare = spare, cand
                ce = se
            # Unless the sweep after the pass did it, the sweep from the step's start too:
            # the other way on. With cones only, not when the pass and that sweep got
            # nearer than the step's start either: there is no hinge plane for it to turn,
            # the next step goes on from there, and a chain held short by its cones swept
            # its start every step for next to nothing (on random cone chains the solves
            # end as near; with hinges the second sweep is what turns a plane).
            if ce > work_e * ccd_when_above and not (cones_only and ce < work_e):
                if memo_ok:  # the last step's sweep from its pass: this step's start
                    if memo_e < ce:
                        cand, memo = memo, cand
                        ce = memo_e
                    elif lost:
                        memo, spare = spare, memo
                        memo_e, kept = se, True
                else:
                    if lost:
                        if not memo_own:
                            memo = (np.empty_like(spare[0]), np.empty_like(spare[1]), np.empty_like(spare[2]), np.empty_like(spare[3]))
                            memo_own = True
                        memo, spare = spare, memo
                        memo_e, kept = se, True
                    ccd(work, ref, kinds, params, root_dir, lengths, target, swept, sweep, spare)
                    se = _gap(spare[0], target)
                    if se < ce:
                        cand, spare = spare, cand
                        ce = se
                        kept = False
        memo_ok = kept
        work, cand = cand, work
        work_e = ce
        improved = ce < best_e
        if improved:
            _copy(work, best, limited)
            best_e = ce
        errors[count] = best_e
        count += 1
        if limited and not improved and not (restarted and restart_e == best_e) and not _turned_less(best[2], ref[2], lengths):
            # A step that lost ground: go on from the best pose with its own frames at once
            # (the frames the passes read may be what holds it back), not from the worse one.
            _copy(best, work, True)
            _copy(best, ref, True)
            work_e = restart_e = best_e
            mark = count
            restarted = True
            memo_ok = False
            continue
        if count - mark >= STALL_PASSES:
            i = count - STALL_PASSES
            before = err if i == 0 else errors[i - 1]
            floor = STALL_PASSES * stall * before
            if floor < min_gain:
                floor = min_gain
            if before - best_e <= floor:
                # Stalled; a restart that gained no more than the floor since ends it, and
                # so does one whose reference is as good as the best pose's own frames.
                if not limited or (restarted and restart_e - best_e <= floor) or _turned_less(best[2], ref[2], lengths):
                    break
                _copy(best, work, True)
                _copy(best, ref, True)
                work_e = restart_e = best_e
                mark = count
                restarted = True
                memo_ok = False
    return best_e, count


# The same loop inlined, for the unlimited solve (free_row, its one caller): a call passes
# it some thirty arrays, which cost an unlimited N=10 solve 0.25 us of its 1.8. Inlined
# there with `limited` False, numba drops the limited branches (the CCD sweeps, the limited
# step) before typing them, so the copy costs little compile; the limited solve keeps the
# call (inlined there too, its host's compile grew by a quarter).
_iterate_inlined = numba.njit(cache=True, nogil=True, inline="always")(iterate.py_func)


@_jit
def _turned_less(dirs, ref_dirs, lengths):
    """Whether no bone turned by more than RESTART_TURN from the reference: then a restart
    with the pose's own frames would replay the same passes (frames carried by one arc or
    by two differ in twist by the order of the product of their angles)."""
    for k in range(lengths.shape[0]):
        if lengths[k] > TINY and dirs[k, 0] * ref_dirs[k, 0] + dirs[k, 1] * ref_dirs[k, 1] + dirs[k, 2] * ref_dirs[k, 2] < RESTART_COS:
            return False
    return True


# --- the arc start ----------------------------------------------------------------------------


@_jit
def arc_half_turn(q, r):
    """x in [0, pi] with sin(x)/x = q * sinc(r x): the half-turn of the arc whose bones, as
    chords, span q of the chain's length (r = sqrt(sum l^3) / L^1.5: exact for equal bones,
    right to second order otherwise). Newton from the root of 1 - x^2/6 + x^4/120 = q."""
    if q >= 1.0:
        return 0.0
    x = math.sqrt(10.0 - math.sqrt(100.0 - 120.0 * (1.0 - q))) if q > 1.0 / 6.0 else math.pi
    x = min(x, math.pi)
    qr = q * r
    for _ in range(GUESS_NEWTON_STEPS):
        sn, cs = math.sin(x), math.cos(x)
        rx = r * x
        sr, cr = math.sin(rx), math.cos(rx)
        if x > 1e-4:
            f, fs = sn / x, (x * cs - sn) / (x * x)
        else:
            f, fs = 1.0 - x * x / 6.0, -x / 3.0
        if rx > 1e-4:
            g, gs = sr / rx, (rx * cr - sr) / (rx * rx)
        else:
            g, gs = 1.0 - rx * rx / 6.0, -rx / 3.0
        slope = fs - qr * gs
        if slope >= 0.0:
            break
        step = (f - q * g) / slope
        x = min(max(x - step, 0.0), math.pi)
        if abs(step) < GUESS_SETTLED:
            break
    return x


@_jit
def _side(h, e1):
    """The unit part of h perpendicular to unit e1, and whether h has one (beyond
    SIDE_SINE of |h|). Orthogonalised twice: once only, a nearly parallel h leaves a "unit"
    vector tilted toward e1 by round-off / sine, and the arc's bones, built on e1 and it,
    would come out that much too long (a straight chain aimed near one of its own joints
    stretched its bones by 6e-7)."""
    hn = math.sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2])
    a = dot(h, e1)
    v = (h[0] - a * e1[0], h[1] - a * e1[1], h[2] - a * e1[2])
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if not (n > TINY and n > SIDE_SINE * hn):
        return False, v
    v = (v[0] / n, v[1] / n, v[2] / n)
    a = dot(v, e1)
    v = (v[0] - a * e1[0], v[1] - a * e1[1], v[2] - a * e1[2])
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return True, (v[0] / n, v[1] / n, v[2] / n)


@_jit
def arc_pose(root, target, lengths, total, straight, hint, has_hint, tolerance, out):
    """The chain bent into a circular arc from root toward target, into `out` (n, 3): the
    polygon of bones inscribed in a circle, bulging toward `hint` (a vector from the root,
    the pole side) or, without one, the side `straight` (the straight chain's unit
    direction) leans to. The half-turn solves sin(x)/x = chord/length for a smooth arc,
    Newton on the real polygon closes the gap, and one rotation about the root puts the
    tip on the root-target line."""
    m = lengths.shape[0]
    to_t = (target[0] - root[0], target[1] - root[1], target[2] - root[2])
    chord = math.sqrt(dot(to_t, to_t))
    # On the root the chord has no direction; the circle then starts out along the chain.
    e1 = unit_or(to_t, (-straight[0], -straight[1], -straight[2]))
    found = False
    e2 = e1
    if has_hint:
        found, e2 = _side(hint, e1)
    if not found:
        found, e2 = _side(straight, e1)
    if not found:
        e2 = perpendicular(e1)
    # Each bone as (l cos, l sin) of its angle from the chord, kept in out[1:, 0:2].
    acc = cube = 0.0
    for k in range(m):
        l = lengths[k]
        out[k + 1, 2] = 1.0 - (acc + acc + l) / total  # its weight: +1 at the root end, -1 at the tip
        acc += l
        cube += l * l * l
    x = arc_half_turn(chord / total, math.sqrt(cube / total) / total)
    close_enough = ARC_FRACTION_OF_TOLERANCE * tolerance
    sx = sy = span = 0.0
    for step in range(ARC_NEWTON_STEPS + 1):
        sx = sy = 0.0
        for k in range(m):
            th = x * out[k + 1, 2]
            lc = lengths[k] * math.cos(th)
            ls = lengths[k] * math.sin(th)
            sx += lc
            sy += ls
            out[k + 1, 0], out[k + 1, 1] = lc, ls
        span = math.sqrt(sx * sx + sy * sy)
        gap = span - chord
        if abs(gap) <= close_enough or span <= TINY or step == ARC_NEWTON_STEPS:
            break
        dsx = dsy = 0.0
        for k in range(m):
            w = out[k + 1, 2]
            dsx -= w * out[k + 1, 1]
            dsy += w * out[k + 1, 0]
        slope = (sx * dsx + sy * dsy) / span
        if slope >= 0.0:
            break  # past the fold where bending more stops bringing the tip in
        x = min(max(x - gap / slope, 0.0), math.pi)
    cp, sp = (sx / span, -sy / span) if span > TINY else (1.0, 0.0)
    # Rotating every bone by the same angle turns the polygon about the root onto the chord.
    ax, ay, az = cp * e1[0] + sp * e2[0], cp * e1[1] + sp * e2[1], cp * e1[2] + sp * e2[2]
    bx, by, bz = cp * e2[0] - sp * e1[0], cp * e2[1] - sp * e1[1], cp * e2[2] - sp * e1[2]
    px, py, pz = root[0], root[1], root[2]
    out[0, 0], out[0, 1], out[0, 2] = px, py, pz
    for k in range(m):
        c, s = out[k + 1, 0], out[k + 1, 1]
        px += c * ax + s * bx
        py += c * ay + s * by
        pz += c * az + s * bz
        out[k + 1, 0], out[k + 1, 1], out[k + 1, 2] = px, py, pz


@_jit
def hinge_bend_side(kinds, params, ref_axes, toward):
    """Which way an arc start should bulge so the first hinge bends the way it can: a chain
    curling from side e2 toward the target e1 turns about e2 x e1, so e2 = e1 x axis bends
    it positively, axis x e1 negatively; the side with more room in the range wins.
    Returns (found, side)."""
    for k in range(kinds.shape[0]):
        if kinds[k] == HINGE:
            side = cross(toward, _row3(ref_axes, k))
            if params[k, 1] >= -params[k, 0]:
                return True, side
            return True, (-side[0], -side[1], -side[2])
    return False, toward


# --- the row -----------------------------------------------------------------------------------


@_inline
def start_directions(pts, root_dir, has_root_dir, toward, out):
    """Unit bone directions of `pts` into out (m, 3): a zero-length bone takes its parent's
    (root_dir for bone 0, when given), the first bones with no parent direction take the
    first real one, and a chain with no length at all points `toward` (or up)."""
    m = pts.shape[0] - 1
    have = has_root_dir
    prev = (root_dir[0], root_dir[1], root_dir[2])
    first = -1
    for k in range(m):
        dx, dy, dz = pts[k + 1, 0] - pts[k, 0], pts[k + 1, 1] - pts[k, 1], pts[k + 1, 2] - pts[k, 2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
        if d > TINY:
            prev = (dx / d, dy / d, dz / d)
            have = True
            if first < 0:
                first = k
        if have:
            out[k, 0], out[k, 1], out[k, 2] = prev
    if not has_root_dir:
        if first >= 0:
            u = _row3(out, first)
        else:
            u = unit_or(toward, (0.0, 1.0, 0.0))
        for k in range(first if first >= 0 else m):
            out[k, 0], out[k, 1], out[k, 2] = u


@_inline
def solve_row(
    start, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, limited, conform, tol, cap, hint, has_hint,
    arc_start, errors, out, ps, vs, ts,
):  # fmt: skip
    """FABRIK on one chain, from the points `start` (n, 3) toward `target` (3,), bones
    `lengths` (m,), limits as the module says (kinds all NONE and limited False for none;
    ref_dirs the start's bone directions in any case: a joint on top of its anchor falls
    back on them). `conform`: first rebuild the start from its root along its frames'
    directions with these lengths and limits (a start that may not meet them). `hint`: a
    vector from the root toward the pole side, for the arc start. Writes the solved pose
    to `out` (points, axes, dirs, turns; only points when unlimited) and each step's error
    to `errors`. Work space from the caller (workspace()): `ps` (>= 6, n, 3), `vs` (8, m, 3)
    and `ts` (5, m, 4); unlimited, vs and ts are never touched (vs may be ps itself, ts
    empty). Returns (error, steps, moved: whether the pose is not the start's own)."""
    n = start.shape[0]
    m = n - 1
    # Three poses and the limited passes' reference pose, the backward pass's points (also
    # the arc's), the sweep's rebuilt points and its turns: views by index (a reshape costs
    # numba a helper call, more than an allocation).
    work, cand, spare = (ps[0], vs[0], vs[1], ts[0]), (ps[1], vs[2], vs[3], ts[1]), (ps[2], vs[4], vs[5], ts[2])
    ref = (ps[5], vs[6], vs[7], ts[4])
    aim, swept, sweep = ps[3], ps[4], ts[3]
    root = (start[0, 0], start[0, 1], start[0, 2])
    toward = (target[0] - root[0], target[1] - root[1], target[2] - root[2])
    total = 0.0
    for k in range(m):
        total += lengths[k]
    moved = arc_taken = False
    if conform:
        forward(start, kinds, params, ref_dirs, ref_axes, root_dir, lengths, True, limited, out[0], out[1], out[2], out[3])
        moved = True
    else:
        _copy_rows(start, out[0])
        if limited:
            _copy_rows(ref_axes, out[1])
            _copy_rows(ref_dirs, out[2])
            for k in range(m):
                out[3][k, 0], out[3][k, 1], out[3][k, 2], out[3][k, 3] = 0.0, 0.0, 0.0, 1.0
    reach = math.sqrt(toward[0] * toward[0] + toward[1] * toward[1] + toward[2] * toward[2])
    if not limited and reach > total:
        # Out of reach: straight toward the target (no limit can forbid it), no passes.
        u = (toward[0] / reach, toward[1] / reach, toward[2] / reach)
        pts = out[0]
        x, y, z = root
        for k in range(m):
            l = lengths[k]
            x, y, z = x + l * u[0], y + l * u[1], z + l * u[2]
            pts[k + 1, 0], pts[k + 1, 1], pts[k + 1, 2] = x, y, z
        return _gap(pts, target), 0, True
    err = _gap(out[0], target)
    if err <= tol or cap <= 0:
        return err, 0, moved
    if arc_start and total > TINY:
        dx, dy, dz = out[0][m, 0] - root[0], out[0][m, 1] - root[1], out[0][m, 2] - root[2]
        span = math.sqrt(dx * dx + dy * dy + dz * dz)
        if span >= total * (1.0 - STRAIGHT_RELATIVE):
            straight = (dx / span, dy / span, dz / span)
            side, found = (hint[0], hint[1], hint[2]), has_hint
            if not found and limited:
                found, side = hinge_bend_side(kinds, params, ref_axes, toward)
            arc_pose(root, target, lengths, total, straight, side, found, tol, aim)
            if limited:
                forward(aim, kinds, params, ref_dirs, ref_axes, root_dir, lengths, False, True, cand[0], cand[1], cand[2], cand[3])
            else:
                _copy_rows(aim, cand[0])
            arc_err = _gap(cand[0], target)
            if arc_err < err - ARC_GAIN_RELATIVE * total:
                _copy(cand, out, limited)
                err = arc_err
                moved = arc_taken = True
    cones_only = True
    if limited:
        for k in range(m):
            if kinds[k] == HINGE:
                cones_only = False
    when = CONES_CCD_WHEN_ABOVE if cones_only else CCD_WHEN_ABOVE
    if limited:
        best_e, count = iterate(
            out, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths, target, True,
            err, tol, cap, STALL_RELATIVE * total, LIMITED_STALL, when, cones_only, not (conform or arc_taken), errors,
        )  # fmt: skip
    else:
        best_e, count = _iterate_inlined(
            out, work, cand, spare, ref, aim, swept, sweep, kinds, params, ref_dirs, ref_axes, root_dir, lengths, target, False,
            err, tol, cap, STALL_RELATIVE * total, 0.0, when, cones_only, not (conform or arc_taken), errors,
        )  # fmt: skip
    return best_e, count, moved or best_e < err


# --- entry points -------------------------------------------------------------------------------


@_inline
def _lengths_ok(pts, lengths, given):
    """Bone lengths of pts into `lengths` (unless given), and whether every coordinate is
    finite: each feeds a bone length, so NaN or inf anywhere shows in their sum."""
    m = pts.shape[0] - 1
    total = 0.0
    for k in range(m):
        dx, dy, dz = pts[k + 1, 0] - pts[k, 0], pts[k + 1, 1] - pts[k, 1], pts[k + 1, 2] - pts[k, 2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
        total += d
        if not given:
            lengths[k] = d
    return math.isfinite(total)


# free_row is compiled once, for fabrik_free and fabrik_rows alike: inlined into both, its
# solve (the largest code here) was typed, lowered and optimised twice, and inside
# fabrik_rows' parallel loop the parfor passes went over all of it (a third of the
# kernels' compile). Typed, so a literal flag from a caller does not compile it again.
_ROW_SIG = (
    "Tuple((int64, float64, int64))(float64[:, ::1], float64[::1], float64[::1], boolean, float64[::1], boolean, boolean,"
    " float64, int64, float64[:, ::1], float64[::1], float64[:, :, ::1], float64[:, :, ::1], int64[::1])"
)


@numba.njit(_ROW_SIG, cache=True, nogil=True)
def free_row(pts, target, lengths, given, hint, has_hint, arc_start, tol, cap, out, errors, ps, ts, kinds):
    """fabrik_free's solve once its shapes are checked, in the work space ps (7, n, 3), ts
    (5, 0, 4) and kinds (0,) (a batch reuses them from row to row); `lengths` receives the
    bone lengths unless given. Returns (status, error, steps)."""
    m = pts.shape[0] - 1
    if not _lengths_ok(pts, lengths, given):
        return BAD_POINTS, 0.0, 0
    if not (math.isfinite(target[0]) and math.isfinite(target[1]) and math.isfinite(target[2])):
        return BAD_TARGET, 0.0, 0
    dirs = ps[6, :m]
    toward = (target[0] - pts[0, 0], target[1] - pts[0, 1], target[2] - pts[0, 2])
    start_directions(pts, hint, False, toward, dirs)
    # Stand-ins for the limit arrays, never read: `limited` is False.
    rows = ps[6, :0]
    err, count, _ = solve_row(
        pts, target, lengths, kinds, rows, dirs, rows, hint, False, given, tol, cap, hint, has_hint,
        arc_start, errors, (out, rows, rows, ts[0]), ps, ps, ts,
    )  # fmt: skip
    return OK, err, count


# fabrik_free's options, one bit each
GIVEN_LENGTHS, HAS_HINT, ARC_START = 1, 2, 4


@_inline
def _free_entry(pts, target, lengths, hint, tol, cap, options, out, errors):
    """fabrik_free's body (see there), shared with fabrik_plain."""
    n = pts.shape[0]
    if n < 2 or pts.shape[1] != 3 or out.shape[0] != n or out.shape[1] != 3 or errors.shape[0] < max(cap, 1):
        return BAD_SHAPE, 0.0, 0
    if target.shape[0] != 3 or hint.shape[0] != 3:
        return BAD_TARGET, 0.0, 0
    m = n - 1
    given = (options & GIVEN_LENGTHS) != 0
    if not given:
        lengths = np.empty(m)
    elif lengths.shape[0] != m:
        return BAD_SHAPE, 0.0, 0
    # One allocation for the points work space and the start's directions (an allocation
    # costs about as much as a bone's step of a pass; one buffer cut into the other arrays
    # by reshape and view cost more still).
    ps = np.empty((7, n, 3))
    return free_row(
        pts, target, lengths, given, hint, (options & HAS_HINT) != 0, (options & ARC_START) != 0, tol, cap, out, errors,
        ps, np.empty((5, 0, 4)), np.empty(0, np.int64),
    )  # fmt: skip


# fabrik() calls this with the caller's own arrays: typed once, so a call costs numba no
# type inference, and an array of any other kind (strided, read-only, float32) is refused
# with a TypeError (fabrik's slow path then copies it) instead of compiled for again.
_FREE_SIG = "Tuple((int64, float64, int64))(float64[:, ::1], float64[::1], float64[::1], float64[::1], float64, int64, int64, float64[:, ::1], float64[::1])"


@numba.njit(_FREE_SIG, cache=True, nogil=True)
def fabrik_free(pts, target, lengths, hint, tol, cap, options, out, errors):
    """fabrik() without limits, checks included: bone lengths from pts (or `lengths` when
    options has GIVEN_LENGTHS: then the chain is first rebuilt along its directions with
    them); `hint` (from the root toward the pole side) read when HAS_HINT; the arc start
    with ARC_START. `out` (n, 3) and `errors` (>= max(cap, 1)) receive the result. Returns
    (status, error, steps); a status other than OK leaves the caller to say what is wrong."""
    return _free_entry(pts, target, lengths, hint, tol, cap, options, out, errors)


_PLAIN_SIG = "Tuple((int64, float64, int64))(float64[:, ::1], float64[::1], float64, int64, int64, float64[:, ::1], float64[::1])"


@numba.njit(_PLAIN_SIG, cache=True, nogil=True)
def fabrik_plain(pts, target, tol, cap, options, out, errors):
    """fabrik_free with neither given lengths nor a hint (options: ARC_START or 0): fabrik()'s
    common call, with two arrays fewer for numba to unbox (~0.1 us of a 3 us call)."""
    return _free_entry(pts, target, errors[:0], target, tol, cap, options & ARC_START, out, errors)


# The limited solve, compiled once for fabrik_limited and rig_limited (inlined into each, it
# was typed, lowered and optimised twice: a fifth of the kernels' compile). Typed, so the
# literal flags rig_limited passes do not compile it again.
_LIMITED_SIG = (
    "Tuple((float64, int64, boolean))(float64[:, ::1], float64[::1], float64[::1], int64[::1], float64[:, ::1],"
    " float64[:, ::1], float64[:, ::1], float64[::1], boolean, float64, int64, float64[::1], boolean, boolean,"
    " float64[::1], UniTuple(float64[:, ::1], 4), float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1])"
)


@numba.njit(_LIMITED_SIG, cache=True, nogil=True)
def limited_row(
    start, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, conform, tol, cap, hint, has_hint, arc_start,
    errors, out, ps, vs, ts,
):  # fmt: skip
    """solve_row with limits (see there)."""
    return solve_row(
        start, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, True, conform, tol, cap, hint, has_hint,
        arc_start, errors, out, ps, vs, ts,
    )  # fmt: skip


@_inline
def workspace(n):
    """solve_row's limited work space for a chain of n points: (ps, vs, ts)."""
    return np.empty((6, n, 3)), np.empty((8, n - 1, 3)), np.empty((5, n - 1, 4))


@_jit
def fabrik_limited(
    pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, frames, has_frames, tol, cap, hint, has_hint,
    arc_start, conform, errors, out_pts, out_axes, out_dirs, out_turns, out_frames,
):  # fmt: skip
    """fabrik() with limits prepared (chain_frames.py): solve_row, then each bone's frame at
    the result (its turn times its reference frame, normalised) into out_frames when the
    reference frames are given. Returns (error, steps, moved)."""
    ps, vs, ts = workspace(pts.shape[0])
    err, count, moved = limited_row(
        pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, conform, tol, cap, hint, has_hint,
        arc_start, errors, (out_pts, out_axes, out_dirs, out_turns), ps, vs, ts,
    )  # fmt: skip
    if has_frames:
        for k in range(lengths.shape[0]):
            w = qmul(_row3q(out_turns, k), _row3q(frames, k))
            nw = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3])
            out_frames[k, 0], out_frames[k, 1], out_frames[k, 2], out_frames[k, 3] = w[0] / nw, w[1] / nw, w[2] / nw, w[3] / nw
    return err, count, moved


@_jit
def rig_limited(
    pts, tx, ty, tz, lengths, kinds, params, ref_dirs, ref_axes, root_dir, frames, bx, by, bz, bw, tol, cap, px, py, pz,
    has_pole, errors, out_pts, out_axes, out_dirs, out_turns, out_locals, out_world,
):  # fmt: skip
    """A rig chain's limited solve in one call, warm-started from its own last result
    (which meets its limits): solve_row toward (tx, ty, tz), the arc start bulging toward
    the pole (px, py, pz) when has_pole, then (when the pose moved) `turned_locals` from
    the root parent's world rotation (bx, by, bz, bw) and the bones' warm-start world
    frames. Floats, not arrays, where they are few: numba takes a float for less than it
    takes an array. Returns (error, steps, moved)."""
    target = np.array((tx, ty, tz))
    hint = np.array((px - pts[0, 0], py - pts[0, 1], pz - pts[0, 2]))
    ps, vs, ts = workspace(pts.shape[0])
    err, count, moved = limited_row(
        pts, target, lengths, kinds, params, ref_dirs, ref_axes, root_dir, False, tol, cap, hint, has_pole,
        True, errors, (out_pts, out_axes, out_dirs, out_turns), ps, vs, ts,
    )  # fmt: skip
    if moved:
        turned_locals(bx, by, bz, bw, frames, out_turns, out_locals, out_world)
    return err, count, moved


@_jit
def rig_free(pts, target, tol, cap, hint, has_hint, errors, out):
    """A rig chain's unlimited solve: fabrik_free from its warm start. Returns (error, steps)."""
    _, err, count = fabrik_free(pts, target, errors[:0], hint, tol, cap, ARC_START | (HAS_HINT if has_hint else 0), out, errors)
    return err, count




@numba.njit(cache=True, nogil=True, parallel=True)
def fabrik_rows(pts, target, tol, cap, hints, has_hint, arc_start, out, iterations, error):
    """fabrik_free over rows (N, n, 3), in parallel: each row is the single-chain solve.
    Returns the first row whose points are not finite, or -1."""
    rows = pts.shape[0]
    bad = np.zeros(rows, np.bool_)
    if rows == 0:
        return -1
    n = pts.shape[1]
    # Rows in chunks, each with its own work space: a row's solve is ~1 us, and five
    # allocations a row would cost a tenth of it.
    chunk = 64
    chunks = (rows + chunk - 1) // chunk
    for c in numba.prange(chunks):
        errors = np.empty(max(cap, 1))
        lengths = np.empty(n - 1)
        ps = np.empty((7, n, 3))
        ts = np.empty((5, 0, 4))
        kinds = np.empty(0, np.int64)
        for i in range(c * chunk, min(rows, (c + 1) * chunk)):
            status, e, count = free_row(
                pts[i], target[i], lengths, False, hints[i], has_hint, arc_start, tol, cap, out[i], errors, ps, ts, kinds
            )
            bad[i] = status != OK
            iterations[i] = count
            error[i] = e
    for i in range(rows):
        if bad[i]:
            return i
    return -1


@_jit
def turned_locals(bx, by, bz, bw, frames, turns, out, world):
    """The local rotations of a limited result's joints (all but the tip) and its bones'
    world frames: each bone's reference frame turned by the turn its forward pass carried,
    then seen from its parent's new frame (rig_solve.turned_locals). Written to `out` and
    `world`, from the root parent's world rotation (bx, by, bz, bw)."""
    m = turns.shape[0]
    parent = (bx, by, bz, bw)
    for k in range(m):
        # Both unit to round-off, and w only feeds the normalised local rotations and, as
        # the next warm start's frames, the next turn * frame: left as is.
        w = qmul(_row3q(turns, k), _row3q(frames, k))
        lx, ly, lz, lw = qmul(qconj(parent), w)
        n = math.sqrt(lx * lx + ly * ly + lz * lz + lw * lw)
        out[k, 0], out[k, 1], out[k, 2], out[k, 3] = lx / n, ly / n, lz / n, lw / n
        world[k, 0], world[k, 1], world[k, 2], world[k, 3] = w
        parent = w
