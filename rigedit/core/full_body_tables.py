"""The full-body solve's view of a rig (rig_full_body.py): each chain's role and default
pull (legs anchor, the trunk gives way, the rest reach), and the rig turned into the plain
arrays the compiled kernel takes (FullBodyTables, made once per chain layout and limits;
chain_arrays, the per-chain settings), and what a solve reads (solve_key; signature, the
same as a saved solution remembers it).
"""
from __future__ import annotations

import math

import numpy as np

from .autochains.body import Body
from .autochains.figure import Figure
from .autochains.limbs import cut_limb, leg_hubs
from .ik.limits import ConeLimit, HingeLimit
from .rig_goals import goal_and_pole, placed_goals
from .chain_setup import _limit_params
from .solve_methods import FULL_BODY_LIMB

ARM_PULL = 0.4
TRUNK_PULL = 0.01
LEG_PULL = 0.0


def default_pull(rig, name: str) -> float:
    """The pull a chain gets by its role (see the module docstring)."""
    return _roles(rig).get(name, ARM_PULL)


def _roles(rig) -> dict:
    gait_legs = tuple(rig.gait.legs) if rig.gait is not None else ()
    key = (tuple((n, ch.joints, ch.solver) for n, ch in rig.chains_by_name.items()), gait_legs)
    got = rig.solve_state.body.roles
    if got is not None and got[0] == key:
        return got[1]
    names = rig.skeleton.names
    index = {n: i for i, n in enumerate(names)}
    legs = _leg_lines(rig)
    parents = rig.parents
    roots = {n: index[ch.joints[0]] for n, ch in rig.chains_by_name.items()}
    roles = {}
    for n, ch in rig.chains_by_name.items():
        idx = [index[j] for j in ch.joints]
        if (idx[-1] in legs and idx[0] in legs) or n in gait_legs:
            roles[n] = LEG_PULL
        elif ch.kind.method.trunk() and any(_under(r, set(idx[:-1]), parents) for m, r in roots.items() if m != n):
            roles[n] = TRUNK_PULL
    rig.solve_state.body.roles = (key, roles)
    return roles


def _leg_lines(rig) -> set:
    """Joints on the figure's legs as the chain proposer finds them (autochains: from every
    hub, the hips and a quadruped's chest, down to the foot), in the rest pose, and every
    other branch of those hubs that reaches the ground as a leg does (limbs.leg_hubs): the
    proposer keeps one mirrored pair of a hub's legs, an eight-legged creature has four."""
    try:
        fig = Figure(rig.skeleton, rig.skeleton.rest_pose())
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
        parents = np.array(rig.parents, dtype=np.int64)
        if any(p >= j for j, p in enumerate(rig.parents)):
            raise ValueError("full-body IK needs a skeleton whose parents come before their children")
        self.names = names
        self.parents = parents
        nj = len(parents)
        self.owner = np.full(nj, -1, np.int64)
        self.child = np.full(nj, -1, np.int64)
        self.lim = (np.zeros(nj, np.int64), np.zeros(nj), np.zeros(nj), np.zeros((nj, 3)))
        nc = len(names)
        self.mid = (np.zeros(nc, np.int64), np.zeros((nc, 3)), np.zeros(nc), np.zeros(nc))
        kinds, cs, cj, trunk = self._chains(rig, names)
        roots = [j for j in range(nj) if parents[j] < 0]
        # The bend sweep: trunk joints deepest first, then the root(s).
        self.order = np.array(sorted(set(trunk) - set(roots), reverse=True) + roots, dtype=np.int64)
        self.below = _below(parents)
        self.kinds = np.array(kinds, np.int64)
        self.cs, self.cj = np.array(cs, np.int64), np.array(cj, np.int64)
        self.chain_joints = [np.array(cj[cs[c] : cs[c + 1]]) for c in range(nc)]
        self.writes = [j[:-1] for j in self.chain_joints]  # rotations a chain's solve writes
        self.trunk = np.array(sorted(set(trunk) | set(roots)), dtype=np.int64)
        written = sorted({int(j) for w in self.writes for j in w})
        self.solved = np.array(sorted(set(written) | set(self.trunk.tolist())), dtype=np.int64)  # joints the solve turns
        self.body_only = np.array([j for j in self.trunk.tolist() if j not in written], dtype=np.int64)
        if len(roots) != 1:
            raise ValueError(f"full-body IK needs a skeleton with one root joint, this one has {len(roots)}")
        self.root = roots[0]

    def _chains(self, rig, names: list) -> tuple:
        """The chain table (kinds, offsets cs into the joint list cj) and the trunk joints
        (every joint of a FABRIK chain but its tip), filling in each trunk joint's owner,
        child and limit and each limb's middle-joint limit."""
        index = {n: i for i, n in enumerate(rig.skeleton.names)}
        kinds, cs, cj, trunk = [], [0], [], []
        for c, n in enumerate(names):
            ch = rig.chains_by_name[n]
            idx = [index[j] for j in ch.joints]
            kind = ch.kind.method.full_body_kind()
            kinds.append(kind)
            if kind == FULL_BODY_LIMB:
                lim = ch.limits.get(ch.joints[1])
                if lim is not None:
                    for table, value in zip(self.mid, _limit_params(lim)):
                        table[c] = value
            else:
                for k, j in enumerate(idx[:-1]):
                    self.owner[j], self.child[j] = c, idx[k + 1]
                    trunk.append(j)
                    self._trunk_limit(j, ch.limits.get(ch.joints[k]))
            cj.extend(idx)
            cs.append(len(cj))
        return kinds, cs, cj, trunk

    def _trunk_limit(self, j: int, lim) -> None:
        """Trunk joint j's limit as the kernel's codes (fabrik_passes: CONE (cos, sin) of the
        half angle, HINGE (lo, hi) radians about a unit axis); no limit leaves it as it is."""
        kind, a, b, axis = self.lim
        if isinstance(lim, ConeLimit):
            rad = math.radians(lim.max_deg)
            kind[j], a[j], b[j] = 1, math.cos(rad), math.sin(rad)
        elif isinstance(lim, HingeLimit):
            ax = np.array(lim.axis, dtype=np.float64)
            kind[j], a[j], b[j] = 2, math.radians(lim.min_deg), math.radians(lim.max_deg)
            axis[j] = ax / np.linalg.norm(ax)


