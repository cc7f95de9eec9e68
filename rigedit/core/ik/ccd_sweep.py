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

from ._floats import IDENTITY, TINY, dot, qbetween, qmul, qrot
from .chain_frames import PreparedLimits, forward_limited
from .limits import clamp_cone, clamp_hinge, hinge_axis


def ccd_sweep(pts, axes, dirs, prep: PreparedLimits, target):
    """One sweep from pose (pts, axes, dirs), as forward_limited returns it. Returns what
    forward_limited returns for the swept pose.

    A turn at joint k moves only what lies beyond k, and the sweep goes tip to root: when
    it reaches k, joint k, its bone's direction, its parent bone and its hinge axis are
    still as given, and of everything beyond only the tip is read. So only the tip is
    carried through the sweep and the swept points are rebuilt once at the end, each bone
    turned by the product of the turns at and above it (n turns, not n^2 point moves)."""
    n = len(pts)
    tx, ty, tz = target
    kinds, params, lengths = prep.kinds, prep.params, prep.lengths
    ex, ey, ez = pts[-1]
    turns = [None] * (n - 1)
    for k in range(n - 2, -1, -1):
        if lengths[k] <= TINY:
            continue
        px, py, pz = pts[k]
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
        # v = qrot(qbetween(a, b), u), written out (the same operations, so the same bits):
        # this runs for every joint of every sweep.
        bx, by, bz, bw = qbetween(a, b)
        ux, uy, uz = u
        qx = 2.0 * (by * uz - bz * uy)
        qy = 2.0 * (bz * ux - bx * uz)
        qz = 2.0 * (bx * uy - by * ux)
        v = (ux + bw * qx + (by * qz - bz * qy), uy + bw * qy + (bz * qx - bx * qz), uz + bw * qz + (bx * qy - by * qx))
        if kind == "cone":
            v = clamp_cone(params[k], parent, v)
        elif kind == "hinge":
            v = clamp_hinge(params[k], parent, axis, v)
        turns[k] = turn = qbetween(u, v)
        # (wx, wy, wz) = qrot(turn, e - p), written out likewise.
        bx, by, bz, bw = turn
        vx, vy, vz = ex - px, ey - py, ez - pz
        qx = 2.0 * (by * vz - bz * vy)
        qy = 2.0 * (bz * vx - bx * vz)
        qz = 2.0 * (bx * vy - by * vx)
        ex = px + (vx + bw * qx + (by * qz - bz * qy))
        ey = py + (vy + bw * qy + (bz * qx - bx * qz))
        ez = pz + (vz + bw * qz + (bx * qy - by * qx))
    x, y, z = pts[0]
    swept = [(x, y, z)]
    carried = IDENTITY
    for k in range(n - 1):
        if turns[k] is not None:
            carried = qmul(carried, turns[k])
        x1, y1, z1 = pts[k + 1]
        bx, by, bz = qrot(carried, (x1 - pts[k][0], y1 - pts[k][1], z1 - pts[k][2]))
        x, y, z = x + bx, y + by, z + bz
        swept.append((x, y, z))
    return forward_limited(swept, prep)
