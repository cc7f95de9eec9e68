"""Left/right partners by joint name (issue 25's mirror; core/mirror.py adds positions).

The spellings rigs use: Left/Right anywhere (LeftArm, mixamorig:LeftArm, Left_Arm,
left_arm, LEFT_ARM), a lone L/R letter set off by separators (Arm_L, arm_l, Arm.L, hand.r,
L_Arm, "Bip01 L Thigh", UpperArm_L), and an L/R prefix before a capital (CMU's LThumb,
LHipJoint). A swap counts only when the other name is a joint of the same skeleton and
swapping it back gives this one, so a name like "Root" or "Radius" never pairs by accident.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable

_SWAP = {"Left": "Right", "Right": "Left", "left": "right", "right": "left", "LEFT": "RIGHT", "RIGHT": "LEFT",
         "L": "R", "R": "L", "l": "r", "r": "l"}

# Each rule: a pattern whose group "side" is swapped, tried at every place it matches.
_RULES: tuple[re.Pattern, ...] = (
    re.compile(r"(?P<side>Left|Right|left|right|LEFT|RIGHT)"),
    re.compile(r"(?<![A-Za-z])(?P<side>[LRlr])(?![A-Za-z])"),  # Arm_L, arm.l, L_Arm, "Bip01 L Thigh"
    re.compile(r"(?:^|(?<=[:_.\s|-]))(?P<side>[LR])(?=[A-Z])"),  # LThumb, mixamo-less LHipJoint
)


def _swaps(name: str) -> Iterable[str]:
    """Every name made by swapping one side word of `name`, rule by rule."""
    for rule in _RULES:
        for m in rule.finditer(name):
            a, b = m.span("side")
            yield name[:a] + _SWAP[m.group("side")] + name[b:]


def partner_by_name(name: str, known: set[str] | Callable[[str], bool]) -> str | None:
    """The joint named as `name`'s other side, if the skeleton has it; else None."""
    has = known.__contains__ if isinstance(known, set) else known
    for other in _swaps(name):
        if other != name and has(other) and name in _swaps(other):
            return other
    return None


def partners_by_name(names: list[str]) -> list[int | None]:
    """Each joint's partner index by name (None: no name pairs it)."""
    index = {n: i for i, n in enumerate(names)}
    out: list[int | None] = []
    for n in names:
        other = partner_by_name(n, index.keys().__contains__)
        out.append(None if other is None else index[other])
    return out
