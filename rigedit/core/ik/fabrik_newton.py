"""A damped least-squares step for a limited chain: the move limited FABRIK makes when its
passes and CCD sweeps stall short of a target the limits let it reach.

FABRIK's passes and CCD's sweeps each move one joint at a time toward the target; where the
limits hold every joint against its neighbours (a hinge that must open while the joint above
swings), each such move is undone by the next, and the tip crawls in or stops. This step
moves every joint at once: the tip's motion per joint angle (the Jacobian: a hinge turns
about its axis, a cone swings about two axes across its bone) is solved in the damped
least-squares sense, 3 x 3, for the turn that brings the tip onto the target; a joint held
at its limit and pushed further out takes no part. The turned points are then re-aimed by a
limited forward pass (fabrik_passes.step), which puts the frames and the limits back
exactly, as after a CCD sweep. A step that ends farther off is taken again with the tip's
curvature (fabrik_curved.py: out of reach, the tangent alone overshoots).
"""
from __future__ import annotations

import math

import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_curved, fabrik_passes, limits
from .fabrik_curved import ACTIVE_ROUNDS, curved
from .fabrik_passes import CONE, HINGE, TINY, _gap, _jit, _row3, cross, dot, hinge_axis_found, perpendicular, turn_and_step

# Damping, relative to the tip's distance from the target: small enough that a step far from
# the target goes most of the way, large enough that a joint near a singular pose (a chain
# stretched straight) is not thrown about.
DAMPING = 0.05
# A turn per joint larger than this (radians) is scaled down: the Jacobian is a tangent, and
# the loop keeps a step only when it ends nearer.
MAX_TURN = 1.0
# A joint within this (radians) of its limit counts as on it.
ON_LIMIT = 1e-6
# The turn (radians) by which a joint is probed for its column of the Jacobian: the
# columns' error is of the order of PROBE times the chain's length.
PROBE = 1e-6
# A step that ends farther off is halved, at most this many times.
BACKTRACK = 3

fresh_cache(__file__, sq, limits, fabrik_passes, fabrik_curved)


@_jit
def _columns(kind, lo_cos, hi, u, parent, axis_row, r, e):
    """The joint's rotation axes (up to two, as (axis, used)) and, for the first, which way
    of turning about it pushes past the limit the joint is on (`out`: +1, -1, or 0 when on
    none); an axis whose turn would push the joint past its limit, as the tip error e
    wants it (a x r . e), is left out."""
    a1 = a2 = (0.0, 0.0, 0.0)
    use1 = use2 = False
    out = 0.0
    if kind == HINGE:
        found, a = hinge_axis_found(axis_row, parent)
        if found:
            b = cross(a, parent)
            th = math.atan2(dot(u, b), dot(u, parent))  # turning about a by t adds t to it
            out = 1.0 if th >= hi - ON_LIMIT else -1.0 if th <= lo_cos + ON_LIMIT else 0.0
            if not out * dot(cross(a, r), e) > 0.0:
                a1, use1 = a, True
        return a1, use1, out, a2, use2
    n = cross(parent, u)  # turning about n takes u away from the parent
    nn = math.sqrt(dot(n, n))
    if nn > TINY:
        a1 = (n[0] / nn, n[1] / nn, n[2] / nn)
    else:
        a1 = perpendicular(u)
    a2 = cross(u, a1)  # turning about it keeps u's angle to the parent
    use1 = use2 = True
    if kind == CONE and dot(u, parent) <= lo_cos + ON_LIMIT:
        out = 1.0
        use1 = not dot(cross(a1, r), e) > 0.0
    return a1, use1, out, a2, use2


