"""FABRIK's arc start: a straight chain (a bind pose) gives FABRIK no bend plane, so it is
first bent into a circular arc toward the target, bulging toward the pole side or the way
its first hinge can bend (`arc_pose`, `hinge_bend_side`).
"""
from __future__ import annotations

import math

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_passes
from .fabrik_passes import HINGE, TINY, _jit, _row3, cross, dot, perpendicular, unit_or

# Newton on the arc's polygon stops once the tip is this fraction of the tolerance from the
# target: FABRIK would spend a whole pass on what one more step here settles.
ARC_FRACTION_OF_TOLERANCE = 0.1
ARC_NEWTON_STEPS = 4
GUESS_NEWTON_STEPS = 4
GUESS_SETTLED = 1e-12
# A hint (pole side) closer than this sine to the chord leaves its side to round-off: the
# arc then bulges the way the next choice says.
SIDE_SINE = 1e-6

fresh_cache(__file__, sq, fabrik_passes)


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
def _arc_plane(root, target, straight, hint, has_hint):
    """(chord, e1, e2): the root-target distance, the unit chord direction and the unit side
    the arc bulges to (the hint's, else the straight chain's lean, else any perpendicular)."""
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
    return chord, e1, e2


@_jit
def _bend_polygon(x, lengths, chord, close_enough, out):
    """Newton on the half-turn x until the polygon's span meets the chord: each bone's
    (l cos, l sin) of its angle from the chord into out[1:, 0:2] (its weight, +1 at the root
    end and -1 at the tip, already in out[1:, 2]). Returns the polygon's end (sx, sy) and
    span."""
    m = lengths.shape[0]
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
    return sx, sy, span


@_jit
def arc_pose(root, target, lengths, total, straight, hint, has_hint, tolerance, out):
    """The chain bent into a circular arc from root toward target, into `out` (n, 3): the
    polygon of bones inscribed in a circle, bulging toward `hint` (a vector from the root,
    the pole side) or, without one, the side `straight` (the straight chain's unit
    direction) leans to. The half-turn solves sin(x)/x = chord/length for a smooth arc,
    Newton on the real polygon closes the gap, and one rotation about the root puts the
    tip on the root-target line."""
    m = lengths.shape[0]
    chord, e1, e2 = _arc_plane(root, target, straight, hint, has_hint)
    acc = cube = 0.0
    for k in range(m):
        l = lengths[k]
        out[k + 1, 2] = 1.0 - (acc + acc + l) / total  # its weight: +1 at the root end, -1 at the tip
        acc += l
        cube += l * l * l
    x = arc_half_turn(chord / total, math.sqrt(cube / total) / total)
    sx, sy, span = _bend_polygon(x, lengths, chord, ARC_FRACTION_OF_TOLERANCE * tolerance, out)
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
