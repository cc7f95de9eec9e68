"""What a joint's name hints at: its side, and whether it is a twist (roll) joint or a head.

Names only break ties the shape leaves open (which way a figure faces when nothing in its
pose says so, which child is the head when arms are raised, which joints only twist a
bone); limbs, spine and hips are found from the hierarchy and the geometry (figure.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

SIDE_WORDS = {"left": "left", "l": "left", "right": "right", "r": "right"}
TWIST_WORDS = {"twist", "roll"}
# A limb bone split in numbered parts (MakeHuman's upperarm01, upperarm02): a joint whose stem
# is its parent's and names a limb segment sits part way down one bone. "leg" or "arm" alone is
# not enough: CesiumMan's leg_joint_L_1 .. _3 are hip, knee and ankle.
SEGMENT_STEM = re.compile(r"(upper|lower|up|low|fore)(arm|leg)|forearm|thigh|shin|calf|shldr|humerus|femur|tibia")
HEAD_WORDS = {"head"}


def name_words(name: str) -> list[str]:
    """Lower-case words of a joint name: namespaces dropped, camelCase and separators split."""
    name = name.rsplit(":", 1)[-1]
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)
    return [p.lower() for p in parts]


@dataclass(frozen=True)
class NameHints:
    side: str | None  # "left", "right" or None
    twist: bool  # a joint part way down a bone that only turns it about its length
    head: bool


def hints(name: str) -> NameHints:
    words = name_words(name)
    side = next((SIDE_WORDS[w] for w in words if w in SIDE_WORDS), None)
    return NameHints(side, any(w in TWIST_WORDS for w in words), any(w in HEAD_WORDS for w in words))


def stem(name: str) -> str:
    """The name's words without numbers and side words: upperarm02.L -> upperarm."""
    return "".join(w for w in name_words(name) if not w.isdigit() and w not in SIDE_WORDS)


def splits_bone(parent: str, name: str) -> bool:
    """`name` is a numbered part of the same limb bone as `parent` (it only twists that bone)."""
    s = stem(name)
    return s == stem(parent) and SEGMENT_STEM.fullmatch(s) is not None
