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
exactly, as after a CCD sweep.
"""
from __future__ import annotations

import math

import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_passes, limits
from .fabrik_passes import CONE, HINGE, TINY, _jit, _row3, cross, dot, hinge_axis_found, perpendicular, turn_and_step

# Damping, relative to the tip's distance from the target: small enough that a step far from
# the target goes most of the way, large enough that a joint near a singular pose (a chain
# stretched straight) is not thrown about.
DAMPING = 0.1
# A turn per joint larger than this (radians) is scaled down: the Jacobian is a tangent, and
# the loop keeps a step only when it ends nearer.
MAX_TURN = 0.5
# A joint within this (radians) of its limit counts as on it.
ON_LIMIT = 1e-6
# The turn (radians) by which a joint is probed for its column of the Jacobian: the
# columns' error is of the order of PROBE times the chain's length.
PROBE = 1e-6
# A step that ends farther off is halved, at most this many times.
BACKTRACK = 3

fresh_cache(__file__, sq, limits, fabrik_passes)


@_jit
def _columns(kind, lo_cos, hi, u, parent, axis_row, r, e):
    """The joint's rotation axes (up to two, as (axis, used)) and their tip motions a x r; an
    axis whose turn would push the joint past its limit, as the tip error e wants it, is
    left out."""
    a1 = a2 = (0.0, 0.0, 0.0)
    use1 = use2 = False
    if kind == HINGE:
        found, a = hinge_axis_found(axis_row, parent)
        if found:
            b = cross(a, parent)
            th = math.atan2(dot(u, b), dot(u, parent))
            g = dot(cross(a, r), e)  # > 0: the error wants the angle to grow
            if not ((g > 0.0 and th >= hi - ON_LIMIT) or (g < 0.0 and th <= lo_cos + ON_LIMIT)):
                a1, use1 = a, True
        return a1, use1, a2, use2
    n = cross(parent, u)  # turning about n takes u away from the parent
    nn = math.sqrt(dot(n, n))
    if nn > TINY:
        a1 = (n[0] / nn, n[1] / nn, n[2] / nn)
    else:
        a1 = perpendicular(u)
    a2 = cross(u, a1)  # turning about it keeps u's angle to the parent
    use2 = True
    use1 = True
    if kind == CONE and dot(u, parent) <= lo_cos + ON_LIMIT and dot(cross(a1, r), e) > 0.0:
        use1 = False
    return a1, use1, a2, use2


@_jit
def dls(src, ref, kinds, params, root_dir, lengths, target, swept, sweep, out):
    """One damped least-squares step from the pose `src` into `out` (`swept`, `sweep`: work
    space as for fabrik_passes.ccd). Each column of the Jacobian is measured, not derived:
    the tip's motion when that joint alone turns a little about that axis and the pose is
    rebuilt as the step rebuilds it (turn_and_step), for every joint with a hinge beyond it.
    A turn carries the bones beyond rigidly, but the rebuilt pose carries their frames by
    shortest arcs and projects each bone back into its own hinge plane: the rigid columns
    (a x r) missed that twist, and the steps they gave crept in by a per cent a step where
    a hinge hung below a turning joint."""
    pts, axes, dirs, turns = src
    n = pts.shape[0]
    m = n - 1
    tip = (pts[m, 0], pts[m, 1], pts[m, 2])
    e = (target[0] - tip[0], target[1] - tip[1], target[2] - tip[2])
    en = math.sqrt(dot(e, e))
    # Per joint up to two axes (rows 2k and 2k + 1 of `ax`, zero when not used) and their
    # measured tip motions (`cols`); a probe pose and its turns.
    ax, cols = np.zeros((2 * m, 3)), np.zeros((2 * m, 3))
    probe = (np.empty((n, 3)), np.empty((m, 3)), np.empty((m, 3)), np.empty((m, 4)))
    # Only a hinge beyond a joint reads the frames its turn carries: the joints from the last
    # hinge on take their rigid columns (a x r), exactly what a probe would measure.
    last_hinge = 0
    for k in range(m):
        sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = 0.0, 0.0, 0.0, 1.0
        if kinds[k] == HINGE:
            last_hinge = k
    a00 = a01 = a02 = a11 = a12 = a22 = 0.0
    for k in range(m):
        if lengths[k] <= TINY:
            continue
        r = (tip[0] - pts[k, 0], tip[1] - pts[k, 1], tip[2] - pts[k, 2])
        parent = (root_dir[0], root_dir[1], root_dir[2]) if k == 0 else _row3(dirs, k - 1)
        a1, use1, a2, use2 = _columns(kinds[k], params[k, 0], params[k, 1], _row3(dirs, k), parent, _row3(axes, k), r, e)
        if kinds[k] == 0 or kinds[k] == 3:  # no limit, or a cone of 180 degrees: both axes always
            use1 = True
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
            a00 += c[0] * c[0]
            a01 += c[0] * c[1]
            a02 += c[0] * c[2]
            a11 += c[1] * c[1]
            a12 += c[1] * c[2]
            a22 += c[2] * c[2]
    lam = (DAMPING * en) ** 2
    a00 += lam
    a11 += lam
    a22 += lam
    # y = (J J^T + lam I)^-1 e, by Cramer's rule (symmetric 3 x 3, positive definite).
    c00, c01, c02 = a11 * a22 - a12 * a12, a02 * a12 - a01 * a22, a01 * a12 - a02 * a11
    det = a00 * c00 + a01 * c01 + a02 * c02
    if not det > 0.0:
        return False
    c11, c12, c22 = a00 * a22 - a02 * a02, a01 * a02 - a00 * a12, a00 * a11 - a01 * a01
    y = (
        (c00 * e[0] + c01 * e[1] + c02 * e[2]) / det,
        (c01 * e[0] + c11 * e[1] + c12 * e[2]) / det,
        (c02 * e[0] + c12 * e[1] + c22 * e[2]) / det,
    )
    # Each joint's turn: the sum of its axes times their angles (column . y), as a rotation
    # vector (kept in `ax`'s first row of the joint).
    biggest = 0.0
    for k in range(m):
        w = (0.0, 0.0, 0.0)
        for row in (2 * k, 2 * k + 1):
            t = cols[row, 0] * y[0] + cols[row, 1] * y[1] + cols[row, 2] * y[2]
            w = (w[0] + t * ax[row, 0], w[1] + t * ax[row, 1], w[2] + t * ax[row, 2])
        ax[2 * k, 0], ax[2 * k, 1], ax[2 * k, 2] = w
        biggest = max(biggest, math.sqrt(dot(w, w)))
    scale = MAX_TURN / biggest if biggest > MAX_TURN else 1.0
    # Each joint's turn carries the rest of the chain, as in the CCD sweep. A step that ends
    # farther off is halved (BACKTRACK times at most): far from the reference pose a
    # bone's frame (a shortest arc from its reference direction) turns fast with it, and
    # the tangent overshoots.
    for _ in range(BACKTRACK + 1):
        for k in range(m):
            w = (ax[2 * k, 0] * scale, ax[2 * k, 1] * scale, ax[2 * k, 2] * scale)
            angle = math.sqrt(dot(w, w))
            if angle > 0.0:
                s = math.sin(0.5 * angle) / angle
                sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = w[0] * s, w[1] * s, w[2] * s, math.cos(0.5 * angle)
            else:
                sweep[k, 0], sweep[k, 1], sweep[k, 2], sweep[k, 3] = 0.0, 0.0, 0.0, 1.0
        turn_and_step(pts, sweep, swept, ref, kinds, params, root_dir, lengths, out)
        dx, dy, dz = out[0][m, 0] - target[0], out[0][m, 1] - target[1], out[0][m, 2] - target[2]
        if dx * dx + dy * dy + dz * dz < en * en:
            break
        scale *= 0.5
    return True
