"""The steps of the full-body solve (full_body_kernel.py has the method and the loop that
runs them), compiled by numba: forward kinematics over the whole body, each chain's ask (1,
pre-pull), the anchors (3: the root kept where every leg still reaches its foot target), a
trunk joint's turn towards the asks below it (2, bend) and every limb solved from its new
base (4, two_bone_kernel.limb).
"""
from __future__ import annotations

import math

import numba

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_passes, rows, two_bone_kernel
from .fabrik_passes import HINGE, limit_dir
from .rows import row3, row4

TWO_BONE, FABRIK = 0, 1

# A limb's root is asked to come within this fraction of its reach of its goal: the slack
# absorbs what the weighted compromise between goals leaves over (a few mm on an arm) and
# keeps the limb off its straight edge, where a reach is reached only to round-off.
REACH_MARGIN = 0.985
# An anchor's root is kept within this fraction of its leg's reach: inside, the closed form
# puts the foot on its target exactly.
ANCHOR_MARGIN = 0.9999
# The pass error (what is kept best and reported): the tip errors summed, a FABRIK chain's
# weighed by its pull (at least FABRIK_MEASURE): the trunk's goal gives way to the limbs',
# and its error, large where they pull it away, must not hide their progress.
FABRIK_MEASURE = 0.01
ANCHOR_ROUNDS = 4
ASK_ROUNDS = 8

fresh_cache(__file__, sq, fabrik_passes, rows, two_bone_kernel)

_jit = numba.njit(cache=True, nogil=True)
# The steps of a joint's turn are inlined into it by numba itself: a call that passes the
# body's arrays costs more than most of what they do (a cold frame took 12% longer with them
# as calls). The limit stays in place in turn_joint: as an inlined step it still cost 3%.
_inline = numba.njit(cache=True, nogil=True, inline="always")
qmul, qconj, qrot, qbetween = sq.qmul, sq.qconj, sq.qrot, sq.qbetween


@_jit
def forward_kinematics(parents, rot, trans, pos, wrot):
    """World positions and rotations of every joint (parents before children)."""
    for j in range(parents.shape[0]):
        p = parents[j]
        if p < 0:
            pos[j, 0], pos[j, 1], pos[j, 2] = trans[j, 0], trans[j, 1], trans[j, 2]
            q = row4(rot, j)
        else:
            pq = row4(wrot, p)
            v = qrot(pq, row3(trans, j))
            pos[j, 0], pos[j, 1], pos[j, 2] = pos[p, 0] + v[0], pos[p, 1] + v[1], pos[p, 2] + v[2]
            q = qmul(pq, row4(rot, j))
        wrot[j, 0], wrot[j, 1], wrot[j, 2], wrot[j, 3] = q


@_inline
def place_root(parents, trans, at):
    """The root's translation (its world position) set to `at`."""
    for j in range(parents.shape[0]):
        if parents[j] < 0:
            trans[j, 0], trans[j, 1], trans[j, 2] = at[0], at[1], at[2]


@_inline
def move_root(parents, trans, dx, dy, dz):
    """The root translated by (dx, dy, dz): the whole body with it."""
    for j in range(parents.shape[0]):
        if parents[j] < 0:
            trans[j, 0] += dx
            trans[j, 1] += dy
            trans[j, 2] += dz


@_jit
def _into_ball(p, c, r):
    """The point of the ball (centre c, radius r) nearest p."""
    dx, dy, dz = p[0] - c[0], p[1] - c[1], p[2] - c[2]
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    if d <= r:
        return p
    s = r / d
    return (c[0] + dx * s, c[1] + dy * s, c[2] + dz * s)


