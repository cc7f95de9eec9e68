"""A better first pose for FABRIK when the chain starts straight (issue #7).

FABRIK from a straight chain is slow when the target is near the root: each pass curls the
chain a little more, and about a fifth of random reachable targets are still outside 1 mm
after 10 passes on a 10-joint chain. A straight chain also says nothing about which way to
bend. So a straight start is first bent into a circular arc from the root to the target:
the polygon of bones inscribed in a circle, its bulge toward the pole (or, without one,
the side the chain already leans to). The arc's half-turn x solves sin(x)/x = chord/length
for a smooth arc, then Newton on the real polygon closes the gap, and a rotation about the
root puts the tip on the root-target line. What is left is usually far under a millimetre;
FABRIK passes finish the rest. The solver keeps this pose only when it is nearer the target.
"""
from __future__ import annotations

from math import cos, pi, sin, sqrt

import numpy as np

from ._floats import TINY, dot, perpendicular, unit_or

# Newton on the polygon stops once the tip is this fraction of the tolerance from the
# target: FABRIK would spend a whole pass on what one more Newton step here settles.
ARC_FRACTION_OF_TOLERANCE = 0.1
ARC_NEWTON_STEPS = 4
# Newton steps for the smooth-arc guess: four settle it to round-off for equal bones,
# and a step this small (radians) means it has.
GUESS_NEWTON_STEPS = 4
GUESS_SETTLED = 1e-12
# A chain counts as straight when its tip is this close (relative) to its full reach:
# bends up to about 0.1 degree, which give FABRIK no usable bend plane either.
STRAIGHT_RELATIVE = 1e-6
# The arc replaces the start only when it is nearer by more than this fraction of the chain's
# length. Round-off is ~1e-16 of it; a tie (a single bone, or one real bone among zero-length
# ones, whose target is on the root: every direction is equally near) would otherwise be
# broken by the last bit, differently in fabrik and fabrik_batch. A tie keeps the start.
ARC_GAIN_RELATIVE = 1e-12


def arc_half_turn(q: float, r: float) -> float:
    """x in [0, pi] with sin(x)/x = q * sinc(r x): the half-turn of the arc whose bones, as
    chords, span q of the chain's length.

    The bones are chords, not arcs: a bone spanning 2 d of the turn is sinc(d) shorter than
    its arc. For equal bones that shortens every bone alike, r = 1/m for m bones, and the
    equation is exact; r = sqrt(sum l^3) / L^1.5 keeps it right to second order otherwise.
    Newton starts from the root of 1 - x^2/6 + x^4/120 = q (right of the smooth-arc root,
    since the series overestimates sin(x)/x; the chord correction only moves the root right).
    """
    if q >= 1.0:
        return 0.0
    x = sqrt(10.0 - sqrt(100.0 - 120.0 * (1.0 - q))) if q > 1.0 / 6.0 else pi
    x = min(x, pi)
    qr = q * r
    for _ in range(GUESS_NEWTON_STEPS):
        # sin(x)/x - q sin(rx)/(rx) and its slope, written out: this runs on every cold solve.
        sn, cs = sin(x), cos(x)
        rx = r * x
        sr, cr = sin(rx), cos(rx)
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
        x = min(max(x - step, 0.0), pi)
        if abs(step) < GUESS_SETTLED:
            break
    return x


def arc_pose(root, target, lengths, total, straight_dir, hint, tolerance):
    """Points [(x, y, z), ...] of the chain bent into an arc from root toward target.

    straight_dir: unit direction of the straight start chain (the bulge leans its way when
    there is no hint); hint: a vector from the root toward the pole, or None.
    """
    to_t = (target[0] - root[0], target[1] - root[1], target[2] - root[2])
    chord = sqrt(dot(to_t, to_t))
    # On the root the chord has no direction; the circle then starts out along the chain.
    e1 = unit_or(to_t, (-straight_dir[0], -straight_dir[1], -straight_dir[2]))
    e2 = None
    for h in (hint, straight_dir):
        if h is not None:
            a = dot(h, e1)
            e2 = unit_or((h[0] - a * e1[0], h[1] - a * e1[1], h[2] - a * e1[2]), None)
            if e2 is not None:
                break
    if e2 is None:
        e2 = perpendicular(e1)
    cs, cp, sp = arc_angles(lengths, total, chord, tolerance)
    # Rotating every bone by the same angle turns the polygon about the root onto the chord.
    ax, ay, az = cp * e1[0] + sp * e2[0], cp * e1[1] + sp * e2[1], cp * e1[2] + sp * e2[2]
    bx, by, bz = cp * e2[0] - sp * e1[0], cp * e2[1] - sp * e1[1], cp * e2[2] - sp * e1[2]
    x, y, z = root
    out = [(x, y, z)]
    for c, s in cs:
        x += c * ax + s * bx
        y += c * ay + s * by
        z += c * az + s * bz
        out.append((x, y, z))
    return out


def arc_angles(lengths, total, chord, tolerance):
    """Each bone as (l cos, l sin) of its angle from the chord, positive toward the bulge,
    and the (cos, sin) of the turn that puts the polygon's tip on the chord."""
    w = []
    acc = cube = 0.0
    for l in lengths:
        w.append(1.0 - (acc + acc + l) / total)  # +1 at the root end, -1 at the tip end
        acc += l
        cube += l * l * l
    x = arc_half_turn(chord / total, sqrt(cube / total) / total)
    close_enough = ARC_FRACTION_OF_TOLERANCE * tolerance
    for step in range(ARC_NEWTON_STEPS + 1):
        sx = sy = 0.0
        cs = []
        for l, a in zip(lengths, w):
            th = x * a
            lc = l * cos(th)
            ls = l * sin(th)
            sx += lc
            sy += ls
            cs.append((lc, ls))
        span = sqrt(sx * sx + sy * sy)
        gap = span - chord
        if abs(gap) <= close_enough or span <= TINY or step == ARC_NEWTON_STEPS:
            break
        # d(span)/dx, only now: with equal bones the guess is exact and this is never needed.
        dsx = dsy = 0.0
        for a, (lc, ls) in zip(w, cs):
            dsx -= a * ls
            dsy += a * lc
        slope = (sx * dsx + sy * dsy) / span
        if slope >= 0.0:
            break  # past the fold where bending more stops bringing the tip in
        x = min(max(x - gap / slope, 0.0), pi)
    if span > TINY:
        return cs, sx / span, -sy / span
    return cs, 1.0, 0.0