@_jit
def _measure(pts, dirs, axes, ref, kinds, params, root_dir, lengths, e, swept, sweep, probe, ax, cols, out):
    """The Jacobian's columns into `cols` (row 2k, 2k + 1: joint k's axes, in `ax`; zero
    rows for an axis not used) and `out` (_columns' side of each first axis). Each column
    is measured, not derived: the tip's motion when that joint alone turns a little about
    that axis and the pose is rebuilt as the step rebuilds it (turn_and_step), for every
    joint with a hinge beyond it. A turn carries the bones beyond rigidly, but the rebuilt
    pose carries their frames by shortest arcs and projects each bone back into its own
    hinge plane: the rigid columns (a x r) missed that twist, and the steps they gave crept
    in by a per cent a step where a hinge hung below a turning joint."""
    m = pts.shape[0] - 1
    tip = _row3(pts, m)
    # Only a hinge beyond a joint reads the frames its turn carries: the joints from the last
    # hinge on take their rigid columns (a x r), exactly what a probe would measure.
    last_hinge = 0
    for k in range(m):
        sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = 0.0, 0.0, 0.0, 1.0
        if kinds[k] == HINGE:
            last_hinge = k
    for k in range(m):
        if lengths[k] <= TINY:
            continue
        r = (tip[0] - pts[k, 0], tip[1] - pts[k, 1], tip[2] - pts[k, 2])
        parent = (root_dir[0], root_dir[1], root_dir[2]) if k == 0 else _row3(dirs, k - 1)
        a1, use1, side, a2, use2 = _columns(kinds[k], params[k, 0], params[k, 1], _row3(dirs, k), parent, _row3(axes, k), r, e)
        if kinds[k] == 0 or kinds[k] == 3:  # no limit, or a cone of 180 degrees: both axes always
            use1, side = True, 0.0
        out[2 * k] = side
        for a, used, row in ((a1, use1, 2 * k), (a2, use2, 2 * k + 1)):
            if not used:
                continue
            c = cross(a, r)
            if k < last_hinge:
                # The probe turns the way the error wants (away from a limit the joint is on).
                h = PROBE if dot(c, e) >= 0.0 else -PROBE
                s = math.sin(0.5 * h)
                sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = a[0] * s, a[1] * s, a[2] * s, math.cos(0.5 * h)
                turn_and_step(pts, sweep, swept, ref, kinds, params, root_dir, lengths, probe)
                sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = 0.0, 0.0, 0.0, 1.0
                c = ((probe[0][m, 0] - tip[0]) / h, (probe[0][m, 1] - tip[1]) / h, (probe[0][m, 2] - tip[2]) / h)
            ax[row, 0], ax[row, 1], ax[row, 2] = a
            cols[row, 0], cols[row, 1], cols[row, 2] = c


@_jit
def _solve(cols, lam, e):
    """y = (J J^T + lam I)^-1 e, J's columns the rows of `cols`, by Cramer's rule (symmetric
    3 x 3, positive definite). Returns (ok, y)."""
    a00 = a11 = a22 = lam
    a01 = a02 = a12 = 0.0
    for row in range(cols.shape[0]):
        c = _row3(cols, row)
        a00 += c[0] * c[0]
        a01 += c[0] * c[1]
        a02 += c[0] * c[2]
        a11 += c[1] * c[1]
        a12 += c[1] * c[2]
        a22 += c[2] * c[2]
    c00, c01, c02 = a11 * a22 - a12 * a12, a02 * a12 - a01 * a22, a01 * a12 - a02 * a11
    det = a00 * c00 + a01 * c01 + a02 * c02
    if not det > 0.0:
        return False, (0.0, 0.0, 0.0)
    c11, c12, c22 = a00 * a22 - a02 * a02, a01 * a02 - a00 * a12, a00 * a11 - a01 * a01
    y = (
        (c00 * e[0] + c01 * e[1] + c02 * e[2]) / det,
        (c01 * e[0] + c11 * e[1] + c12 * e[2]) / det,
        (c02 * e[0] + c12 * e[1] + c22 * e[2]) / det,
    )
    return True, y


@_jit
def _drop_pushing(cols, out, y):
    """Leave out (zero) each first axis of a joint on a limit whose turn in the step (its
    column . y) pushes past that limit: the gradient let it in, but the joints' coupling
    turned the step outward, and the clamp would undo that share of the step. Returns
    whether any was left out."""
    dropped = False
    for row in range(0, cols.shape[0], 2):
        if out[row] != 0.0 and out[row] * (cols[row, 0] * y[0] + cols[row, 1] * y[1] + cols[row, 2] * y[2]) > 0.0:
            cols[row, 0], cols[row, 1], cols[row, 2] = 0.0, 0.0, 0.0
            out[row] = 0.0
            dropped = True
    return dropped