@_jit
def ask(c, kinds, cs, cj, goals, pulls, reach, usable, tols, anim_roots, pos):
    """(effector joint, where it is asked to be) for chain c: a two-bone limb's root into
    its goal's reach ball, within its pull's cap; a FABRIK chain's tip onto its goal."""
    if kinds[c] == FABRIK:
        e = cj[cs[c + 1] - 1]
        return e, True, row3(goals, c)
    e = cj[cs[c]]
    p = row3(pos, e)
    g = row3(goals, c)
    dx, dy, dz = p[0] - g[0], p[1] - g[1], p[2] - g[2]
    if math.sqrt(dx * dx + dy * dy + dz * dz) <= usable[c] + tols[c]:
        return e, False, p  # the limb reaches its goal from where it is: no ask
    cap = pulls[c] * reach[c]
    a = row3(anim_roots, c)
    r = REACH_MARGIN * usable[c]
    for _ in range(ASK_ROUNDS):  # alternating projections onto the two balls, the cap last
        p = _into_ball(p, g, r)
        p = _into_ball(p, a, cap)
        dx, dy, dz = p[0] - g[0], p[1] - g[1], p[2] - g[2]
        if dx * dx + dy * dy + dz * dz <= r * r * (1.0 + 1e-12):
            break  # in both balls
    return e, True, p


@_jit
def anchor(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, usable, active):
    """Translate the root so every anchor (a chain of pull 0) can reach its goal: its root
    within its usable reach of it."""
    for _ in range(ANCHOR_ROUNDS):
        moved = False
        for c in range(kinds.shape[0]):
            if not active[c] or pulls[c] > 0.0:
                continue
            e = cj[cs[c]]
            p = row3(pos, e)
            q = _into_ball(p, row3(goals, c), ANCHOR_MARGIN * usable[c])
            dx, dy, dz = q[0] - p[0], q[1] - p[1], q[2] - p[2]
            if dx != 0.0 or dy != 0.0 or dz != 0.0:
                moved = True
                for j in range(pos.shape[0]):  # a translation moves every joint alike
                    pos[j, 0] += dx
                    pos[j, 1] += dy
                    pos[j, 2] += dz
                move_root(parents, trans, dx, dy, dz)
        if not moved:
            return


@_jit
def _weight(c, j, pulls, active, owner):
    """The weight of chain c's effector at joint j: its pull, and at least FABRIK_MEASURE
    on the chain's own joints (a chain of pull 0 still bends itself, it only does not move
    the body); 0 for an inactive chain."""
    if not active[c]:
        return 0.0
    if owner[j] == c:
        return max(pulls[c], FABRIK_MEASURE)
    return pulls[c]


@_inline
def _gather_asks(j, pos, below, kinds, cs, cj, goals, pulls, reach, usable, tols, anim_roots, active, owner, asked):
    """Each asking chain's effector under joint j into `asked` (C, 7): its weight (0: none),
    the effector's offset a from j and its ask's offset b. Returns sum(w a x b), the axis of
    the weighted Wahba problem's turn."""
    px, py, pz = pos[j, 0], pos[j, 1], pos[j, 2]
    ax, ay, az = 0.0, 0.0, 0.0
    for c in range(kinds.shape[0]):
        asked[c, 0] = 0.0
        w = _weight(c, j, pulls, active, owner)
        if w <= 0.0:
            continue
        e = cj[cs[c + 1] - 1] if kinds[c] == FABRIK else cj[cs[c]]
        if not below[e, j]:
            continue
        e, asks, d = ask(c, kinds, cs, cj, goals, pulls, reach, usable, tols, anim_roots, pos)
        if not asks:
            continue
        a = (pos[e, 0] - px, pos[e, 1] - py, pos[e, 2] - pz)
        b = (d[0] - px, d[1] - py, d[2] - pz)
        asked[c, 0] = w
        asked[c, 1], asked[c, 2], asked[c, 3] = a
        asked[c, 4], asked[c, 5], asked[c, 6] = b
        x = sq.cross(a, b)
        ax += w * x[0]
        ay += w * x[1]
        az += w * x[2]
    return ax, ay, az


@_inline
def _best_angle(axis, asked):
    """The turn about unit `axis` that best carries every asked a onto its b (weighted), in
    closed form."""
    num, den = 0.0, 0.0
    for c in range(asked.shape[0]):
        w = asked[c, 0]
        if w <= 0.0:
            continue
        a = (asked[c, 1], asked[c, 2], asked[c, 3])
        b = (asked[c, 4], asked[c, 5], asked[c, 6])
        num += w * sq.dot(axis, sq.cross(a, b))
        da, db = sq.dot(a, axis), sq.dot(b, axis)
        den += w * (sq.dot(a, b) - da * db)
    return math.atan2(num, den)


