"""Full-body IK, written once and compiled: every chain's goal solved together, the root
(hips) translated and turned and the trunk bent as far as the goals ask.

Method. A position-based solver with pre-pull of the root, as Unreal's Full Body IK and
Final IK's FullBodyBipedIK do, with the limbs kept on their own closed-form solvers:

1. pre-pull: each chain that cannot reach from where it is asks for a point to be moved
   (a two-bone limb out of reach: its root to the nearest point of the ball of radius
   REACH_MARGIN * its usable reach round its goal, capped so that the root never moves
   more than `pull * reach` from where the animated pose has it; a FABRIK chain: its tip
   onto its goal). The root translates by the pull-weighted mean of the asks of the
   chains with pull > 0. A chain that reaches asks nothing and holds nothing back.
2. bend: one multi-effector CCD sweep over the trunk joints (every joint of a FABRIK chain
   but its tip), tip to root, then the root's own rotation: each joint turns by the
   rotation that best carries the asking effectors below it onto their asks (the weighted
   Wahba problem solved about the axis sum(w a x b), its angle in closed form), weighted
   by pull (so the spine's own goal, pull 0.01, gives way to a hand's, 0.4, and alone
   still bends the spine), and its limit (fabrik_passes.limit_dir, the FABRIK chains' own
   per-joint clamp) holds the bone.
3. anchors: after every body move, each chain with pull 0 (the legs) puts the root back
   where it still reaches its goal (the root translated onto the ball of the leg's
   reach round the foot target; alternating projections onto the legs' balls).
4. limbs: every two-bone chain solved from its new base by the rig's own limb kernel
   (two_bone_kernel.limb: closed form, pole, middle-joint limit with hinge twist, reach
   clamp and soft IK), lengths kept exactly as the local offsets are never touched.

Why this and not FABRIK's multi-end-effector form (Aristidou & Lasenby 2011): that works on
points and moves sub-bases to centroids, while a humanoid's arms hang off the chest through
rigid clavicles and its legs have exact closed-form solvers with hinge twist already; the
position-based form keeps every existing solver step (limit_dir, limb), works in local
rotations (so joint limits and bone lengths hold by construction), gives anchors as hard
constraints (projections) rather than weights, and its pre-pull makes large reaches cost
few iterations. Its iterations are one loop in the manner of the FABRIK kernel's: stop
when every active chain is within its tolerance, on too little progress over STALL_PASSES
passes, or at the cap; the pose kept is the best seen (the reported errors never grow).

Arrays: parents (J,) with parents before children; local rotations (J, 4) and
translations (J, 3) (the root's translation is its world position); the chain table as a
flat joint index list `cj` with offsets `cs` (C + 1,), a kind per chain (TWO_BONE or
FABRIK), goals, poles, pulls, tolerances; per-joint limits (kind, a, b, local axis) as
fabrik_passes' codes (CONE: (cos, sin) of the half angle, HINGE: (lo, hi) radians).
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_passes, two_bone_kernel
from .fabrik_passes import HINGE, limit_dir

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
STALL_PASSES = 6  # a cold reach's first passes can lose ground before they win it
SETTLED_PASSES = 2
STALL_RELATIVE = 1e-3  # the summed error fell by less than this fraction over STALL_PASSES
STALL_ABSOLUTE = 1e-9  # metres: round-off
ANCHOR_ROUNDS = 4
ASK_ROUNDS = 8

fresh_cache(__file__, sq, fabrik_passes, two_bone_kernel)

_jit = numba.njit(cache=True, nogil=True)
qmul, qconj, qrot, qbetween = sq.qmul, sq.qconj, sq.qrot, sq.qbetween


@_jit
def _r3(a, k):
    return (a[k, 0], a[k, 1], a[k, 2])


@_jit
def _r4(a, k):
    return (a[k, 0], a[k, 1], a[k, 2], a[k, 3])


@_jit
def forward_kinematics(parents, rot, trans, pos, wrot):
    """World positions and rotations of every joint (parents before children)."""
    for j in range(parents.shape[0]):
        p = parents[j]
        if p < 0:
            pos[j, 0], pos[j, 1], pos[j, 2] = trans[j, 0], trans[j, 1], trans[j, 2]
            q = _r4(rot, j)
        else:
            pq = _r4(wrot, p)
            v = qrot(pq, _r3(trans, j))
            pos[j, 0], pos[j, 1], pos[j, 2] = pos[p, 0] + v[0], pos[p, 1] + v[1], pos[p, 2] + v[2]
            q = qmul(pq, _r4(rot, j))
        wrot[j, 0], wrot[j, 1], wrot[j, 2], wrot[j, 3] = q


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
        return e, True, _r3(goals, c)
    e = cj[cs[c]]
    p = _r3(pos, e)
    g = _r3(goals, c)
    dx, dy, dz = p[0] - g[0], p[1] - g[1], p[2] - g[2]
    if math.sqrt(dx * dx + dy * dy + dz * dz) <= usable[c] + tols[c]:
        return e, False, p  # the limb reaches its goal from where it is: no ask
    cap = pulls[c] * reach[c]
    a = _r3(anim_roots, c)
    r = REACH_MARGIN * usable[c]
    for _ in range(ASK_ROUNDS):  # alternating projections onto the two balls, the cap last
        p = _into_ball(p, g, r)
        p = _into_ball(p, a, cap)
        dx, dy, dz = p[0] - g[0], p[1] - g[1], p[2] - g[2]
        if dx * dx + dy * dy + dz * dz <= r * r * (1.0 + 1e-12):
            break  # in both balls
    return e, True, p


@_jit
def _anchor(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, usable, active):
    """Translate the root so every anchor (a chain of pull 0) can reach its goal: its root
    within its usable reach of it."""
    for _ in range(ANCHOR_ROUNDS):
        moved = False
        for c in range(kinds.shape[0]):
            if not active[c] or pulls[c] > 0.0:
                continue
            e = cj[cs[c]]
            p = _r3(pos, e)
            q = _into_ball(p, _r3(goals, c), ANCHOR_MARGIN * usable[c])
            dx, dy, dz = q[0] - p[0], q[1] - p[1], q[2] - p[2]
            if dx != 0.0 or dy != 0.0 or dz != 0.0:
                moved = True
                for j in range(pos.shape[0]):  # a translation moves every joint alike
                    pos[j, 0] += dx
                    pos[j, 1] += dy
                    pos[j, 2] += dz
                for j in range(parents.shape[0]):
                    if parents[j] < 0:
                        trans[j, 0] += dx
                        trans[j, 1] += dy
                        trans[j, 2] += dz
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


@_jit
def _turn_joint(j, parents, rot, trans, pos, wrot, below, child, lim_kind, lim_a, lim_b, lim_axis, kinds, cs, cj,
                goals, pulls, reach, usable, tols, anim_roots, active, owner, asked):  # fmt: skip
    """One CCD step at joint j over the asking effectors below it, then j's limit.
    `asked` (C, 7): scratch for each chain's weight, effector offset a and ask offset b."""
    px, py, pz = pos[j, 0], pos[j, 1], pos[j, 2]
    ax, ay, az = 0.0, 0.0, 0.0
    nc = kinds.shape[0]
    for c in range(nc):
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
    n = math.sqrt(ax * ax + ay * ay + az * az)
    if n <= sq.TINY:
        return
    axis = (ax / n, ay / n, az / n)
    num, den = 0.0, 0.0
    for c in range(nc):
        w = asked[c, 0]
        if w <= 0.0:
            continue
        a = (asked[c, 1], asked[c, 2], asked[c, 3])
        b = (asked[c, 4], asked[c, 5], asked[c, 6])
        num += w * sq.dot(axis, sq.cross(a, b))
        da, db = sq.dot(a, axis), sq.dot(b, axis)
        den += w * (sq.dot(a, b) - da * db)
    angle = math.atan2(num, den)
    h = 0.5 * angle
    s = math.sin(h)
    turn = (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(h))
    world = qmul(turn, _r4(wrot, j))
    p = parents[j]
    k = child[j]
    if p >= 0 and k >= 0 and lim_kind[j] != 0:
        u = qrot(world, _r3(trans, k))
        lu = math.sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])
        par = _r3(trans, j)
        par = qrot(_r4(wrot, p), par)
        lp = math.sqrt(par[0] * par[0] + par[1] * par[1] + par[2] * par[2])
        if lu > sq.TINY and lp > sq.TINY:
            u = (u[0] / lu, u[1] / lu, u[2] / lu)
            par = (par[0] / lp, par[1] / lp, par[2] / lp)
            hinge = qrot(_r4(wrot, p), _r3(lim_axis, j))
            v = limit_dir(lim_kind[j], lim_a[j], lim_b[j], par, hinge if lim_kind[j] == HINGE else par, u)
            world = qmul(qbetween(u, v), world)
    if p >= 0:
        local = qmul(qconj(_r4(wrot, p)), world)
    else:
        local = world
    nq = math.sqrt(local[0] ** 2 + local[1] ** 2 + local[2] ** 2 + local[3] ** 2)
    rot[j, 0], rot[j, 1], rot[j, 2], rot[j, 3] = local[0] / nq, local[1] / nq, local[2] / nq, local[3] / nq
    forward_kinematics(parents, rot, trans, pos, wrot)


