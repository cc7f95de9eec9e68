"""A CCD sweep, the second half of a limited FABRIK iteration.

FABRIK moves joints toward points and clamps bones afterwards. With hinges that crawls or
stalls: the pass has no way to turn a joint about its hinge axis, and a hinge plane only
turns when the bone before it does. CCD does exactly that: from the tip back to the root,
each joint turns the rest of the chain about itself (about its hinge axis, for a hinge) to
bring the tip toward the target, clamped to its limit. A limited iteration keeps the best
of the FABRIK pass, this sweep, and the pass followed by the sweep (see fabrik.py).

After the sweep a forward pass re-aims every bone at its swept position: the rigid turns
of the sweep and the shortest-arc frames of the chain differ in twist, and that pass puts
the limits back exactly.
"""
from __future__ import annotations

from ._floats import TINY, dot, qbetween, qrot
from .chain_frames import PreparedLimits, forward_limited
from .limits import clamp_cone, clamp_hinge, hinge_axis


def ccd_sweep(pts, axes, dirs, prep: PreparedLimits, target):
    """One sweep from pose (pts, axes, dirs), as forward_limited returns it. Returns the same
    triple for the swept pose."""
    pts = list(pts)
    n = len(pts)
    tx, ty, tz = target
    kinds, params, lengths = prep.kinds, prep.params, prep.lengths
    for k in range(n - 2, -1, -1):
        if lengths[k] <= TINY:
            continue
        # Joints before k have not moved yet, so bone k's parent and k's hinge axis hold.
        px, py, pz = pts[k]
        ex, ey, ez = pts[-1]
        a = (ex - px, ey - py, ez - pz)
        b = (tx - px, ty - py, tz - pz)
        kind = kinds[k]
        parent = prep.root_dir if k == 0 else dirs[k - 1]
        axis = None
        if kind == "hinge":
            axis = hinge_axis(axes[k], parent)
            da, db = dot(a, axis), dot(b, axis)
            a = (a[0] - da * axis[0], a[1] - da * axis[1], a[2] - da * axis[2])
            b = (b[0] - db * axis[0], b[1] - db * axis[1], b[2] - db * axis[2])
        u = dirs[k]
        v = qrot(qbetween(a, b), u)
        if kind == "cone":
            v = clamp_cone(params[k], parent, v)
        elif kind == "hinge":
            v = clamp_hinge(params[k], parent, axis, v)
        turn = qbetween(u, v)
        for j in range(k + 1, n):
            x, y, z = pts[j]
            w = qrot(turn, (x - px, y - py, z - pz))
            pts[j] = (px + w[0], py + w[1], pz + w[2])
        dirs = dirs[:k] + [v] + [qrot(turn, d) for d in dirs[k + 1 :]]
    return forward_limited(pts, prep)
