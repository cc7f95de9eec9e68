"""What the rig works out about its chains when they are added or removed, kept while the
structure stays: each chain's joint indices and the chains it reads from (`Plan`, linked
through a joint -> writing chains index, `Writers`), and the limit checks that need the
skeleton (`LimitFit`, which the chain runs whenever its solver or limits change).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from . import scalar_quat as sq
from .chain_settings import LimitFitError
from .ik import registry
from .ik.limits import HingeLimit, Limit, hinge_axis
from .skeleton import Skeleton


class Plan:
    """What the solve loop needs about a chain, resolved once: joint indices root to tip, the
    root's parent (-1 for none), every joint at or below the root (whose world transforms go
    stale when the chain turns), the earlier chains it depends on and whether later ones
    depend on it."""

    __slots__ = ("idx", "parent", "below", "stale", "upstream", "feeds")

    def __init__(self, idx: list[int], parent: int, below: list[int]) -> None:
        self.idx, self.parent, self.below = idx, parent, below
        self.stale = runs(below)
        self.upstream: tuple[str, ...] = ()  # earlier chains whose output this one reads
        # Whether a later chain reads this one's output (set when that one is linked; left
        # set when it goes: it only says the solve may hand on its world frames).
        self.feeds = False


def runs(joints: list[int]) -> tuple:
    """`joints` as (slice, [None] * its length) runs of consecutive indices, to clear a world
    cache with a slice assignment per run: a skeleton in depth-first order (BVH, glTF as
    read, the bundled presets) has every subtree in one run, and the solve clears one per
    chain per frame (a loop over the joints cost ~2 us of a humanoid frame)."""
    runs, start = [], None
    ordered = sorted(joints)
    for k, j in enumerate(ordered):
        if start is None:
            start = j
        if k + 1 == len(ordered) or ordered[k + 1] != j + 1:
            runs.append((slice(start, j + 1), [None] * (j + 1 - start)))
            start = None
    return tuple(runs)


class Writers:
    """Which chains turn each joint, in the order they were added: what a new chain's
    upstream is looked up in, one joint at a time. Belongs to one plans dict (`plans`)."""

    __slots__ = ("plans", "by_joint", "order", "lookups")

    def __init__(self, plans: dict) -> None:
        self.plans = plans
        self.by_joint: dict[int, list[str]] = {}
        self.order: dict[str, int] = {}
        self.lookups = 0  # joints looked up, for tests counting the work (no timing)

    def add(self, name: str, plan: "Plan") -> None:
        self.order[name] = len(self.order)
        for j in plan.idx:
            self.by_joint.setdefault(j, []).append(name)

    def upstream_of(self, reads: list[int]) -> tuple[str, ...]:
        found: set[str] = set()
        for j in reads:
            self.lookups += 1
            found.update(self.by_joint.get(j, ()))
        return tuple(sorted(found, key=self.order.__getitem__))


class LimitFit:
    """The checks on a chain's limits that need the skeleton, run by the chain whenever its
    solver or limits change: which joints can carry a limit, and hinge axes that leave
    a plane to bend in."""

    __slots__ = ("skeleton", "idx")

    def __init__(self, skeleton: Skeleton, idx: list[int]) -> None:
        self.skeleton, self.idx = skeleton, idx

    def __call__(self, solver: str, limits: Mapping[str, Limit]) -> None:
        sk, idx = self.skeleton, self.idx
        names = [sk.names[j] for j in idx]
        for name, lim in limits.items():
            k = names.index(name)
            j = idx[k]
            if k == len(idx) - 1:
                raise LimitFitError(name, "it is the chain's tip: no bone of the chain leaves it")
            problem = registry.get(solver).limit_problem(k)
            if problem is not None:
                raise LimitFitError(name, problem)
            offset = sk.offsets[j]
            length = float(np.linalg.norm(offset))
            if k == 0 and sk.parents[j] < 0:
                raise LimitFitError(name, "it is a root joint: there is no parent bone to measure the limit from")
            if k == 0 and length <= sq.TINY:
                raise LimitFitError(name, "the bone entering it has zero length: no direction to measure the limit from")
            if isinstance(lim, HingeLimit) and length > sq.TINY:
                axis = np.asarray(lim.axis, dtype=np.float64)
                if hinge_axis(tuple((axis / np.linalg.norm(axis)).tolist()), tuple((offset / length).tolist())) is None:
                    raise LimitFitError(name, "the hinge axis is parallel to the bone entering the joint: no plane to bend in")