def _below(parents) -> np.ndarray:
    """below[e, j]: joint e is j or under it."""
    nj = len(parents)
    below = np.zeros((nj, nj), np.bool_)
    for e in range(nj):
        j = e
        while j >= 0:
            below[e, j] = True
            j = parents[j]
    return below


def chain_arrays(rig, tables: FullBodyTables, placed: dict | None = None):
    """The per-frame chain inputs: goals, poles, has_pole, pulls, tolerances, clamps,
    softness, active (weight > 0), weights. `placed`: the frame's placed goals
    (rig_goals.placed_goals; by default the ones the last solve aimed at)."""
    chs = [rig.chains_by_name[n] for n in tables.names]
    roles = _roles(rig)
    placed = rig.solve_state.goals if placed is None else placed
    aims = [goal_and_pole(ch, placed) for ch in chs]
    goals = np.array([goal for goal, _ in aims], dtype=np.float64).reshape(-1, 3)
    poles = np.array([_NO_POLE if pole is None else pole for _, pole in aims], dtype=np.float64).reshape(-1, 3)
    has_pole = np.array([pole is not None for _, pole in aims], np.bool_)
    pulls = np.array([roles.get(ch.name, ARM_PULL) if ch.own_pull is None else ch.own_pull for ch in chs], dtype=np.float64)
    per = np.array([(ch.tolerance, ch.reach_clamp, ch.softness, ch.weight) for ch in chs], dtype=np.float64).reshape(-1, 4)
    tols, clamps, softs, weights = (np.ascontiguousarray(per[:, k]) for k in range(4))
    return goals, poles, has_pole, pulls, tols, clamps, softs, weights > 0.0, weights


_NO_POLE = (0.0, 0.0, 0.0)


def tables_key(rig) -> tuple:
    return tuple((n, ch.joints, ch.solver, ch.limit_key) for n, ch in rig.chains_by_name.items())


def tables_of(rig) -> FullBodyTables:
    chains = rig.chains_by_name
    key = tables_key(rig)
    got = rig.solve_state.body.tables
    if got is None or got[0] != key:
        names = [n for n, ch in chains.items() if ch.kind.reaches]
        got = rig.solve_state.body.tables = (key, FullBodyTables(rig, names))
    return got[1]


def anim_arrays(rig, anim):
    """The animated frame as arrays, kept while it is the same frame."""
    got = rig.solve_state.body.anim
    if got is None or got[0] is not anim:
        got = rig.solve_state.body.anim = (anim, np.array(anim.rot, dtype=np.float64), np.array(anim.translations, dtype=np.float64))
    return got[1], got[2]


def solve_key(rig, anim, tables) -> tuple:
    """What a full-body solve reads besides its warm start (compared by value)."""
    chs = [rig.chains_by_name[n] for n in tables.names]
    placed = placed_goals(rig, anim)
    if placed:  # the frame's goals (rig_goals.py)
        aims = [goal_and_pole(ch, placed) for ch in chs]
    else:
        aims = [(ch.own_target, ch.own_pole) for ch in chs]
    targets = tuple(goal for goal, _ in aims)
    settings = tuple((pole, ch.tolerance, ch.weight, ch.own_pull, ch.reach_clamp, ch.softness) for ch, (_, pole) in zip(chs, aims))
    return (anim, tables, targets, settings)


def signature(rig, key: tuple) -> tuple:
    """A key as a saved solution remembers it: the animated frame and the tables by their
    own keys (the tables' key is the chain layout and limits they were made for)."""
    return (key[0].key, tables_key(rig)) + key[2:]
