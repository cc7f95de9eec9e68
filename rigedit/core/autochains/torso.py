"""The body between the limbs: the head, the path from the hips up to it, the chest where
the arms branch off that path, and tails (long branches off the hips that are not legs).

The head is the highest joint outside the legs, or the highest inside a joint named head
when there is one (so raised arms do not pass for a neck).
"""
from __future__ import annotations

import numpy as np

from .figure import Figure
from .limbs import ARM_REACH
from .pairs import mirrored


def head_end(fig: Figure, legs: set[int], hips: int) -> int | None:
    """The highest joint outside the legs; of joints as high, the one furthest from the hips
    (a level body, a centipede's, runs to its far end)."""
    free = [j for j in range(len(fig)) if j not in legs]
    if not free:
        return None
    named = [j for j in free if fig.hints[j].head]
    if named:
        top = max(named, key=lambda j: (fig.height[j], -j))
        free = [j for j in fig.subtree(top) if j not in legs]
    far = np.linalg.norm(fig.pos[free] - fig.pos[hips], axis=1)
    return max(zip(free, far), key=lambda jf: (fig.height[jf[0]], jf[1], -jf[0]))[0]


def body_path(fig: Figure, hips: int, head: int) -> tuple[int, list[int]]:
    """The joint where the hips and the head meet (usually the hips), and the path down
    from it to the head, without it: what turns the torso without turning the legs."""
    top = fig.lca(hips, head)
    return top, fig.path_down(top, head)[1:]


def long_branches(fig: Figure, j: int, skip: set[int]) -> list[int]:
    return [c for c in fig.children[j] if c not in skip and fig.reach[c] + fig.bone[c] >= ARM_REACH * fig.tall]


def chest_on(fig: Figure, path: list[int], legs: set[int]) -> tuple[int, list[int]] | None:
    """The first joint on the path with two long branches off it (the arms), and those."""
    on = set(path)
    for j in path:
        arms = long_branches(fig, j, on | legs)
        if len(arms) >= 2:
            return j, sorted(arms, key=lambda c: -(fig.reach[c] + fig.bone[c]))[:2]
    return None


def spine_and_head(fig: Figure, path: list[int], chest: int | None) -> tuple[list[int], list[int]]:
    """The spine (up to the chest and the neck's first bone) and the neck and head above it.

    The head chain starts where the spine ends (sharing that joint: the spine moves it, the
    head chain turns it), or at the chest's child when the neck bone has no length.
    """
    if chest is None or chest not in path:
        return fig.trimmed(path), []
    k = path.index(chest)
    spine = path[: k + 1]
    rest = path[k + 1:]
    if rest and fig.bone[rest[0]] > fig.tiny:
        spine.append(rest[0])
    head = fig.trimmed(rest)
    fan = next((i for i, j in enumerate(head) if len(fig.children[j]) > 1), None)
    if fan is not None:
        head = head[: fan + 1]  # up to the head, not on into one of its eyes or its jaw
    if len(head) < 2:
        head = []
    return spine, head


def tails(fig: Figure, hips: int, skip: set[int]) -> list[list[int]]:
    """Long branches off the hips that are neither legs nor the spine, and have no mirror
    twin beside them (a skirt's bones come in left-right pairs; a tail is one)."""
    out = []
    branches = long_branches(fig, hips, skip)
    for c in branches:
        if any(mirrored(fig, c, d, fig.span, {}) for d in branches if d != c):
            continue
        line = fig.main_line(c)
        cut = next((i for i, j in enumerate(line) if j in skip), len(line))
        line = fig.trimmed(line[:cut])  # not on into a leg further along
        if len(line) >= 2:
            out.append(line)
    return out
