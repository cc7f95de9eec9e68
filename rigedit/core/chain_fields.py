"""How a Chain's settings are declared: each a property that reads the stored value and sets
through its validator (`setting`), and a stamp that changes whenever a setting the rig's
compiled frame packs changes (`STAMPS`, read by frame_pack.py through Chain.stamp); every
set goes through the chain's `_changed`, which also makes its frame_inputs again."""
from __future__ import annotations

import itertools
from operator import attrgetter
from typing import Callable

import numpy as np

STAMPS = itertools.count(1)


def setting(name: str, check: Callable, packed: bool, get: Callable | None = None, doc: str | None = None) -> property:
    """A setting read as stored (or by `get`) and set through `check` (ValueError names the
    chain and the field, the old value stays); setting a `packed` one takes a new stamp
    (rig_frame.py)."""
    slot = "_" + name

    def fset(self: "ChainGoal", value) -> None:
        try:
            value = check(value)
        except ValueError as e:
            raise self._fail(name, e) from None
        setattr(self, slot, value)
        self._changed(packed)

    return property(get or attrgetter(slot), fset, doc=doc)


def optional(check: Callable) -> Callable:
    return lambda value: None if value is None else check(value)


def frozen(v: tuple[float, ...]) -> np.ndarray:
    """A read-only array of `v`: what a chain hands out, so no NaN can sneak in."""
    a = np.array(v, dtype=np.float64)
    a.flags.writeable = False
    return a