@_jit
def turn_joint(j, parents, rot, trans, pos, wrot, below, child, lim_kind, lim_a, lim_b, lim_axis, kinds, cs, cj,
                goals, pulls, reach, usable, tols, anim_roots, active, owner, asked):  # fmt: skip
    """One CCD step at joint j over the asking effectors below it, then j's limit (its bone
    to its chain child held against its parent bone by fabrik_passes.limit_dir).
    `asked` (C, 7): scratch for each chain's weight, effector offset a and ask offset b."""
    ax, ay, az = _gather_asks(j, pos, below, kinds, cs, cj, goals, pulls, reach, usable, tols, anim_roots, active, owner,
                              asked)  # fmt: skip
    n = math.sqrt(ax * ax + ay * ay + az * az)
    if n <= sq.TINY:
        return
    axis = (ax / n, ay / n, az / n)
    h = 0.5 * _best_angle(axis, asked)
    s = math.sin(h)
    turn = (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(h))
    world = qmul(turn, row4(wrot, j))
    p = parents[j]
    k = child[j]
    if p >= 0 and k >= 0 and lim_kind[j] != 0:
        u = qrot(world, row3(trans, k))
        lu = math.sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])
        par = row3(trans, j)
        par = qrot(row4(wrot, p), par)
        lp = math.sqrt(par[0] * par[0] + par[1] * par[1] + par[2] * par[2])
        if lu > sq.TINY and lp > sq.TINY:
            u = (u[0] / lu, u[1] / lu, u[2] / lu)
            par = (par[0] / lp, par[1] / lp, par[2] / lp)
            hinge = qrot(row4(wrot, p), row3(lim_axis, j))
            v = limit_dir(lim_kind[j], lim_a[j], lim_b[j], par, hinge if lim_kind[j] == HINGE else par, u)
            world = qmul(qbetween(u, v), world)
    if p >= 0:
        local = qmul(qconj(row4(wrot, p)), world)
    else:
        local = world
    nq = math.sqrt(local[0] ** 2 + local[1] ** 2 + local[2] ** 2 + local[3] ** 2)
    rot[j, 0], rot[j, 1], rot[j, 2], rot[j, 3] = local[0] / nq, local[1] / nq, local[2] / nq, local[3] / nq
    forward_kinematics(parents, rot, trans, pos, wrot)


@_jit
def limbs(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, poles, has_pole, tols, clamps, softs, reach, mid_kind,
           mid_axis, mid_lo, mid_hi, active, pulls, chain_err):  # fmt: skip
    """Every active two-bone chain solved from its base (two_bone_kernel.limb); then every
    chain's tip error into chain_err. Returns the summed error."""
    for c in range(kinds.shape[0]):
        if not active[c] or kinds[c] != TWO_BONE:
            continue
        j0, j1, j2 = cj[cs[c]], cj[cs[c] + 1], cj[cs[c] + 2]
        b = parents[j0]
        if b >= 0:
            base_pos, base_rot = row3(pos, b), row4(wrot, b)
        else:
            base_pos, base_rot = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)
        status, l0, l1, err, tip = two_bone_kernel.limb(
            row3(goals, c), row3(poles, c), has_pole[c], tols[c], clamps[c], softs[c], reach[c], mid_kind[c],
            row3(mid_axis, c), mid_lo[c], mid_hi[c], base_pos, base_rot, row3(trans, j0), row3(trans, j1), row3(trans, j2),
            row4(rot, j0), row4(rot, j1),
        )  # fmt: skip
        if status == 0:
            rot[j0, 0], rot[j0, 1], rot[j0, 2], rot[j0, 3] = l0
            rot[j1, 0], rot[j1, 1], rot[j1, 2], rot[j1, 3] = l1
    forward_kinematics(parents, rot, trans, pos, wrot)
    total = 0.0
    for c in range(kinds.shape[0]):
        chain_err[c] = 0.0
        if not active[c]:
            continue
        e = cj[cs[c + 1] - 1]
        dx, dy, dz = pos[e, 0] - goals[c, 0], pos[e, 1] - goals[c, 1], pos[e, 2] - goals[c, 2]
        chain_err[c] = math.sqrt(dx * dx + dy * dy + dz * dz)
        total += chain_err[c] * (1.0 if kinds[c] == TWO_BONE else max(pulls[c], FABRIK_MEASURE))
    return total
