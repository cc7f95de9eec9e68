"""A chain's bones turned onto solved positions, in plain floats, one joint at a time.

Both the rig (every chain, every frame) and `skeleton.write_chain_positions` (the pose API)
write a solve back this way: each bone turned by the shortest arc from its warm-start
direction to the solved one, its twist kept, its children carried along. One definition, on
scalar_quat's quaternions, which the two-bone kernel also compiles (through `jitable`).
"""
from __future__ import annotations

from math import sqrt

from . import scalar_quat as sq


def chain_pose(base_pos, base_rot, offsets: list, rots: list) -> tuple[list, list]:
    """World positions of a chain's joints and world rotations of all but the tip, from the
    root parent's world transform, the joints' local offsets and the local rotations."""
    q = base_rot
    pos = add_rotated(base_pos, q, offsets[0])
    points, frames = [pos], []
    for r, off in zip(rots, offsets[1:]):
        q = sq.qmul(q, r)
        frames.append(q)
        pos = add_rotated(pos, q, off)
        points.append(pos)
    return points, frames


def local_turns(base_rot, warm: list, offsets: list, solved: list, twists: dict | None = None) -> list:
    """New local rotations of a chain's joints (all but the tip): each bone turned by the
    shortest arc from its direction under the `warm` local rotations to the solved one, its
    children carried along: skeleton.write_chain_positions, in floats (a test holds the two
    together). `twists` maps a bone index to a world rotation about the solved bone applied
    after the turn (the two-bone solver's hinge alignment).

    Worked in each joint's parent frame, where the world turn T of a bone conjugates into
    the shortest arc between the bone's old and new local directions: L_new =
    between(L_old t, conj(W_parent) s) L_old, with t the child's offset, s the solved bone and
    W_parent the parent's new world rotation. Same rotations, half the products, and the
    products as scalar_quat's: this runs for every bone of every chain on every frame."""
    out = []
    px, py, pz, pw = base_rot  # the parent's new world rotation
    for k, old in enumerate(warm):
        sx, sy, sz = in_parent_frame((px, py, pz, pw), solved[k], solved[k + 1])
        local = turn_local(old, offsets[k + 1], sx, sy, sz)
        if twists and k in twists:
            parent = (px, py, pz, pw)
            local = sq.qnormalize(sq.qmul(sq.qmul(sq.qmul(sq.qconj(parent), twists[k]), parent), local))
        out.append(local)
        px, py, pz, pw = sq.qmul((px, py, pz, pw), local)
    return out


def in_parent_frame(parent, a, b):
    """The solved bone a -> b in its parent's frame: rotated by conj(parent)."""
    return sq.qrot(sq.qconj(parent), sq.sub(b, a))


def turn_local(old, offset, sx, sy, sz):
    """local_turns for one bone: `old` turned by the shortest arc from the bone's direction
    under it (its child's offset turned by it) to the solved direction s (parent frame)."""
    dx, dy, dz = sq.qrot(old, offset)
    nd = sqrt(dx * dx + dy * dy + dz * dz)
    ns = sqrt(sx * sx + sy * sy + sz * sz)
    if nd <= sq.TINY or ns <= sq.TINY:
        return sq.qnormalize(old)  # a zero-length bone has no direction to turn
    return sq.turn_unit((dx / nd, dy / nd, dz / nd), (sx / ns, sy / ns, sz / ns), old)


def add_rotated(p, q, v):
    """p + q v for a unit quaternion q."""
    return sq.add(p, sq.qrot(q, v))
