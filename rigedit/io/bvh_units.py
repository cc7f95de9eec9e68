"""Guessing what a BVH file's numbers mean: its length unit and its up axis.

BVH files carry neither. Mocap files in the wild use centimetres, inches, metres, millimetres
and the CMU database's own unit (ASF "length 0.45": 1/0.45 inch = 5.644 cm). We measure the
skeleton in file units and pick the unit that makes it closest to a person's size (or, for a
hand alone, a hand's: core/autochains/hand.py says what one is); the answer comes with a
sentence saying why, so a wrong guess is easy to spot and override.

The unit is a property of the skeleton, so it is measured on the skeleton alone (its OFFSETs),
never on the motion: the same skeleton must come in at the same size whatever it does, or a
clip baked from a walk would re-import at another scale than the walk it came from.
"""
from __future__ import annotations

import numpy as np

from rigedit.core.autochains import hand_alone
from rigedit.core.autochains.hand import hand_of
from rigedit.core.skeleton import Pose, Skeleton

CMU_UNIT = 2.54 / 0.45 / 100.0  # metres: ASF skeletons are written at 0.45 units per inch

UNITS = {
    "m": 1.0,
    "cmu": CMU_UNIT,
    "in": 0.0254,
    "cm": 0.01,
    "mm": 0.001,
}
UNIT_NAMES = {
    "m": "metres",
    "cmu": "CMU skeleton units (5.64 cm)",
    "in": "inches",
    "cm": "centimetres",
    "mm": "millimetres",
}
# A person is about this tall; the unit whose reading of the figure lands nearest (by ratio)
# wins. Neighbouring units differ by 2.2x or more, so a +-40% error in the height estimate
# (long arms, a short spine, a tail) still picks the right one.
TYPICAL_HEIGHT_M = 1.7
# The skeleton's longest chain of bones (hand to foot through the spine: the tree's diameter,
# summed over bone lengths) is 1.3-1.45 times a person's height: 2.0-2.5 m in the CMU, Bandai
# and pybvh sample skeletons of people about 1.5-1.8 m tall. It needs no pose and no up axis.
SPAN_PER_HEIGHT = 1.3
# A hand alone (a data glove's take) is measured from the wrist to its longest finger's tip
# along the bones: 0.17-0.19 m on adults (the middle finger with its metacarpal).
TYPICAL_HAND_M = 0.18


def parse_scale(scale: float | str) -> tuple[float, str]:
    """A user-given scale (metres per file unit, or a unit name) and the sentence reporting it."""
    if isinstance(scale, str):
        key = scale.strip().lower()
        if key not in UNITS:
            raise ValueError(f"unknown unit {scale!r}; use a number (metres per file unit) or one of {sorted(UNITS)}")
        return UNITS[key], f"given: {UNIT_NAMES[key]}"
    value = float(scale)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"scale must be a positive number of metres per file unit, got {scale!r}")
    return value, f"given: {value:g} m per file unit"


def skeleton_span(parents, offsets) -> float:
    """The longest path between two joints, summing bone lengths (file units).

    Bone lengths are the offsets' lengths, so this is the same in every pose and for every
    motion; zero-length bones (CMU's hip and shoulder joints) add nothing.
    """
    n = len(parents)
    if n == 0:
        return 0.0
    o = np.asarray(offsets, dtype=np.float64).reshape(-1, 3)
    length = np.hypot(np.hypot(o[:, 0], o[:, 1]), o[:, 2])  # no overflow for a file's extreme values
    kids: dict[int, list[int]] = {}
    for i, p in enumerate(parents):
        kids.setdefault(int(p), []).append(i)
    order, stack = [], list(kids.get(-1, []))
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(kids.get(i, []))
    down = np.zeros(n)  # the longest way down from each joint
    best = 0.0
    for i in reversed(order):
        ways = sorted((down[c] + length[c] for c in kids.get(i, [])), reverse=True) + [0.0, 0.0]
        down[i] = ways[0]
        best = max(best, ways[0] + ways[1])
    return float(best)


