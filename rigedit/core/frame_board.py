"""What the rig's compiled frame reads of its chains every frame, kept in one place as the
chains change (docs/ARCHITECTURE.md, core: one frame evaluation): each chain's stamp
(Chain.stamp) and its goal, pole and weight as the kernel's input row, packed
(ik/frame_codes.input_row), in solve order. A chain in a rig writes its own entry from its
setters (Chain._changed); the rig's RigChains seats every chain again when the order
changes. A frame then reads two values instead of walking the chains (rig_frame.py).
"""
from __future__ import annotations

from .ik.frame_codes import I_SIZE

ROW_BYTES = 8 * I_SIZE  # a row of float64s


class FrameBoard:
    """`stamps` (a list, one a chain, changed in place: copy it to keep it) and `rows`
    (a bytearray of every chain's packed input row, in order)."""

    __slots__ = ("stamps", "rows")

    def __init__(self, count: int) -> None:
        self.stamps: list[int] = [0] * count
        self.rows = bytearray(ROW_BYTES * count)

    def put(self, i: int, stamp: int, row: bytes) -> None:
        """Chain `i`'s entry (its setters call this through Chain._changed)."""
        self.stamps[i] = stamp
        self.rows[ROW_BYTES * i:ROW_BYTES * (i + 1)] = row
