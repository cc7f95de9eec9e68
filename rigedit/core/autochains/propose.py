"""The proposer: legs, then the body path, chest and arms, then facing, names and poles."""
from __future__ import annotations

from ..ik import registry
from ..skeleton import Pose, Skeleton
from .body import Body
from .facing import facing, sides
from .figure import Figure
from .hand import finger_name
from .proposal import ChainProposal, make, pole_for
from .torso import spine_and_head, tails


def find_hips_index(skeleton: Skeleton, pose: Pose) -> int | None:
    return Body(Figure(skeleton, pose)).hips


def _facing(fig: Figure, body: Body):
    hind = body.legs.get(body.hips, []) if body.hips is not None else []
    front = body.legs.get(body.front, []) if body.front is not None else []
    forward, cue = facing(fig, hind, front + body.arms, body.front)
    return hind, front, forward, cue


def forward_of(skeleton: Skeleton, pose: Pose):
    fig = Figure(skeleton, pose)
    return _facing(fig, Body(fig))[2]


def propose(skeleton: Skeleton, pose: Pose) -> list[ChainProposal]:
    fig = Figure(skeleton, pose)
    body = Body(fig)
    hind, front, forward, cue = _facing(fig, body)
    general = registry.general().name
    out: list[ChainProposal] = []
    if body.hand is not None:
        return _fingers(fig, body.hand, general)

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


def _fingers(fig: Figure, hand, solver: str) -> list[ChainProposal]:
    wrist, fingers = hand
    out, seen = [], set()
    for k, finger in enumerate(fingers, 1):
        name = finger_name(fig, finger, k)
        name = name if name not in seen else f"{name}_{k}"
        seen.add(name)
        out.append(make(fig, name, solver, finger, None, f"a finger of a hand alone, off {fig.names[wrist]}"))
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
