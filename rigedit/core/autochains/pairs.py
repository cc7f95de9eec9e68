"""Mirrored limb pairs from the hierarchy alone: two branches off one joint whose main lines
have the same segments, one for one (each within SAME_BONE of the other). That is how left and
right limbs are built in every rig; it does not depend on the pose (a walk, a jump, a figure
lying down) the way "reaches the ground" does.

The hips are the root-most joint with such a pair (long enough to be limbs, LIMB of the
figure's longest run); walking on from the hips along the longest remaining branch (up
through the hips' parent when the spine hangs there, as Daz's does) leads to the head, and
the joints on the way with a pair of their own are the chest (and a centipede's segments).
"""
from __future__ import annotations

from .figure import Figure
from .limbs import segments

SAME_BONE = 0.2  # mirrored segments differ by less than this fraction (CMU's hips by 6 %)
SLACK = 0.01  # and by this fraction of the longest run (RobotExpressive's shoulders: 18 % of a stub)
LIMB = 0.2  # a limb's run, as a fraction of the figure's longest run from a root


def _segments(fig: Figure, c: int) -> list[float]:
    return [length for _, _, length in segments(fig, fig.main_line(c))]


def _same(fig: Figure, p: float, q: float, span: float) -> bool:
    return abs(p - q) <= SAME_BONE * max(p, q) + SLACK * span


def mirrored(fig: Figure, a: int, b: int, span: float, segs: dict[int, list[float]]) -> bool:
    """The same bone from the hub and the same segments down the main lines (segments: a
    twist joint on one side only, or a zero-length joint, changes nothing)."""
    if not _same(fig, fig.bone[a], fig.bone[b], span):
        return False
    for c in (a, b):
        if c not in segs:
            segs[c] = _segments(fig, c)
    x, y = segs[a], segs[b]
    return len(x) == len(y) and all(_same(fig, p, q, span) for p, q in zip(x, y))


def pair_at(fig: Figure, h: int, skip: set[int] = frozenset()) -> tuple[int, int] | None:
    """The two children of h that mirror each other and are long enough to be limbs (of
    several such pairs, the one reaching furthest).

    Children are tried longest first against the ones about as long after them, so a joint
    with hundreds of limbs costs about one comparison each, not one per pair; a child's
    segments are walked only when it is compared.
    """
    span = fig.span
    kids = sorted((c for c in fig.children[h] if c not in skip and fig.reach[c] >= LIMB * span),
                  key=lambda c: (-fig.reach[c], c))
    segs: dict[int, list[float]] = {}  # only for children compared: a spine running on is not
    for i, a in enumerate(kids):
        for b in kids[i + 1:]:
            if not _same(fig, fig.reach[a], fig.reach[b], span):
                break  # shorter still from here on
            if mirrored(fig, a, b, span, segs):
                return (a, b) if a < b else (b, a)
    return None


def find_hips(fig: Figure) -> tuple[int, tuple[int, int]] | None:
    """The root-most joint with a mirrored pair (ties: the first listed), and the pair."""
    found = [(fig.depth[h], h, p) for h in range(len(fig)) if (p := pair_at(fig, h)) is not None]
    if not found:
        return None
    _, h, p = min(found)
    return h, p


def walk_up(fig: Figure, hips: int, legs: set[int]) -> tuple[list[int], list[tuple[int, tuple[int, int]]]]:
    """The joints from the hips toward the head (hips excluded), and the joints on the way
    with a mirrored pair of their own (the chest, a centipede's segments) with their pair.

    Each step takes the longest branch not yet walked, not a leg and not one of a pair; from
    hips with nothing else below them, the way up through their parent.
    """
    path: list[int] = []
    hubs: list[tuple[int, tuple[int, int]]] = []
    came, j = None, hips
    while True:
        skip = set(legs) | ({came} if came is not None else set())
        if j != hips:
            pair = pair_at(fig, j, skip)
            if pair is not None:
                hubs.append((j, pair))
                skip.update(pair)
        options = [(fig.bone[c] + fig.reach[c], -c, c) for c in fig.children[j] if c not in skip]
        p = fig.parents[j]
        # Up through the hips' parent only when nothing else leaves the hips (Daz): a root's
        # bone to the hips may be the motion's path, long in any frame but the first.
        up = _up_run(fig, j) if j == hips and not options else None
        if up is not None:
            options.append((fig.bone[j] + up, -p, p))
        if not options:
            return path, hubs
        _, _, nxt = max(options)
        came, j = j, nxt
        path.append(j)


def _up_run(fig: Figure, j: int) -> float | None:
    """The longest run from j's parent into a branch beside j (further up if need be); None
    when there is none: a root joint alone above the hips (Bandai's joint_Root at the
    origin) is no way to the head."""
    best, climbed = None, 0.0  # climbed: the bones from j's parent up to the joint p now at
    p = fig.parents[j]
    while p >= 0:  # a loop up the ancestors, not recursion: a skeleton may be thousands deep
        runs = [climbed + fig.bone[c] + fig.reach[c] for c in fig.children[p] if c != j]
        if runs:
            best = max(runs) if best is None else max(best, *runs)
        climbed += fig.bone[p]
        j, p = p, fig.parents[p]
    return best