@_jit
def _turns(ax, cols, y):
    """Each joint's turn, the sum of its axes times their angles (column . y), as a rotation
    vector into ax's first row of the joint. Returns the largest angle."""
    biggest = 0.0
    for k in range(ax.shape[0] // 2):
        w = (0.0, 0.0, 0.0)
        for row in (2 * k, 2 * k + 1):
            t = cols[row, 0] * y[0] + cols[row, 1] * y[1] + cols[row, 2] * y[2]
            w = (w[0] + t * ax[row, 0], w[1] + t * ax[row, 1], w[2] + t * ax[row, 2])
        ax[2 * k, 0], ax[2 * k, 1], ax[2 * k, 2] = w
        biggest = max(biggest, math.sqrt(dot(w, w)))
    return biggest


@_jit
def _apply(pts, turns, scale, swept, sweep, ref, kinds, params, root_dir, lengths, out):
    """Each joint turned by its rotation vector turns[k] times scale, carrying the rest of
    the chain (as in the CCD sweep), the pose rebuilt into `out`."""
    for k in range(turns.shape[0]):
        w = (turns[k, 0] * scale, turns[k, 1] * scale, turns[k, 2] * scale)
        angle = math.sqrt(dot(w, w))
        if angle > 0.0:
            s = math.sin(0.5 * angle) / angle
            sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = w[0] * s, w[1] * s, w[2] * s, math.cos(0.5 * angle)
        else:
            sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = 0.0, 0.0, 0.0, 1.0
    turn_and_step(pts, sweep, swept, ref, kinds, params, root_dir, lengths, out)


@_jit
def dls(src, ref, kinds, params, root_dir, lengths, target, swept, sweep, out):
    """One damped least-squares step from the pose `src` into `out` (`swept`, `sweep`: work
    space as for fabrik_passes.ccd), its frames read against `ref` (the loop passes `src`
    itself: against a far reference, a bone's frame, one shortest arc from its reference
    direction, twists fast as it turns, and the steps overshot). A step that ends farther
    off is taken again with the tip's curvature (fabrik_curved.curved), halved up to
    BACKTRACK times, and when none of those ends nearer, the least-squares step is halved
    as many times. Returns whether a step was made."""
    pts, axes, dirs, turns = src
    n = pts.shape[0]
    m = n - 1
    e = (target[0] - pts[m, 0], target[1] - pts[m, 1], target[2] - pts[m, 2])
    en = math.sqrt(dot(e, e))
    # One allocation for the axes, the columns and the sides, their copies for the curved
    # step and the joints' turns (a step of a drag makes several).
    jac = np.zeros((2 * m, 17))
    ax, cols, side = jac[:, 0:3], jac[:, 3:6], jac[:, 6]
    probe = (np.empty((n, 3)), np.empty((m, 3)), np.empty((m, 3)), np.empty((m, 4)))
    _measure(pts, dirs, axes, ref, kinds, params, root_dir, lengths, e, swept, sweep, probe, ax, cols, side)
    jac[:, 7:14] = jac[:, 0:7]
    lam = (DAMPING * en) ** 2
    for _ in range(ACTIVE_ROUNDS + 1):
        ok, y = _solve(cols, lam, e)
        if not ok:
            return False
        if not _drop_pushing(cols, side, y):
            break
    first = _turns(ax, cols, y)
    step = jac[:m, 14:17]
    for k in range(m):
        step[k, 0], step[k, 1], step[k, 2] = ax[2 * k, 0], ax[2 * k, 1], ax[2 * k, 2]
    _apply(pts, step, MAX_TURN / first if first > MAX_TURN else 1.0, swept, sweep, ref, kinds, params, root_dir, lengths, out)
    if _gap(out[0], target) < en:
        return True
    # Each joint's turn carries the rest of the chain, as in the CCD sweep. The Jacobian is
    # a tangent: a step that ends farther off is taken with the curvature (the turns into
    # `bent`), then halved; failing that, the tangent step halved.
    ax, cols, side = jac[:, 7:10], jac[:, 10:13], jac[:, 13]
    bent = jac[m:, 14:17]
    if curved(pts, ax, cols, side, e, lam, np.empty((2 * m, 2 * m + 1)), bent):
        biggest = 0.0
        for k in range(m):
            biggest = max(biggest, math.sqrt(dot(_row3(bent, k), _row3(bent, k))))
        if biggest < PROBE:
            # The optimum as far as the measured columns can tell (a chain held short of
            # its target, every step of a drag): nothing to take, and no halving either.
            return True
        scale = MAX_TURN / biggest if biggest > MAX_TURN else 1.0
        for _ in range(BACKTRACK + 1):
            _apply(pts, bent, scale, swept, sweep, ref, kinds, params, root_dir, lengths, out)
            if _gap(out[0], target) < en:
                return True
            scale *= 0.5
    scale = 0.5 * (MAX_TURN / first if first > MAX_TURN else 1.0)
    for _ in range(BACKTRACK):
        _apply(pts, step, scale, swept, sweep, ref, kinds, params, root_dir, lengths, out)
        if _gap(out[0], target) < en:
            break
        scale *= 0.5
    return True
