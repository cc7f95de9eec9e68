"""The full-body solve's view of a rig (rig_full_body.py): each chain's role and default
pull (legs anchor, the trunk gives way, the rest reach), and the rig turned into the plain
arrays the compiled kernel takes (FullBodyTables, made once per chain layout and limits;
chain_arrays, the per-chain settings).
"""
from __future__ import annotations

import math

import numpy as np

from .autochains.body import Body
from .autochains.figure import Figure
from .autochains.limbs import cut_limb, leg_hubs
from .ik.limits import ConeLimit, HingeLimit
from .rig_goals import goal_and_pole
from .rig_solve import _limit_params
from .solve_methods import FULL_BODY_LIMB

ARM_PULL = 0.4
TRUNK_PULL = 0.01
LEG_PULL = 0.0


def default_pull(rig, name: str) -> float:
    """The pull a chain gets by its role (see the module docstring)."""
    return _roles(rig).get(name, ARM_PULL)


def _roles(rig) -> dict:
    gait_legs = tuple(rig._gait.legs) if rig._gait is not None else ()
    key = (tuple((n, ch.joints, ch._solver) for n, ch in rig._chains.items()), gait_legs)
    got = rig._cache.body.roles
    if got is not None and got[0] == key:
        return got[1]
    names = rig._skeleton.names
    index = {n: i for i, n in enumerate(names)}
    legs = _leg_lines(rig)
    parents = rig._parents
    roots = {n: index[ch.joints[0]] for n, ch in rig._chains.items()}
    roles = {}
    for n, ch in rig._chains.items():
        idx = [index[j] for j in ch.joints]
        if (idx[-1] in legs and idx[0] in legs) or n in gait_legs:
            roles[n] = LEG_PULL
        elif ch._kind.method.trunk() and any(_under(r, set(idx[:-1]), parents) for m, r in roots.items() if m != n):
            roles[n] = TRUNK_PULL
    rig._cache.body.roles = (key, roles)
    return roles


def _leg_lines(rig) -> set:
    """Joints on the figure's legs as the chain proposer finds them (autochains: from every
    hub, the hips and a quadruped's chest, down to the foot), in the rest pose, and every
    other branch of those hubs that reaches the ground as a leg does (limbs.leg_hubs): the
    proposer keeps one mirrored pair of a hub's legs, an eight-legged creature has four."""
    try:
        fig = Figure(rig._skeleton, rig._skeleton.rest_pose())
        body = Body(fig)
        lines = [limb.line for limbs in body.legs.values() for limb in limbs]
        for hub, kids in leg_hubs(fig).items():
            if hub in body.legs:
                lines += [limb.line for c in kids if (limb := cut_limb(fig, hub, c, "leg")) is not None]
    except Exception:  # a figure the proposer cannot read: no legs by role
        return set()
    return {j for line in lines for j in line}


def _under(j: int, joints: set, parents: list) -> bool:
    j = parents[j]
    while j >= 0:
        if j in joints:
            return True
        j = parents[j]
    return False


