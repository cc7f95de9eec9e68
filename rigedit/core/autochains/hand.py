"""A hand alone (a data glove's take, a hand rig): one joint with four to six fingers
hanging from it, each an unbranched run, pointing one way, and nothing else in the skeleton
but the joints above that wrist (a forearm). Its fingers get chains of their own; it has no
legs, no spine and no tail, however mirrored two fingers look. A creature whose legs leave one
body joint has them all round it (their directions cancel), and more of them.
"""
from __future__ import annotations

import numpy as np

from .figure import Figure
from .names import name_words

FINGERS = (4, 6)  # a hand has this many fingers (a thumb may be missing, a glove adds a sensor)
FAN = 0.6  # the mean of the fingers' unit directions from the wrist is at least this long,
ROW = 0.5  # and they spread in one row (across the palm), not all round an axis: the second
# largest spread is at most this fraction of the largest (a fan of 90 degrees: 0.05; legs
# round a body: 1). Fingers all but parallel (the mean longer than PARALLEL) pass as they are.
PARALLEL = 0.95
FINGER_WORDS = {"thumb": "thumb", "index": "index", "middle": "middle", "mid": "middle", "ring": "ring",
                "pinky": "pinky", "pinkie": "pinky", "little": "pinky"}


def hand_of(parents) -> tuple[int, list[list[int]]] | None:
    """From the hierarchy alone (no pose, no lengths): the wrist and its fingers, each root to
    tip, or None when the skeleton is not a hand alone."""
    parents = [int(p) for p in parents]
    children: list[list[int]] = [[] for _ in parents]
    for j, p in enumerate(parents):
        if p >= 0:
            children[p].append(j)
    roots = [j for j, p in enumerate(parents) if p < 0]
    if len(roots) != 1:
        return None
    wrist = roots[0]
    while len(children[wrist]) == 1:  # down the forearm to the first joint with several
        wrist = children[wrist][0]
    fingers = []
    for c in children[wrist]:
        run = [c]
        while len(children[run[-1]]) == 1:
            run.append(children[run[-1]][0])
        if children[run[-1]]:
            return None  # a finger does not branch
        fingers.append(run)
    return (wrist, fingers) if FINGERS[0] <= len(fingers) <= FINGERS[1] else None


def find_hand(fig: Figure) -> tuple[int, list[list[int]]] | None:
    """The wrist and its fingers as chains (End Sites of no length trimmed), or None."""
    found = hand_of(fig.parents)
    if found is None:
        return None
    wrist, fingers = found
    ways = [fig.pos[f[-1]] - fig.pos[wrist] for f in fingers]
    units = [w / n for w in ways if (n := float(np.linalg.norm(w))) > fig.tiny]
    if not units or not _one_way(np.array(units)):
        return None
    return wrist, [c for c in (fig.trimmed(f) for f in fingers) if len(c) >= 2]


def finger_name(fig: Figure, finger: list[int], k: int) -> str:
    """thumb, index ... from the finger's joint names; else finger_<k> in the file's order."""
    for j in finger:
        for w in name_words(fig.names[j]):
            if w in FINGER_WORDS:
                return FINGER_WORDS[w]
    return f"finger_{k}"


def _one_way(units: np.ndarray) -> bool:
    """Unit directions that point one way, spread in a row as fingers do, not round an axis."""
    mean = units.mean(axis=0)
    along = float(np.linalg.norm(mean))
    if along >= PARALLEL:
        return True
    spread = np.sort(np.linalg.eigvalsh(np.cov((units - mean).T, bias=True)))[::-1]
    return along >= FAN and spread[1] <= ROW * spread[0]