@_jit
def _limbs(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, poles, has_pole, tols, clamps, softs, reach, mid_kind,
           mid_axis, mid_lo, mid_hi, active, pulls, chain_err):  # fmt: skip
    """Every active two-bone chain solved from its base (two_bone_kernel.limb); then every
    chain's tip error into chain_err. Returns the summed error."""
    for c in range(kinds.shape[0]):
        if not active[c] or kinds[c] != TWO_BONE:
            continue
        j0, j1, j2 = cj[cs[c]], cj[cs[c] + 1], cj[cs[c] + 2]
        b = parents[j0]
        if b >= 0:
            base_pos, base_rot = _r3(pos, b), _r4(wrot, b)
        else:
            base_pos, base_rot = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)
        status, l0, l1, err, tip = two_bone_kernel.limb(
            _r3(goals, c), _r3(poles, c), has_pole[c], tols[c], clamps[c], softs[c], reach[c], mid_kind[c],
            _r3(mid_axis, c), mid_lo[c], mid_hi[c], base_pos, base_rot, _r3(trans, j0), _r3(trans, j1), _r3(trans, j2),
            _r4(rot, j0), _r4(rot, j1),
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


@_jit
def _limbs_within(chain_err, tols, active, kinds):
    for c in range(chain_err.shape[0]):
        if active[c] and kinds[c] == TWO_BONE and chain_err[c] > tols[c]:
            return False
    return True


@_jit
def _all_within(chain_err, tols, active):
    for c in range(chain_err.shape[0]):
        if active[c] and chain_err[c] > tols[c]:
            return False
    return True


@_jit
def solve_row(parents, anim_rot, anim_trans, warm_rot, warm_root, order, below, child, owner, lim_kind, lim_a, lim_b,
              lim_axis, kinds, cs, cj, goals, poles, has_pole, pulls, tols, clamps, softs, mid_kind, mid_axis, mid_lo,
              mid_hi, active, cap, out_rot, out_trans, chain_err, errors, chain_errors):  # fmt: skip
    """One frame: from the warm pose (warm_rot, the root at warm_root; the animated local
    translations), toward every active chain's goal. `order`: the joints the bend sweep
    turns, tip to root (the root last). Writes the best pose to out_rot / out_trans, each
    chain's tip error to chain_err, the summed error after each pass to errors (never
    growing) and each chain's tip error in the pose kept after each pass to chain_errors
    (cap, C): a chain's own curve, which may rise while the sum falls. Returns the passes run."""
    nj = parents.shape[0]
    nc = kinds.shape[0]
    rot = warm_rot.copy()
    trans = anim_trans.copy()
    for j in range(nj):
        if parents[j] < 0:
            trans[j, 0], trans[j, 1], trans[j, 2] = warm_root[0], warm_root[1], warm_root[2]
    pos = np.empty((nj, 3))
    wrot = np.empty((nj, 4))
    # The chains' roots where the animated pose has them: the pull caps are measured there.
    forward_kinematics(parents, anim_rot, anim_trans, pos, wrot)
    anim_roots = np.empty((nc, 3))
    reach = np.zeros(nc)
    for c in range(nc):
        r = cj[cs[c]]
        anim_roots[c, 0], anim_roots[c, 1], anim_roots[c, 2] = pos[r, 0], pos[r, 1], pos[r, 2]
        for i in range(cs[c] + 1, cs[c + 1]):
            t = _r3(anim_trans, cj[i])
            reach[c] += math.sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2])
    usable = np.empty(nc)
    for c in range(nc):
        # Where the limb kernel's reach clamp and soft IK leave a target exactly reached.
        usable[c] = max(min(clamps[c], 1.0) * reach[c] - softs[c], 0.0)
    forward_kinematics(parents, rot, trans, pos, wrot)
    _anchor(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, usable, active)
    err = _limbs(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, poles, has_pole, tols, clamps, softs, reach,
                 mid_kind, mid_axis, mid_lo, mid_hi, active, pulls, chain_err)  # fmt: skip
    out_rot[:] = rot
    out_trans[:] = trans
    asked = np.empty((nc, 7))
    best = start_err = err
    best_err = chain_err.copy()
    count = 0
    scale = 0.0
    for c in range(nc):
        scale += reach[c]
    while count < cap and not _all_within(best_err, tols, active):
        # 1. pre-pull of the root
        sx, sy, sz, sw = 0.0, 0.0, 0.0, 0.0
        for c in range(nc):
            if not active[c] or pulls[c] <= 0.0:
                continue
            e, asks, d = ask(c, kinds, cs, cj, goals, pulls, reach, usable, tols, anim_roots, pos)
            if not asks:
                continue
            w = pulls[c]
            sx += w * (d[0] - pos[e, 0])
            sy += w * (d[1] - pos[e, 1])
            sz += w * (d[2] - pos[e, 2])
            sw += w
        sw = max(sw, 1e-300)
        for j in range(nj):
            if parents[j] < 0:
                trans[j, 0] += sx / sw
                trans[j, 1] += sy / sw
                trans[j, 2] += sz / sw
        forward_kinematics(parents, rot, trans, pos, wrot)
        _anchor(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, usable, active)
        # 2. the bend, tip to root, each move followed by the anchors
        for i in range(order.shape[0]):
            _turn_joint(order[i], parents, rot, trans, pos, wrot, below, child, lim_kind, lim_a, lim_b, lim_axis, kinds,
                        cs, cj, goals, pulls, reach, usable, tols, anim_roots, active, owner, asked)  # fmt: skip
            _anchor(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, usable, active)
        # 3. the limbs
        err = _limbs(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, poles, has_pole, tols, clamps, softs, reach,
                     mid_kind, mid_axis, mid_lo, mid_hi, active, pulls, chain_err)  # fmt: skip
        if err < best:
            best = err
            best_err[:] = chain_err
            out_rot[:] = rot
            out_trans[:] = trans
        errors[count] = best
        chain_errors[count, :] = best_err
        count += 1
        # Once every limb and anchor reaches, only the trunk's give-and-take is left: a
        # shorter window (a drag spends its frames here).
        window = STALL_PASSES
        if _limbs_within(best_err, tols, active, kinds):
            window = SETTLED_PASSES
        if count >= window:
            before = errors[count - 1 - window] if count > window else start_err
            if before - best <= max(STALL_ABSOLUTE * scale, STALL_RELATIVE * best):
                break
    chain_err[:] = best_err
    return count


@numba.njit(cache=True, nogil=True, parallel=True)
def solve_rows(parents, anim_rot, anim_trans, warm_rot, warm_root, order, below, child, owner, lim_kind, lim_a, lim_b,
               lim_axis, kinds, cs, cj, goals, poles, has_pole, pulls, tols, clamps, softs, mid_kind, mid_axis, mid_lo,
               mid_hi, active, cap, out_rot, out_trans, chain_err, errors, chain_errors, iterations):  # fmt: skip
    """solve_row over rows (frames or rigs of one skeleton and chain table), in parallel:
    anim_rot, anim_trans, warm_rot (N, J, ...), warm_root (N, 3), goals, poles (N, C, 3)."""
    for i in numba.prange(anim_rot.shape[0]):
        iterations[i] = solve_row(
            parents, anim_rot[i], anim_trans[i], warm_rot[i], warm_root[i], order, below, child, owner, lim_kind, lim_a,
            lim_b, lim_axis, kinds, cs, cj, goals[i], poles[i], has_pole, pulls, tols, clamps, softs, mid_kind, mid_axis,
            mid_lo, mid_hi, active, cap, out_rot[i], out_trans[i], chain_err[i], errors[i], chain_errors[i],
        )  # fmt: skip
