"""Limbs from the shape of the hierarchy: where legs branch, and where along a branch the
limb's own bones are.

- Legs come in mirrored pairs (pairs.py). A skeleton with none (a single leg) falls back
  to leg_hubs: a leg is then a branch that runs a long way down to the ground, at least
  LEG_REACH of the figure's height below the joint it hangs from and ending within FOOT_BAND
  of the lowest point, or mirroring such a leg (a lifted foot).
- Along a limb's main line (the longest run, figure.main_line) bones are grouped into
  segments: a zero-length bone or a twist joint (named so) does not end one. The limb's
  end (hand, foot, paw) is the end of its last long segment, one at least half as long as
  the longest: fingers and toes are shorter than that, a paw's bone is not.
- An arm ends at the hand where its fingers branch (hand_on), when they do; else as above.
- An arm is the last two segments up to its end: a collar bone before them is not the arm's
  (the two-bone solver bends the shoulder and the elbow). A leg is the whole run of long
  segments up to its end: two for a person (thigh, shin), three for a dog's hind leg down to
  the paw (a FABRIK chain).
- A limb with twist joints in it (Daz's ThighTwist, ShldrTwist, ForearmTwist) is still two
  segments, but a FABRIK chain over every joint: a chain is a connected run of joints and the
  two-bone solver takes exactly three, so a two-bone chain over the bend joints alone would
  have to skip the twist joints between them, which a chain cannot; FABRIK keeps each bone's
  length and reaches the same target (its pole and the twist joints' own turns are the
  animator's to limit).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .figure import UP, Figure

LEG_REACH = 0.25  # a leg's run below its hub, and its drop, as a fraction of the figure's height
FOOT_BAND = 0.15  # how far above the lowest point a foot may be (a walk lifts one foot)
LONG_SEGMENT = 0.5  # a limb's segment is long when at least this fraction of its longest
ARM_REACH = 0.15  # an arm's run from the chest, as a fraction of the figure's height
TWIN = 0.25  # a leg's twin reaches as far as it, within this fraction
HAND = 0.5  # the fingers below a hand reach less than this fraction of the way down to it


@dataclass(frozen=True)
class Limb:
    hub: int  # the joint it branches from (hips, chest)
    joints: tuple[int, ...]  # the chain, root to tip
    line: tuple[int, ...]  # the whole main line from the hub's child down to a leaf
    kind: str  # "leg" (reaches the ground) or "arm"


def leg_hubs(fig: Figure) -> dict[int, list[int]]:
    """Joints where legs branch -> the children the legs start at, root-most hub first.

    Joints with two legs or more; failing that (a single leg in the file), the top joint with one.
    A branch holding another hub (the spine, carrying a quadruped's front legs) is not a leg.
    """
    def leggy(h: int, c: int) -> bool:
        return (
            fig.low[c] <= fig.ground + FOOT_BAND * fig.tall
            and fig.height[h] - fig.low[c] >= LEG_REACH * fig.tall
            and fig.reach[c] >= LEG_REACH * fig.tall
        )

    candidates = {h: [c for c in kids if leggy(h, c)] for h, kids in enumerate(fig.children)}
    for h, legs in candidates.items():
        if legs:  # a walk lifts a foot higher than FOOT_BAND: its twin is a leg all the same
            legs.extend(c for c in fig.children[h] if c not in legs and any(_twin(fig, h, c, leg) for leg in legs))
    hubs = {h: cs for h, cs in candidates.items() if len(cs) >= 2}
    holds_hub = set()
    for h in hubs:
        holds_hub.update(fig.ancestors(h))
    simple = {h: [c for c in cs if c not in holds_hub] for h, cs in hubs.items()}
    simple = {h: cs for h, cs in simple.items() if len(cs) >= 2}
    if not simple:
        # One leg: every joint down it has one leggy child; the leg hangs from the top one.
        ones = [h for h, cs in candidates.items() if cs]
        simple = {h: candidates[h] for h in ones if not any(a in candidates and candidates[a] for a in fig.ancestors(h)[1:])}
    return dict(sorted(simple.items(), key=lambda kv: (fig.depth[kv[0]], kv[0])))


def _twin(fig: Figure, h: int, c: int, leg: int) -> bool:
    """c mirrors the leg at `leg`: as long (within TWIN), going down as far as a leg must,
    and starting off to the other side of the hub."""
    if not (fig.height[h] - fig.low[c] >= LEG_REACH * fig.tall and abs(fig.reach[c] - fig.reach[leg]) <= TWIN * fig.reach[leg]):
        return False
    a, b = (fig.horizontal(fig.pos[_off_hub(fig, h, k)] - fig.pos[h]) for k in (c, leg))
    return float(a @ b) < 0.0


def _off_hub(fig: Figure, h: int, c: int) -> int:
    """The first joint down c's main line that is not on the hub's spot (CMU's LHipJoint is)."""
    for j in fig.main_line(c):
        if np.linalg.norm(fig.pos[j] - fig.pos[h]) > fig.tiny:
            return j
    return c


def level_with(fig: Figure, hips: int, hub: int) -> bool:
    """A second hub of legs is a quadruped's chest only when the body runs level from the
    hips to it; straight above the hips it is a biped's chest with long arms (RobotExpressive's
    hang to the floor's level in some frames)."""
    d = fig.pos[hub] - fig.pos[hips]
    return float(np.linalg.norm(fig.horizontal(d))) >= abs(float(d @ UP))


def segments(fig: Figure, line: list[int]) -> list[tuple[int, int, float]]:
    """(start, end, length) of each segment, as positions in `line`."""
    out: list[tuple[int, int, float]] = []
    start, length = None, 0.0
    for i in range(1, len(line)):
        b = fig.bone[line[i]]
        if b <= fig.tiny:
            continue
        if start is None:
            start = i - 1
        length += b
        if fig.midbone[line[i]] and i < len(line) - 1:
            continue  # a twist joint turns the bone about itself: the segment goes on
        out.append((start, i, length))
        start, length = None, 0.0
    return out


def hand_on(fig: Figure, line: list[int]) -> int | None:
    """Where along an arm's line the fingers branch: the first joint with two branches or more
    below it that reach less than HAND of the way from the line's start down to it (fingers,
    not a twist joint beside the forearm); None when no joint fans out so (a mitten, an End
    Site, a robot's long palms)."""
    down = 0.0
    for i in range(1, len(line)):
        j = line[i]
        down += fig.bone[j]
        kids = [c for c in fig.children[j] if fig.bone[c] + fig.reach[c] > fig.tiny]
        if i >= 2 and len(kids) >= 2 and fig.reach[j] < HAND * down:
            return i
    return None


def cut_limb(fig: Figure, hub: int, child: int, kind: str) -> Limb | None:
    line = fig.main_line(child)
    segs = segments(fig, line)
    if not segs:
        return None
    longest = max(s[2] for s in segs)
    long = [s[2] >= LONG_SEGMENT * longest for s in segs]
    end = max(i for i, ok in enumerate(long) if ok)
    hand = hand_on(fig, line) if kind == "arm" else None
    if hand is not None and segs[0][1] < hand:
        # The arm ends at the hand, whatever the hand's length: a cartoon's hand may be as
        # long as its forearm, and the fingers then pass for the limb's last long segment.
        end = max(k for k, s in enumerate(segs) if s[1] <= hand)
        long[end] = True
    first = end
    if kind == "leg":
        while first > 0 and long[first - 1]:
            first -= 1
    if first == end and end > 0:
        first = end - 1  # the bone above the limb's one long segment bends with it
    joints = tuple(line[segs[first][0]: segs[end][1] + 1])
    return Limb(hub, joints, tuple(line), kind)
