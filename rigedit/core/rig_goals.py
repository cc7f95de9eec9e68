"""The goals a frame solves for (docs/ARCHITECTURE.md, core: the rig's state): each chain's
own target and pole, unless the frame places them: a grounded foot aims where the ground
puts it (rig_ground.py, through the animated frame), a follow-clip chain at the animated tip
plus its offset, its pole from the animated limb's bend (clip_goals.py).

These are per-frame inputs: worked out from the animated frame, handed to the solve and kept
in the rig's RigState (`goals`) as what the last solve aimed at; never written into the
chains, so a chain's target and pole stay what was set on it.
"""
from __future__ import annotations

from .clip_goals import followed_goals

_NONE: dict = {}


def placed_goals(rig, anim) -> dict[str, tuple]:
    """Chain name -> (goal, pole) for every chain whose goal this frame places (see the
    module docstring); chains not named aim at their own target and pole."""
    grounded = anim.grounded if rig.ground is not None else None
    if rig.clip is None and not grounded:
        rig.solve_state.goals = _NONE
        return _NONE
    placed = followed_goals(rig, anim) if rig.clip is not None else {}
    if grounded:
        chains = rig.chains_by_name
        for name, target in grounded.items():
            placed[name] = (target, chains[name].own_pole)
    rig.solve_state.goals = placed
    return placed


def goal_and_pole(ch, placed: dict) -> tuple:
    """The (goal, pole) a chain aims at this frame, given placed_goals' answer."""
    got = placed.get(ch.name) if placed else None
    return (ch.own_target, ch.own_pole) if got is None else got
