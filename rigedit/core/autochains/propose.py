"""The proposer: legs, then the body path, chest and arms, then facing, names and poles."""
from __future__ import annotations

from ..ik import registry
from ..skeleton import Pose, Skeleton
from .facing import facing, sides
from .figure import Figure
from .limbs import Limb, cut_limb, leg_hubs
from .proposal import ChainProposal, make, pole_for
from .torso import body_path, chest_on, head_end, spine_and_head, tails


class _Body:
    """What was found: legs per hub, the hips, the path up, the chest, the arms."""

    def __init__(self, fig: Figure) -> None:
        self.fig = fig
        hubs = leg_hubs(fig)
        self.legs: dict[int, list[Limb]] = {}
        for h, kids in hubs.items():
            limbs = [limb for c in kids if (limb := cut_limb(fig, h, c, "leg")) is not None and len(limb.joints) >= 2]
            if limbs:
                self.legs[h] = limbs
        self.hips = next(iter(self.legs), None)
        self.front = next(iter(list(self.legs)[1:]), None)  # a quadruped's chest
        leg_joints = {j for limbs in self.legs.values() for limb in limbs for j in fig.subtree(limb.line[0])}
        self.leg_joints = leg_joints
        self.path: list[int] = []
        self.top = self.hips
        self.chest: int | None = None
        self.arms: list[Limb] = []
        if self.hips is None:
            return
        head = head_end(fig, leg_joints, self.hips)
        if head is None or head == self.hips:
            return
        self.top, self.path = body_path(fig, self.hips, head)
        if len(self.legs) > 2:
            pass  # a centipede: no chest, one spine over the whole body
        elif self.front is not None:
            self.chest = self.front if self.front in self.path else None
        else:
            found = chest_on(fig, self.path, leg_joints)
            if found is not None:
                self.chest, kids = found
                self.arms = [a for c in kids if (a := cut_limb(fig, self.chest, c, "arm")) is not None]


def find_hips_index(skeleton: Skeleton, pose: Pose) -> int | None:
    return _Body(Figure(skeleton, pose)).hips


def propose(skeleton: Skeleton, pose: Pose) -> list[ChainProposal]:
    fig = Figure(skeleton, pose)
    body = _Body(fig)
    hind = body.legs.get(body.hips, []) if body.hips is not None else []
    front = body.legs.get(body.front, []) if body.front is not None else []
    forward, cue = facing(fig, hind, front + body.arms, body.front)
    general = registry.general().name
    out: list[ChainProposal] = []

    spine, head = spine_and_head(fig, body.path, body.chest)
    if len(spine) >= 2:
        out.append(make(fig, "spine", general, spine, None, "from above the hips to the chest and neck"))
    if head:
        out.append(make(fig, "head", general, head, None, "the neck and head above the spine"))

    if len(body.legs) > 2:  # a centipede: every pair numbered from the hips on, knees forward
        groups = [(body.arms, "{}_arm", "arm")]
        groups += [(limbs, f"{{}}_leg_{k}", "leg") for k, limbs in enumerate(body.legs.values(), 1)]
    else:
        quadruped = bool(front)
        groups = [(body.arms, "{}_arm", "arm"), (front, "front_{}_leg", "arm"),
                  (hind, "hind_{}_leg" if quadruped else "{}_leg", "leg")]
    for limbs, pattern, bends in groups:
        paired = sorted(zip(limbs, sides(fig, limbs, forward)), key=lambda ls: ls[1] != "left")
        for limb, side in paired:
            label = side or fig.names[limb.joints[-1]]
            direction = None if forward is None else (forward if bends == "leg" else -forward)
            pole = pole_for(fig, limb.joints, direction)
            solver = registry.reaching_for(len(limb.joints)).name
            names = " > ".join(fig.names[j] for j in limb.joints)
            why = f"{limb.kind} below {fig.names[limb.hub]}: {names}" + (f" (facing from {cue})" if cue else "")
            out.append(make(fig, pattern.format(label), solver, limb.joints, pole, why))

    if body.hips is not None:
        skip = body.leg_joints | set(body.path)
        for k, tail in enumerate(tails(fig, body.hips, skip)):
            out.append(make(fig, "tail" if k == 0 else f"tail_{k + 1}", general, tail, None, "a long branch off the hips"))
    if not out:
        out.extend(_branches(fig, general))
    return out


def _branches(fig: Figure, solver: str) -> list[ChainProposal]:
    """One FABRIK chain per leaf: the unbranched run of joints that ends there.

    The run starts below the branching joint, not at it: turning a branching joint would
    swing its other branches too.
    """
    out = []
    leaves = [j for j in range(len(fig)) if not fig.children[j]]
    for leaf in leaves:
        chain = [leaf]
        j = leaf
        while fig.parents[j] >= 0 and len(fig.children[fig.parents[j]]) == 1:
            j = fig.parents[j]
            chain.insert(0, j)
        length = sum(fig.bone[k] for k in chain[1:])
        if len(chain) >= 2 and length > fig.tiny:
            name = "chain" if len(leaves) == 1 else f"chain_{fig.names[leaf]}"
            out.append(make(fig, name, solver, chain, None, "an unbranched branch (no limbs recognised)"))
    return out
