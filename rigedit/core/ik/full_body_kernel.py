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
from . import fabrik_passes, full_body_steps, rows, two_bone_kernel
from .full_body_steps import (  # noqa: F401 (the kinds and margins are this module's API too)
    ANCHOR_MARGIN,
    FABRIK,
    FABRIK_MEASURE,
    REACH_MARGIN,
    TWO_BONE,
    anchor,
    ask,
    forward_kinematics,
    limbs,
    move_root,
    place_root,
    turn_joint,
)
from .rows import row3

STALL_PASSES = 6  # a cold reach's first passes can lose ground before they win it
SETTLED_PASSES = 2
STALL_RELATIVE = 1e-3  # the summed error fell by less than this fraction over STALL_PASSES
STALL_ABSOLUTE = 1e-9  # metres: round-off

fresh_cache(__file__, sq, fabrik_passes, two_bone_kernel, full_body_steps, rows)

_jit = numba.njit(cache=True, nogil=True)
_inline = full_body_steps._inline  # a pass's steps, inlined into the loop (see full_body_steps)


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


@_inline
def _reach(parents, anim_rot, anim_trans, cs, cj, clamps, softs, pos, wrot):
    """Each chain's root where the animated pose has it (the pull caps are measured there),
    its reach (the sum of its bones), the part of that the limb kernel's reach clamp and
    soft IK leave exactly reached (usable), and the reaches summed (the stall's scale)."""
    nc = cs.shape[0] - 1
    forward_kinematics(parents, anim_rot, anim_trans, pos, wrot)
    anim_roots = np.empty((nc, 3))
    reach = np.zeros(nc)
    for c in range(nc):
        r = cj[cs[c]]
        anim_roots[c, 0], anim_roots[c, 1], anim_roots[c, 2] = pos[r, 0], pos[r, 1], pos[r, 2]
        for i in range(cs[c] + 1, cs[c + 1]):
            t = row3(anim_trans, cj[i])
            reach[c] += math.sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2])
    usable = np.empty(nc)
    scale = 0.0
    for c in range(nc):
        usable[c] = max(min(clamps[c], 1.0) * reach[c] - softs[c], 0.0)
        scale += reach[c]
    return anim_roots, reach, usable, scale


@_inline
def _pull_root(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, reach, usable, tols, anim_roots, active):
    """1. pre-pull: the root translated by the pull-weighted mean of the chains' asks."""
    sx, sy, sz, sw = 0.0, 0.0, 0.0, 0.0
    for c in range(kinds.shape[0]):
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
    move_root(parents, trans, sx / sw, sy / sw, sz / sw)
    forward_kinematics(parents, rot, trans, pos, wrot)


@_inline
def _stalled(errors, count, start_err, best, best_err, tols, active, kinds, scale):
    """Whether the best summed error fell too little over the last window of passes:
    STALL_PASSES, or SETTLED_PASSES once every limb and anchor reaches (only the trunk's
    give-and-take is left then, and a drag spends its frames there)."""
    window = STALL_PASSES
    if _limbs_within(best_err, tols, active, kinds):
        window = SETTLED_PASSES
    if count < window:
        return False
    before = errors[count - 1 - window] if count > window else start_err
    return before - best <= max(STALL_ABSOLUTE * scale, STALL_RELATIVE * best)


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
    pos = np.empty((nj, 3))
    wrot = np.empty((nj, 4))
    anim_roots, reach, usable, scale = _reach(parents, anim_rot, anim_trans, cs, cj, clamps, softs, pos, wrot)
    rot = warm_rot.copy()
    trans = anim_trans.copy()
    place_root(parents, trans, warm_root)
    forward_kinematics(parents, rot, trans, pos, wrot)
    anchor(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, usable, active)
    err = limbs(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, poles, has_pole, tols, clamps, softs, reach,
                 mid_kind, mid_axis, mid_lo, mid_hi, active, pulls, chain_err)  # fmt: skip
    out_rot[:] = rot
    out_trans[:] = trans
    asked = np.empty((kinds.shape[0], 7))
    best = start_err = err
    best_err = chain_err.copy()
    count = 0
    while count < cap and not _all_within(best_err, tols, active):
        _pull_root(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, reach, usable, tols, anim_roots, active)
        anchor(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, usable, active)
        # 2. the bend, tip to root, each move followed by the anchors (in place: as an inlined
        # step of its own, passing the body's arrays, a cold frame took 2% longer)
        for i in range(order.shape[0]):
            turn_joint(order[i], parents, rot, trans, pos, wrot, below, child, lim_kind, lim_a, lim_b, lim_axis, kinds,
                       cs, cj, goals, pulls, reach, usable, tols, anim_roots, active, owner, asked)  # fmt: skip
            anchor(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, pulls, usable, active)
        # 4. the limbs
        err = limbs(parents, rot, trans, pos, wrot, kinds, cs, cj, goals, poles, has_pole, tols, clamps, softs, reach,
                     mid_kind, mid_axis, mid_lo, mid_hi, active, pulls, chain_err)  # fmt: skip
        if err < best:
            best = err
            best_err[:] = chain_err
            out_rot[:] = rot
            out_trans[:] = trans
        errors[count] = best
        chain_errors[count, :] = best_err
        count += 1
        if _stalled(errors, count, start_err, best, best_err, tols, active, kinds, scale):
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
