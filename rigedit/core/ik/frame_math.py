"""The small compiled helpers of the rig's one-call frame (ik/frame_kernel.py; docs/ARCHITECTURE.md,
core: one frame evaluation): a joint's world transform in the pose built so far, a chain's
length, a slerp for a blend by weight, and rows of a table read and written as tuples or
blocks of columns. The blocks are copied in loops: numba's slice assignment and
ascontiguousarray take a general path that costs several times these few numbers' copy,
and the frame made some forty of them.
"""
from __future__ import annotations

import math

import numpy as np

from .. import bone_turns
from .. import scalar_quat as sq
from .fabrik_passes import _jit
from .frame_codes import (
    I_GOAL, I_HAS_POLE, I_POLE, J_OFFSET, S_BASE, S_GOAL, S_HAS_POLE, S_LAST, S_POLE, S_SAME_SETTINGS, S_WARM, S_WARM_BASE,
)


@_jit
def world_of(j, parents, rot, trans):
    """World (position, rotation) of joint j in the pose `rot`, `trans` (FK's
    operations, from the root down: the chains above have just written their joints)."""
    px, py, pz = 0.0, 0.0, 0.0
    q = (0.0, 0.0, 0.0, 1.0)
    depth = 0
    k = j
    while k >= 0:
        depth += 1
        k = parents[k]
    for d in range(depth - 1, -1, -1):  # the ancestor d steps above j, root first
        k = j
        for _ in range(d):
            k = parents[k]
        px, py, pz = bone_turns.add_rotated((px, py, pz), q, (trans[k, 0], trans[k, 1], trans[k, 2]))
        q = sq.qmul(q, (rot[k, 0], rot[k, 1], rot[k, 2], rot[k, 3]))
    return (px, py, pz), q


@_jit
def chain_length(joints, trans, s, n):
    """A chain's length from its joints' offsets, summed as chain_setup.ChainSetup sums it."""
    total = 0.0
    for k in range(1, n):
        j = joints[s + k]
        total += math.sqrt(trans[j, 0] * trans[j, 0] + trans[j, 1] * trans[j, 1] + trans[j, 2] * trans[j, 2])
    return total


@_jit
def slerp(a, b, t):
    """transforms.quat_slerp for one pair, 0 < t < 1 (its ends are the caller's)."""
    dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
    s = 1.0
    if dot < 0.0:
        s, dot = -1.0, -dot
    theta = math.acos(min(max(dot, -1.0), 1.0))
    sin_theta = math.sin(theta)
    if sin_theta < 1e-9:
        wa, wb = 1.0 - t, t
    else:
        wa, wb = math.sin((1.0 - t) * theta) / sin_theta, math.sin(t * theta) / sin_theta
    x, y = wa * a[0] + wb * s * b[0], wa * a[1] + wb * s * b[1]
    z, w = wa * a[2] + wb * s * b[2], wa * a[3] + wb * s * b[3]
    n = math.sqrt(x * x + y * y + z * z + w * w)
    return (x / n, y / n, z / n, w / n)


@_jit
def quat_at(a, k, col):
    return (a[k, col], a[k, col + 1], a[k, col + 2], a[k, col + 3])


@_jit
def vec_at(a, k, col):
    return (a[k, col], a[k, col + 1], a[k, col + 2])


@_jit
def put(a, k, col, t):
    for i in range(len(t)):
        a[k, col + i] = t[i]


@_jit
def cols_of(a, rows, col, width):
    """a[:rows, col:col + width] as a new C-contiguous array (the rows a solver takes)."""
    out = np.empty((rows, width))
    for i in range(rows):
        for k in range(width):
            out[i, k] = a[i, col + k]
    return out


@_jit
def put_cols(a, col, block):
    """a[:len(block), col:col + width] = block."""
    for i in range(block.shape[0]):
        for k in range(block.shape[1]):
            a[i, col + k] = block[i, k]


@_jit
def same_inputs(st, slots, c, base_pos, base_rot, inp, trans, joints, s, n):
    """Whether chain c's inputs are those of its last solve (SolveInputs compared by value)."""
    if st[c, S_LAST] == 0.0 or st[c, S_SAME_SETTINGS] == 0.0 or st[c, S_HAS_POLE] != inp[c, I_HAS_POLE]:
        return False
    for k in range(3):
        if st[c, S_BASE + k] != base_pos[k] or st[c, S_GOAL + k] != inp[c, I_GOAL + k]:
            return False
        if inp[c, I_HAS_POLE] != 0.0 and st[c, S_POLE + k] != inp[c, I_POLE + k]:
            return False
    for k in range(4):
        if st[c, S_BASE + 3 + k] != base_rot[k]:
            return False
    return offsets_same(slots, trans, joints, s, n)


@_jit
def offsets_same(slots, trans, joints, s, n):
    for k in range(n):
        j = joints[s + k]
        for a in range(3):
            if slots[s + k, J_OFFSET + a] != trans[j, a]:
                return False
    return True


@_jit
def warm_here(st, c, base_pos, base_rot):
    """Whether chain c's limited warm start stands on this base."""
    if st[c, S_WARM] == 0.0:
        return False
    for k in range(3):
        if st[c, S_WARM_BASE + k] != base_pos[k]:
            return False
    for k in range(4):
        if st[c, S_WARM_BASE + 3 + k] != base_rot[k]:
            return False
    return True
