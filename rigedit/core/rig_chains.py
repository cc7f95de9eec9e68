"""The rig's chains in solve order, each with its Plan: which joints it turns and which
earlier chains it reads (so a solve knows what to redo when one moves). Adding a chain links
it alone (the work of its own joints, not of every chain); removing one re-links them all.
The Rig owns one and hands its modules read-only views (`Rig.chains_by_name`, `Rig.plans`).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Callable, Mapping

from .chain import Chain
from .frame_board import FrameBoard
from .rig_plan import LimitFit, Plan, Writers
from .skeleton import Skeleton


class RigChains:
    """Chains by name in solve order (`chains`), their plans (`plans`), and the joint ->
    writing chains index that links a new chain. Chains are joined to the rig (Chain.join)
    here: the skeleton's limit checks, where follow-clip goals come from, the role's pull."""

    __slots__ = ("_skeleton", "parents", "_children", "_chains", "_plans", "chains", "plans", "_writers", "_goals",
                 "_role_pull", "board")  # fmt: skip

    def __init__(self, skeleton: Skeleton, goals, role_pull: Callable[[str], float]) -> None:
        self._skeleton = skeleton
        self.parents = [int(p) for p in skeleton.parents]
        self._children: list[list[int]] = [[] for _ in skeleton.names]
        for j, p in enumerate(self.parents):
            if p >= 0:
                self._children[p].append(j)
        self._chains: dict[str, Chain] = {}
        self._plans: dict[str, Plan] = {}
        # Read-only views of the two, made once: a solve reads them several times a frame.
        self.chains: Mapping[str, Chain] = MappingProxyType(self._chains)
        self.plans: Mapping[str, Plan] = MappingProxyType(self._plans)
        self._writers = Writers(self._plans)
        self._goals, self._role_pull = goals, role_pull
        self.board = FrameBoard(0)  # what the compiled frame reads of the chains (frame_board.py)

    def _seat(self) -> None:
        """A new board for the chains in their order now, each chain seated on it."""
        self.board = FrameBoard(len(self._chains))
        for i, ch in enumerate(self._chains.values()):
            ch.seat(self.board, i)

    def indices(self, name: str, joints: list[str]) -> list[int]:
        """The joints' indices, root to tip; ValueError names the chain."""
        try:
            return self._skeleton.chain_indices(joints)
        except (KeyError, ValueError) as e:
            raise ValueError(f"chain {name!r}: {e.args[0] if e.args else e}") from None

    def insert(self, ch: Chain) -> None:
        """Append `ch`, solved after the others; ValueError (nothing added) if it does not fit."""
        if ch.name in self._chains:
            raise ValueError(f"a chain named {ch.name!r} already exists")
        if ch.in_rig:
            # Its setters write one rig's frame board: joined to two, the first would go on
            # solving the old settings without a word.
            raise ValueError(f"chain {ch.name!r} already belongs to another rig: remove it there first "
                             "(Rig.remove_chain) or add a copy (Chain.copy())")
        idx = self.indices(ch.name, list(ch.joints))
        ch.join(LimitFit(self._skeleton, idx), self._goals, self._role_pull)
        below, stack = [], [idx[0]]
        while stack:
            j = stack.pop()
            below.append(j)
            stack.extend(self._children[j])
        plan = Plan(idx, self.parents[idx[0]], below)
        self._chains[ch.name] = ch
        self._plans[ch.name] = plan
        # Appended last, the new chain changes no earlier chain's upstream: link it alone,
        # so adding n chains costs n times one chain's joints, not n passes over all chains.
        self._link(ch.name, plan, self._writers)
        self._seat()

    def remove(self, name: str) -> Chain:
        ch = self._chains[name]
        # Out of the rig its goal is absolute: the one it had here (no solve wrote it), which
        # a chain following the clip reads through its plan, so it leaves before that goes.
        ch.leave()
        del self._chains[name], self._plans[name]
        self.relink()
        self._seat()
        return ch

    def relink(self) -> None:
        """Record, for each chain, the earlier chains whose output it reads: those that turn a
        joint above its root (its base moves) or one of its own joints (what it blends with)."""
        writers = Writers(self._plans)
        for name, plan in self._plans.items():
            self._link(name, plan, writers)
        self._writers = writers

    def _link(self, name: str, plan: Plan, writers: Writers) -> None:
        """Link one chain to the chains already in `writers` (the earlier ones), then add it."""
        reads = list(plan.idx[:-1])
        j = plan.parent
        while j >= 0:
            reads.append(j)
            j = self.parents[j]
        plan.upstream = writers.upstream_of(reads)
        for u in plan.upstream:
            self._plans[u].feeds = True
        writers.add(name, plan)  # a look_at chain turns its tip too

    def copy_for(self, skeleton: Skeleton, goals, role_pull: Callable[[str], float]) -> "RigChains":
        """The same chains (copies, joined to another rig on `skeleton`) and plans (replaced,
        never changed, once linked: shared)."""
        other = RigChains(skeleton, goals, role_pull)
        other._plans.update(self._plans)
        for name, plan in other._plans.items():
            other._writers.add(name, plan)
        for name, ch in self._chains.items():
            twin = other._chains[name] = ch.copy()
            twin.join(LimitFit(skeleton, self._plans[name].idx), goals, role_pull, checked=True)
        other._seat()
        return other