class FullBodyTables:
    """The skeleton and chain table as the kernel takes them, for one chain layout."""

    def __init__(self, rig, names: list) -> None:
        parents = np.array(rig._parents, dtype=np.int64)
        nj = len(parents)
        if any(p >= j for j, p in enumerate(rig._parents)):
            raise ValueError("full-body IK needs a skeleton whose parents come before their children")
        index = {n: i for i, n in enumerate(rig._skeleton.names)}
        self.names = names
        kinds, cs, cj = [], [0], []
        owner = np.full(nj, -1, np.int64)
        child = np.full(nj, -1, np.int64)
        lim_kind = np.zeros(nj, np.int64)
        lim_a, lim_b = np.zeros(nj), np.zeros(nj)
        lim_axis = np.zeros((nj, 3))
        nc = len(names)
        mid_kind = np.zeros(nc, np.int64)
        mid_axis = np.zeros((nc, 3))
        mid_lo, mid_hi = np.zeros(nc), np.zeros(nc)
        trunk = []
        for c, n in enumerate(names):
            ch = rig._chains[n]
            idx = [index[j] for j in ch.joints]
            kind = ch._kind.method.full_body_kind()
            kinds.append(kind)
            if kind == FULL_BODY_LIMB:
                lim = ch._limits.get(ch.joints[1])
                if lim is not None:
                    mid_kind[c], mid_axis[c], mid_lo[c], mid_hi[c] = _limit_params(lim)
            else:
                for k, j in enumerate(idx[:-1]):
                    owner[j], child[j] = c, idx[k + 1]
                    trunk.append(j)
                    lim = ch._limits.get(ch.joints[k])
                    if isinstance(lim, ConeLimit):
                        rad = math.radians(lim.max_deg)
                        lim_kind[j], lim_a[j], lim_b[j] = 1, math.cos(rad), math.sin(rad)
                    elif isinstance(lim, HingeLimit):
                        ax = np.array(lim.axis, dtype=np.float64)
                        lim_kind[j], lim_a[j], lim_b[j] = 2, math.radians(lim.min_deg), math.radians(lim.max_deg)
                        lim_axis[j] = ax / np.linalg.norm(ax)
            cj.extend(idx)
            cs.append(len(cj))
        roots = [j for j in range(nj) if parents[j] < 0]
        # The bend sweep: trunk joints deepest first, then the root(s).
        self.order = np.array(sorted(set(trunk) - set(roots), reverse=True) + roots, dtype=np.int64)
        below = np.zeros((nj, nj), np.bool_)  # below[e, j]: joint e is j or under it
        for e in range(nj):
            j = e
            while j >= 0:
                below[e, j] = True
                j = parents[j]
        self.parents, self.below, self.child, self.owner = parents, below, child, owner
        self.lim = (lim_kind, lim_a, lim_b, lim_axis)
        self.kinds = np.array(kinds, np.int64)
        self.cs, self.cj = np.array(cs, np.int64), np.array(cj, np.int64)
        self.mid = (mid_kind, mid_axis, mid_lo, mid_hi)
        self.chain_joints = [np.array(cj[cs[c] : cs[c + 1]]) for c in range(nc)]
        self.writes = [j[:-1] for j in self.chain_joints]  # rotations a chain's solve writes
        self.trunk = np.array(sorted(set(trunk) | set(roots)), dtype=np.int64)
        written = sorted({int(j) for w in self.writes for j in w})
        self.solved = np.array(sorted(set(written) | set(self.trunk.tolist())), dtype=np.int64)  # joints the solve turns
        self.body_only = np.array([j for j in self.trunk.tolist() if j not in written], dtype=np.int64)
        if len(roots) != 1:
            raise ValueError(f"full-body IK needs a skeleton with one root joint, this one has {len(roots)}")
        self.root = roots[0]


def chain_arrays(rig, tables: FullBodyTables, placed: dict | None = None):
    """The per-frame chain inputs: goals, poles, has_pole, pulls, tolerances, clamps,
    softness, active (weight > 0), weights. `placed`: the frame's placed goals
    (rig_goals.placed_goals; by default the ones the last solve aimed at)."""
    chs = [rig._chains[n] for n in tables.names]
    roles = _roles(rig)
    placed = rig._cache.goals if placed is None else placed
    aims = [goal_and_pole(ch, placed) for ch in chs]
    goals = np.array([goal for goal, _ in aims], dtype=np.float64).reshape(-1, 3)
    poles = np.array([_NO_POLE if pole is None else pole for _, pole in aims], dtype=np.float64).reshape(-1, 3)
    has_pole = np.array([pole is not None for _, pole in aims], np.bool_)
    pulls = np.array([roles.get(ch._name, ARM_PULL) if ch._pull is None else ch._pull for ch in chs], dtype=np.float64)
    per = np.array([(ch._tolerance, ch._reach_clamp, ch._softness, ch._weight) for ch in chs], dtype=np.float64).reshape(-1, 4)
    tols, clamps, softs, weights = (np.ascontiguousarray(per[:, k]) for k in range(4))
    return goals, poles, has_pole, pulls, tols, clamps, softs, weights > 0.0, weights


_NO_POLE = (0.0, 0.0, 0.0)


def tables_key(rig) -> tuple:
    return tuple((n, ch.joints, ch._solver, ch._limit_key) for n, ch in rig._chains.items())


def tables_of(rig) -> FullBodyTables:
    chains = rig._chains
    key = tables_key(rig)
    got = rig._cache.body.tables
    if got is None or got[0] != key:
        names = [n for n, ch in chains.items() if ch._kind.reaches]
        got = rig._cache.body.tables = (key, FullBodyTables(rig, names))
    return got[1]
