"""Where a chain aims, a part of Chain (a mixin, as the Rig's are): its own target and pole,
or, with follow_clip on in a rig with a clip, the clip's animated tip plus the offset curve
(`offset_keys`) and a pole placed from the animated bend (clip_goals.ClipGoals, which the
rig gives the chain when it joins it). The fields are Chain's (chain.py's __slots__)."""
from __future__ import annotations

from operator import attrgetter

import numpy as np

from .chain_checks import check_vec3
from .chain_fields import frozen, optional, setting
from .clip_goals import check_offset_keys, keyed_offset, offset_curve


class ChainGoal:
    __slots__ = ()

    @property
    def target(self) -> np.ndarray:
        """The world goal at the rig's time: for a chain following the clip, the animated
        tip plus the offset curve there; setting it then keys the offset at that time."""
        return frozen(self._goal())

    @target.setter
    def target(self, value) -> None:
        try:
            value = check_vec3(value)
        except ValueError as e:
            raise self._fail("target", e) from None
        if self._following():
            self.offset_keys = self.keys_for_goal(value)
        else:
            self._target = value
            self._changed(False)

    @property
    def following(self) -> bool:
        """Whether the goal follows a clip now: follow_clip on, in a rig with a clip."""
        return self._following()

    def _following(self) -> bool:
        return self._follow_clip and self._goals is not None and self._kind.reaches and self._goals.active(self)

    def _goal(self) -> tuple:
        return self._goals.goal(self) if self._following() else self._target

    def _pole_now(self):
        return self._goals.pole(self) if self._following() and self._pole is not None else self._pole

    def keys_for_goal(self, goal) -> tuple:
        """The offset keys that put this follow-clip chain's goal at `goal` (world, metres)
        at the rig's current time: an offset keyed there, eased in and out."""
        if not self._following():
            raise ValueError(f"chain {self._name!r}: does not follow a clip (follow_clip is off, or it is in no rig)")
        g = self._goals
        offset = np.asarray(check_vec3(goal)) - g.tip(self)
        return keyed_offset(self._offset_keys, g.time(), offset, g.frame_rate())

    @property
    def offset_keys(self) -> tuple:
        return self._offset_keys

    @offset_keys.setter
    def offset_keys(self, value) -> None:
        try:
            keys = check_offset_keys(value)
        except ValueError as e:
            raise self._fail("offset_keys", e) from None
        self._offset_keys, self._offsets = keys, offset_curve(keys)

    def _shown_pole(self) -> np.ndarray | None:
        pole = self._pole_now()
        return None if pole is None else frozen(pole)

    pole = setting("pole", optional(check_vec3), packed=False, get=_shown_pole)

    offsets = property(attrgetter("_offsets"), doc="The offset keys as a Curve (the goal minus the animated tip, over time).")
