"""What the proposer finds on a figure before naming anything: legs by hub (the hips first,
a quadruped's chest next), the path from the hips up to the head, the chest on it and the
arms off it."""
from __future__ import annotations

from .figure import Figure
from .limbs import Limb, cut_limb, leg_hubs, level_with
from .torso import body_path, chest_on, head_end


class Body:
    """What was found: legs per hub, the hips, the path up, the chest, the arms."""

    def __init__(self, fig: Figure) -> None:
        self.fig = fig
        hubs = leg_hubs(fig)
        self.legs: dict[int, list[Limb]] = {}
        for h, kids in hubs.items():
            if self.legs and not level_with(fig, next(iter(self.legs)), h):
                continue  # a biped's long arms: found as arms, off the chest, below
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
