"""Joint limits: the data types shared by the solvers, the rig and the preset format.

A limit belongs to a joint and constrains the bone that leaves it (joint -> next joint in the
chain) relative to the bone that enters it (previous joint -> joint), i.e. "the parent bone".
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HingeLimit:
    """The bone turns only about `axis` (given in the parent bone's frame), within
    [min_deg, max_deg] measured from the parent bone's direction: a knee bends one way."""

    axis: tuple[float, float, float] = (1.0, 0.0, 0.0)
    min_deg: float = 0.0
    max_deg: float = 150.0


@dataclass(frozen=True)
class ConeLimit:
    """The bone stays within `max_deg` of the parent bone's direction (a tail, a spine)."""

    max_deg: float = 30.0


Limit = HingeLimit | ConeLimit
