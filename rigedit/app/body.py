"""The body (the rig's first root joint) as the body handle moves it, and where the handle
sits (the hips: BodyJoint).

Its position is the root's translation: the skeleton's rest offset and, under a clip, every
frame of the clip's root path shifted alike, so saving keeps it. The document moves the body
of its rig, and the solver thread moves its own copy's body to the same BodyState carried
with the goals (a fresh rig copy per mouse move would cost more than the solve).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rigedit import Rig
from rigedit.core.autochains import find_hips


@dataclass(frozen=True, eq=False)
class BodyState:
    """The root's rest offset (3,) and, under a clip, its path (frames, 3). Never changed in
    place once made: the solver thread reads the same object the GUI made."""

    offset: np.ndarray
    path: np.ndarray | None

    def same_as(self, other: "BodyState") -> bool:
        a, b = self.path, other.path
        same_path = (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))
        return same_path and np.array_equal(self.offset, other.offset)


def root_of(rig: Rig) -> int | None:
    """The first root, as the gait takes it (rig_gait.body_transform)."""
    roots = [j for j, p in enumerate(rig.skeleton.parents) if p < 0]
    return roots[0] if roots else None


class BodyJoint:
    """Where the body handle sits: the hips (the joint the legs branch from, as the chain
    proposer finds them), or the first root when there are none or they hang from another
    root. A BVH's root is often a zero joint on the floor (Bandai's `joint_Root`), far from
    the figure. Found once per skeleton: the search runs FK and walks the hierarchy."""

    def __init__(self) -> None:
        self._for: tuple[object, int | None] | None = None

    def of(self, rig: Rig) -> int | None:
        sk = rig.skeleton
        if self._for is None or self._for[0] is not sk:
            root = root_of(rig)
            name = find_hips(sk, rig.animated_pose()) if root is not None else None
            j = sk.index(name) if name is not None else root
            if j is not None and root is not None and not _below(sk.parents, j, root):
                j = root  # the handle moves the first root: it must sit on something that follows
            self._for = (sk, j)
        return self._for[1]


def _below(parents, j: int, top: int) -> bool:
    while j >= 0:
        if j == top:
            return True
        j = int(parents[j])
    return False


def body_state(rig: Rig) -> BodyState:
    """What holds the body's position now, copied."""
    j = root_of(rig)
    clip = rig.clip
    return BodyState(rig.skeleton.offsets[j].copy(), None if clip is None else clip.translations[:, j].copy())


def apply_body(rig: Rig, state: BodyState) -> None:
    """Put `rig`'s body where `state` says (a path for another clip's length is ignored)."""
    j = root_of(rig)
    offsets = rig.skeleton.offsets.copy()
    offsets[j] = state.offset
    rig.skeleton.offsets = offsets
    clip = rig.clip
    if clip is not None and state.path is not None and len(state.path) == clip.n_frames:
        clip.translations[:, j] = state.path
    # Re-assigning the clip (even None, or the same one) is how the rig is told that the
    # animated pose changed under it; it would also forget that the clip is the preset's own.
    own = getattr(rig, "clip_in_preset", False)
    rig.clip = clip
    rig.clip_in_preset = own
