"""A chain made from joints the user picked (the editor's Edit > Add IK Chain, Shift+I, as
Blender's Shift+I adds an IK constraint to the selected bone).

One joint picked is a limb's end: the chain is it and its two parents, a two-bone limb
(a hand gives the arm, a foot the leg). Two or more picked joints must lie on one line from
the root down; the chain runs from the highest to the lowest of them. The solver is the
one a new chain of that length gets (ik/registry.py's reaching_for: the closed form for
three joints, else the iterative one), with a pole along the limb's own bend where the
solver takes one and the limb is bent.
"""
from __future__ import annotations

from typing import Collection, Sequence

from ..ik import registry
from ..skeleton import Pose, Skeleton
from .figure import Figure
from .proposal import ChainProposal, pole_for


def pick_chain(skeleton: Skeleton, pose: Pose, picked: Sequence[str], taken: Collection[str] = ()) -> ChainProposal:
    """The chain for `picked` joint names in `pose` (its target the tip where it is now),
    named after its tip and unlike any name in `taken`. ValueError says why there is none."""
    if not picked:
        raise ValueError("select a joint first: click the bone of the limb's end (a hand, a foot)")
    idx = [skeleton.index(n) for n in picked]
    parents = [int(p) for p in skeleton.parents]
    chain = _limb_ending_at(skeleton, parents, idx[0]) if len(set(idx)) == 1 else _line_through(skeleton, parents, idx)
    solver = registry.reaching_for(len(chain))
    fig = Figure(skeleton, pose)
    pole = pole_for(fig, chain, None) if solver.pole and len(chain) == 3 else None
    names = tuple(skeleton.names[j] for j in chain)
    return ChainProposal(_free_name(names[-1], taken), solver.name, names, fig.pos[chain[-1]].copy(), pole,
                         "picked in the editor")


def _ancestors(parents: list[int], j: int) -> list[int]:
    up = []
    while parents[j] >= 0:
        j = parents[j]
        up.append(j)
    return up


def _limb_ending_at(skeleton: Skeleton, parents: list[int], tip: int) -> list[int]:
    up = _ancestors(parents, tip)
    if len(up) < 2:
        raise ValueError(f"{skeleton.names[tip]!r} has fewer than two joints above it: select the chain's first "
                         "joint too (Shift+click), or a joint lower down")
    return [up[1], up[0], tip]


def _line_through(skeleton: Skeleton, parents: list[int], idx: list[int]) -> list[int]:
    tip = max(idx, key=lambda j: len(_ancestors(parents, j)))
    line = [tip] + _ancestors(parents, tip)  # tip first, up to the root
    off = [skeleton.names[j] for j in idx if j not in line]
    if off:
        raise ValueError(f"{', '.join(map(repr, off))} not on the line from {skeleton.names[tip]!r} up to the root: "
                         "select joints along one limb")
    root = max(line.index(j) for j in idx)
    return line[root::-1]


def _free_name(tip: str, taken: Collection[str]) -> str:
    base = f"{tip}_ik"
    name, k = base, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name