def guess_skeleton_scale(parents, offsets) -> tuple[float, str]:
    """Metres per file unit, from the skeleton's bone lengths alone (its parents and
    offsets, in file units), and why."""
    hand = hand_length(parents, offsets)
    if hand is not None:
        best = _nearest_unit(hand, TYPICAL_HAND_M)
        return UNITS[best], (f"a hand alone: its longest finger is {hand:.4g} file units from the wrist; read as "
                             f"{UNIT_NAMES[best]} that is {hand * UNITS[best]:.3f} m, the closest of {', '.join(UNITS)} "
                             f"to a {TYPICAL_HAND_M} m hand")
    span = skeleton_span(parents, offsets)
    if not (np.isfinite(span) and span > 0):
        return 1.0, "the skeleton has no size; assumed metres"
    height = span / SPAN_PER_HEIGHT
    best = _nearest_unit(height, TYPICAL_HEIGHT_M)
    reason = (
        f"the skeleton's longest chain is {span:.4g} file units, a figure about {height:.4g} units tall; "
        f"read as {UNIT_NAMES[best]} that is {height * UNITS[best]:.2f} m, the closest of {', '.join(UNITS)} "
        f"to a {TYPICAL_HEIGHT_M} m person"
    )
    return UNITS[best], reason


def _nearest_unit(size: float, typical_m: float) -> str:
    """The unit reading `size` (file units) closest, by ratio, to `typical_m` metres."""
    return min(UNITS, key=lambda k: abs(np.log(size * UNITS[k] / typical_m)))


def hand_length(parents, offsets) -> float | None:
    """For a hand alone (core/autochains/hand.py, judged on the rest pose the offsets make),
    the bone length from the wrist to its furthest fingertip in file units; else None."""
    found = hand_of(parents)  # the hierarchy first: most skeletons stop here, with no FK
    if found is None:
        return None
    o = np.asarray(offsets, dtype=np.float64).reshape(-1, 3)
    n = len(o)
    skeleton = Skeleton([f"j{i}" for i in range(n)], parents, o, np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)))
    if not hand_alone(skeleton):
        return None
    length = np.hypot(np.hypot(o[:, 0], o[:, 1]), o[:, 2])
    reach = max(float(length[finger].sum()) for finger in found[1])
    return reach if np.isfinite(reach) and reach > 0 else None


# The head must be this much further from the feet along the up axis than along any other
# for the guess to count: a standing figure's ratio is 0.1-0.3.
AMBIGUOUS_UP = 0.5
_UP_WORDS = ("head", "neck")
_DOWN_WORDS = ("foot", "toe", "ankle", "feet")


def guess_up_axis(skeleton: Skeleton, pose: Pose) -> tuple[str, str]:
    """The file's up axis, e.g. "+y" or "+z", from where head and feet joints are, and why."""
    lower = [n.lower() for n in skeleton.names]
    up = [i for i, n in enumerate(lower) if any(w in n for w in _UP_WORDS)]
    down = [i for i, n in enumerate(lower) if any(w in n for w in _DOWN_WORDS)]
    if not up or not down:
        return "+y", "no head and foot joints found by name; assumed the BVH convention, +Y up"
    pos, _ = skeleton.fk_matrices(pose)
    d = pos[up].mean(axis=0) - pos[down].mean(axis=0)
    if not np.linalg.norm(d) > 0:
        return "+y", "head and feet coincide; assumed the BVH convention, +Y up"
    k = int(np.argmax(np.abs(d)))
    axis = ("+" if d[k] > 0 else "-") + "xyz"[k]
    second = np.sort(np.abs(d))[-2]
    if second > AMBIGUOUS_UP * abs(d[k]):
        # Lying, crawling or a quadruped's head ahead of its feet: too unclear to turn the
        # file for. The convention is safer than a wrong turn, and --up overrides.
        return "+y", f"head and feet are as far apart along two axes ({axis} the larger); assumed the BVH convention, +Y up"
    return axis, f"head and neck joints lie along {axis} from the feet"
