"""What the proposer finds on a figure before naming anything: legs by hub (the hips first,
a quadruped's chest next), the path from the hips up to the head, the chest on it and the
arms off it.

The hips and the chest come from mirrored pairs in the hierarchy (pairs.py), whatever the
pose; the pose only says whether the chest is level with the hips (a quadruped's: its pair
are front legs) or above them (a biped's arms). A skeleton without mirrored pairs (a single leg) falls back to
branches that reach the ground in the pose (limbs.leg_hubs).
"""
from __future__ import annotations

from .figure import Figure
from .hand import find_hand
from .limbs import Limb, cut_limb, leg_hubs, level_with
from .pairs import find_hips, walk_up
from .torso import body_path, chest_on, head_end


class Body:
    """What was found: legs per hub, the hips, the path up, the chest, the arms."""

    def __init__(self, fig: Figure) -> None:
        self.fig = fig
        self.legs: dict[int, list[Limb]] = {}
        self.path: list[int] = []
        self.chest: int | None = None
        self.arms: list[Limb] = []
        self.leg_joints: set[int] = set()
        self.hand = find_hand(fig)  # a hand alone: fingers, no body
        if self.hand is None:
            found = find_hips(fig)
            if found is not None:
                self._from_pairs(*found)
            else:
                self._from_the_ground()
        self.hips = next(iter(self.legs), None)
        self.front = next(iter(list(self.legs)[1:]), None)  # a quadruped's chest
        self.top = self.hips

    def _limbs(self, hub: int, kids, kind: str) -> list[Limb]:
        return [limb for c in kids if (limb := cut_limb(self.fig, hub, c, kind)) is not None and len(limb.joints) >= 2]

    def _stands(self, hips: int, hub: int) -> bool:
        # Level with the hips: a quadruped's chest (front legs), a centipede's segments. Not
        # "on the ground": a gallop lifts all four paws, a biped's long arms may touch it.
        return level_with(self.fig, hips, hub)

    def _from_pairs(self, hips: int, pair: tuple[int, int]) -> None:
        fig = self.fig
        legs = self._limbs(hips, pair, "leg")
        if not legs:
            return
        self.legs[hips] = legs
        self.leg_joints = set(fig.subtree(pair[0])) | set(fig.subtree(pair[1]))
        path, hubs = walk_up(fig, hips, self.leg_joints)
        for hub, hub_pair in hubs:
            if self._stands(hips, hub):  # a quadruped's front legs, a centipede's
                self.legs[hub] = self._limbs(hub, hub_pair, "leg")
                self.leg_joints |= set(fig.subtree(hub_pair[0])) | set(fig.subtree(hub_pair[1]))
            else:
                self.chest = hub
                self.arms = self._limbs(hub, hub_pair, "arm")
                break
        if path:
            _, self.path = body_path(fig, hips, path[-1])
        if len(self.legs) == 2 and self.chest is None:
            self.chest = list(self.legs)[1]  # the quadruped's chest ends its spine

    def _from_the_ground(self) -> None:
        fig = self.fig
        for h, kids in leg_hubs(fig).items():
            if self.legs and not level_with(fig, next(iter(self.legs)), h):
                continue  # a biped's long arms: found as arms, off the chest, below
            limbs = self._limbs(h, kids, "leg")
            if limbs:
                self.legs[h] = limbs
        if not self.legs:
            return
        hips = next(iter(self.legs))
        self.leg_joints = {j for limbs in self.legs.values() for limb in limbs for j in fig.subtree(limb.line[0])}
        head = head_end(fig, self.leg_joints, hips)
        if head is None or head == hips:
            return
        _, self.path = body_path(fig, hips, head)
        if len(self.legs) == 2:
            self.chest = list(self.legs)[1] if list(self.legs)[1] in self.path else None
        elif len(self.legs) == 1:
            found = chest_on(fig, self.path, self.leg_joints)
            if found is not None:
                self.chest, kids = found
                self.arms = self._limbs(self.chest, kids, "arm")
