"""A rig's two-bone chain solved in one pass: warm start, aim, closed form, limit, write-back.

The same steps as rig_solve's chain_pose, two_bone_chain and local_turns (and the same
formulas, so the results agree to round-off; a test holds them together), written out for
exactly two bones. Every limb of every rig runs this on every frame, and the generic
per-joint helpers cost several times the arithmetic in calls, lists and dicts: the four
limbs of the humanoid cost ~35 us each that way against ~4 us for two_bone_ik itself.
"""
from __future__ import annotations

from math import atan2, cos, sin, sqrt

from .ik.limits import MIN_AXIS_SINE
from .ik.soft import effective_target_float
from .ik.two_bone import two_bone_ik
from .rig_solve import _add_rotated, _bend_normal, _bone_end, hinge_bend, in_parent_frame, turn_local
from .scalar_quat import TINY, qbetween, qmul, qnormalize


def solve_limb(target, pole, tolerance, reach_clamp, softness, total, lim, base_pos, base_rot, offsets, warm):
    """One two-bone chain: from its root parent's world transform (base_pos, base_rot), its
    three joints' local offsets and its warm-start local rotations `warm` (two), aim at
    `target` (reach clamp / soft IK over the chain length `total`), solve, apply the middle
    joint's limit parameters `lim` (ChainSetup.mid_limit, or None) and turn each bone by the
    shortest arc to its solved direction. Returns ([two local rotations], tip error, the
    solved tip)."""
    o0, o1, o2 = offsets
    w0, w1 = warm
    # The warm start (chain_pose): root, mid, end and the upper bone's world frame f0.
    root = _add_rotated(base_pos, base_rot, o0)
    f0 = qmul(base_rot, w0)
    mid = _add_rotated(root, f0, o1)
    end = _add_rotated(mid, qmul(f0, w1), o2)
    aim = target
    if reach_clamp < 1.0 or softness > 0.0:  # rig_uses.reach_is_plain, inline
        aim = effective_target_float(root, target, total, reach_clamp, softness)
    new_mid, new_end, _ = two_bone_ik(root, mid, end, aim, pole, eps=min(1e-6, tolerance), as_floats=True)
    twist = None
    if lim is not None:
        new_end, twist = _limited(lim, root, mid, new_mid, new_end, f0)

    # Upper bone (local_turns, k = 0): the solved bone in the parent's frame ...
    sx, sy, sz = in_parent_frame(base_rot, root, new_mid)
    # ... and the old one: the old local rotation turns the child's offset.
    local0 = turn_local(w0, o1, sx, sy, sz)
    if twist is not None:
        # The world twist about the solved bone u, seen in the parent's frame, is the same
        # angle about conj(parent) u: the solved bone's direction just worked out.
        ns = sqrt(sx * sx + sy * sy + sz * sz)
        sh, ch = twist
        k = sh / ns
        local0 = qnormalize(qmul((sx * k, sy * k, sz * k, ch), local0))
    # Lower bone (k = 1), its parent now the upper bone's new world rotation.
    sx, sy, sz = in_parent_frame(qmul(base_rot, local0), new_mid, new_end)
    local1 = turn_local(w1, o2, sx, sy, sz)
    dx, dy, dz = new_end[0] - target[0], new_end[1] - target[1], new_end[2] - target[2]
    return [local0, local1], sqrt(dx * dx + dy * dy + dz * dz), new_end


def _limited(lim, root, mid, new_mid, new_end, f0):
    """rig_solve.two_bone_chain's limit step: (new end, (sin, cos) of the half twist about
    the upper bone, or None)."""
    rx, ry, rz = root
    ux, uy, uz = new_mid[0] - rx, new_mid[1] - ry, new_mid[2] - rz
    vx, vy, vz = new_end[0] - new_mid[0], new_end[1] - new_mid[1], new_end[2] - new_mid[2]
    lu = sqrt(ux * ux + uy * uy + uz * uz)
    ll = sqrt(vx * vx + vy * vy + vz * vz)
    if lu <= TINY or ll <= TINY:
        return new_end, None  # a zero-length bone cannot bend wrong
    u = (ux / lu, uy / lu, uz / lu)
    nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    nn = sqrt(nx * nx + ny * ny + nz * nz)
    bend = atan2(nn, ux * vx + uy * vy + uz * vz)
    if lim[0] == "cone":
        if bend <= lim[1]:
            return new_end, None
        return _bone_end(new_mid, u, _bend_normal((nx, ny, nz), nn, None, u), lim[1], ll), None
    _, axis_local, lo, hi = lim
    # Hinge: the axis the upper bone's frame would carry after a plain shortest-arc turn.
    # hinge_axis(qrot(qmul(qbetween(mid - root, u), f0), axis_local), u), the products
    # written out (the same operations, so the same bits as two_bone_chain).
    bx, by, bz, bw = qbetween((mid[0] - rx, mid[1] - ry, mid[2] - rz), u)
    fx, fy, fz, fw = f0
    cx = bw * fx + bx * fw + by * fz - bz * fy
    cy = bw * fy - bx * fz + by * fw + bz * fx
    cz = bw * fz + bx * fy - by * fx + bz * fw
    cw = bw * fw - bx * fx - by * fy - bz * fz
    vx, vy, vz = axis_local
    tx, ty, tz = 2.0 * (cy * vz - cz * vy), 2.0 * (cz * vx - cx * vz), 2.0 * (cx * vy - cy * vx)
    hx = vx + cw * tx + (cy * tz - cz * ty)
    hy = vy + cw * ty + (cz * tx - cx * tz)
    hz = vz + cw * tz + (cx * ty - cy * tx)
    a = hx * u[0] + hy * u[1] + hz * u[2]
    wx, wy, wz = hx - a * u[0], hy - a * u[1], hz - a * u[2]
    nw = sqrt(wx * wx + wy * wy + wz * wz)
    hinge = None
    if nw > MIN_AXIS_SINE * sqrt(hx * hx + hy * hy + hz * hz):
        hinge = (wx / nw, wy / nw, wz / nw)
    axis, angle, clamped = hinge_bend(bend, lo, hi, hinge, (nx, ny, nz), nn, u)
    if clamped:
        new_end = _bone_end(new_mid, u, axis, angle, ll)
    if hinge is None:
        return new_end, None
    # rig_solve._twist_onto: the turn about u taking the hinge onto the axis.
    hx, hy, hz = hinge
    ax, ay, az = axis
    c = hx * ax + hy * ay + hz * az
    s = u[0] * (hy * az - hz * ay) + u[1] * (hz * ax - hx * az) + u[2] * (hx * ay - hy * ax)
    half = 0.5 * atan2(s, c)
    return new_end, (sin(half), cos(half))