def is_straight(span: float, total: float) -> bool:
    return total > TINY and span >= total * (1.0 - STRAIGHT_RELATIVE)


# The same, vectorised over chains, for fabrik_batch: vectors are (3, M) (one column a
# chain), lengths (m, M). Each step mirrors the float code above, so a chain gets the same
# arc either way.


def _sinc_v(x):
    big = x > 1e-4
    safe = np.where(big, x, 1.0)
    return np.where(big, np.sin(x) / safe, 1.0 - x * x / 6.0)


def _sinc_slope_v(x):
    big = x > 1e-4
    safe = np.where(big, x, 1.0)
    return np.where(big, (x * np.cos(x) - np.sin(x)) / (safe * safe), -x / 3.0)


def arc_half_turn_batch(q, r):
    inner = np.sqrt(np.maximum(100.0 - 120.0 * (1.0 - q), 0.0))
    x = np.where(q > 1.0 / 6.0, np.sqrt(np.maximum(10.0 - inner, 0.0)), pi)
    x = np.minimum(x, pi)
    live = q < 1.0
    for _ in range(GUESS_NEWTON_STEPS):
        slope = _sinc_slope_v(x) - q * r * _sinc_slope_v(r * x)
        live &= slope < 0.0
        if not live.any():
            break
        step = (_sinc_v(x) - q * _sinc_v(r * x)) / np.where(live, slope, -1.0)
        x = np.where(live, np.clip(x - step, 0.0, pi), x)
        live &= np.abs(step) >= GUESS_SETTLED
    return np.where(q >= 1.0, 0.0, x)


def arc_pose_batch(root, target, lengths, total, straight_dir, hint, tolerance):
    """arc_pose for M chains: root, target, straight_dir, hint (3, M) (hint may be None),
    lengths (m, M), total (M,). Returns points (m + 1, 3, M)."""
    to_t = target - root
    chord = np.sqrt(np.sum(to_t * to_t, axis=0))
    e1 = _unit_or_v(to_t, -straight_dir)
    e2 = np.zeros_like(e1)
    missing = np.ones(e1.shape[1], dtype=bool)
    for h in (hint, straight_dir):
        if h is None:
            continue
        v = h - np.sum(h * e1, axis=0) * e1
        n = np.sqrt(np.sum(v * v, axis=0))
        take = missing & (n > TINY)
        e2[:, take] = v[:, take] / n[take]
        missing &= ~take
    if missing.any():
        e2[:, missing] = np.array([perpendicular(tuple(u)) for u in e1[:, missing].T.tolist()]).T
    c, s, cp, sp = _arc_angles_batch(lengths, total, chord, tolerance)
    a = cp * e1 + sp * e2
    b = cp * e2 - sp * e1
    out = np.empty((lengths.shape[0] + 1, 3, lengths.shape[1]))
    out[0] = root
    acc = root.copy()
    for k in range(lengths.shape[0]):
        acc += (lengths[k] * c[k]) * a + (lengths[k] * s[k]) * b
        out[k + 1] = acc
    return out


def _arc_angles_batch(lengths, total, chord, tolerance):
    w = np.empty_like(lengths)
    acc = np.zeros_like(total)
    for k in range(lengths.shape[0]):
        w[k] = 1.0 - (acc + acc + lengths[k]) / total
        acc = acc + lengths[k]
    cube = np.sum(lengths * lengths * lengths, axis=0)
    x = arc_half_turn_batch(chord / total, np.sqrt(cube / total) / total)
    close_enough = ARC_FRACTION_OF_TOLERANCE * tolerance
    live = np.ones(len(x), dtype=bool)
    for step in range(ARC_NEWTON_STEPS + 1):
        th = x * w
        c_new, s_new = np.cos(th), np.sin(th)
        if step == 0:
            c, s = c_new, s_new
        else:
            c[:, live], s[:, live] = c_new[:, live], s_new[:, live]
        sx = np.sum(lengths * c, axis=0)
        sy = np.sum(lengths * s, axis=0)
        span = np.sqrt(sx * sx + sy * sy)
        gap = span - chord
        live &= ~((np.abs(gap) <= close_enough) | (span <= TINY))
        if step == ARC_NEWTON_STEPS or not live.any():
            break
        la = lengths * w
        slope = (sx * -np.sum(la * s, axis=0) + sy * np.sum(la * c, axis=0)) / np.where(span > TINY, span, 1.0)
        live &= slope < 0.0
        x = np.where(live, np.clip(x - gap / np.where(live, slope, -1.0), 0.0, pi), x)
    ok = span > TINY
    safe = np.where(ok, span, 1.0)
    return c, s, np.where(ok, sx / safe, 1.0), np.where(ok, -sy / safe, 0.0)


def _unit_or_v(v, fallback):
    n = np.sqrt(np.sum(v * v, axis=0))
    ok = n > TINY
    return np.where(ok, v / np.where(ok, n, 1.0), fallback)
