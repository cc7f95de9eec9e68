"""Rig.solve's frame in one compiled call (docs/ARCHITECTURE.md, core: one frame evaluation).

The chains are packed once per shape and settings (frame_pack.FrameTables, kept in the
rig's RigState with their last solves as arrays); each frame hands the compiled frame
(ik/frame_kernel.solve_frame) the animated rotations and the frame's goals, poles and
weights, and gets the solved pose, the next warm starts and every chain's report. That
frame calls each solver's own compiled row; there is no second implementation.

What it does not take is solved by rig_eval.py's chain walk in Python, which stays the
one path for: grounded feet's sole turns, a saved solution being shown or placed, a reaching
chain with no limited warm start on its current base (its first solve, a chain without
limits, a follow-clip reaching chain, a base moved by a clip or by a chain above that is not
at rest), a stall retried from the animated pose, and input a solver refuses (the Python
path raises its error). Look-at, two-bone limbs (follow-clip too) and limited FABRIK and
CCD chains on their own warm starts are compiled.
"""
from __future__ import annotations

from operator import attrgetter

import numpy as np

from .frame_pack import FrameTables, follows_clip, tables_key
from .ik.frame_codes import STOP_NO_WARM, input_row
from .rig_state import SettledFrame
from .rig_chain import make
from .skeleton import Pose

# After the compiled frame finds no warm start at one chain two frames running, this many frames
# go straight to Python before it is tried again: a clip moving a FABRIK chain's base hands
# back every frame.
RETRY_AFTER = 8

_INPUTS = attrgetter("frame_inputs")
_kernel = None


def compiled_frame(rig, anim, placed: dict, report) -> dict | None:
    """The frame solved in one compiled call, or None (nothing changed) when rig_eval's
    Python walk must take it; `report` makes a ChainReport. A frame whose inputs (the
    tables, the animated frame, the goals, poles and weights) are those of the last one,
    which left every chain final, returns that one's reports at once (as rig_eval does)."""
    cache = rig.solve_state
    if cache.skip > 0:
        cache.skip -= 1
        return None
    if anim.soles:  # (only a rig with a ground has soles to turn)
        return None
    # The chains as the chains keep them for the frame (Rig.frame_board, written by their
    # setters): their stamps, which the tables are checked by, and their goals, poles and
    # weights as the kernel's input rows, packed (frame_codes.input_row): `flat`.
    board = rig.frame_board
    stamps = board.stamps  # the board's own list: compared here, copied by tables_key
    if placed:
        flat = _placed_rows(list(map(_INPUTS, rig.chains_by_name.values())), placed)
    else:
        flat = bytes(board.rows)
    tables = cache.tables
    # The stamps as the tables had them: the same chains in the same order, settings unchanged.
    if tables is None or tables.key[2] != stamps or tables.key[0] != follows_clip(rig):
        key = tables_key(rig, stamps)
        if tables is None or tables.key != key:
            offsets = {name: [anim.trans[j] for j in plan.idx] for name, plan in rig.plans.items()}
            tables = cache.tables = FrameTables(rig, key, offsets)
    settled = cache.settled
    # The same tables (so the same chains and settings), animated frame and goals as a
    # frame that left every chain final: its reports, at once.
    if settled is not None and settled.key[0] is tables and settled.key[1] is anim and settled.key[2] == flat:
        return cache.report_idle()
    if not tables.ok:
        return None
    packed = cache.frame
    if packed is None or packed.tables is not tables:
        packed = cache.packed(tables)
        if packed is None:
            return None
    tables.input_bytes[:] = flat  # (FrameTables.input_bytes says why)
    got = cache.anim_rot
    if got is None or got[0] is not anim:
        got = _animated(cache, anim)
    rot, trans = got[1].copy(), got[2]
    stopped = (_kernel or _load()).solve_frame(
        tables.table, tables.floats, tables.inputs, rot, anim.translations, packed.state, packed.slots, tables.out
    )
    if stopped >= 0:
        # No warm start at one chain once is often a first solve, which the Python walk makes
        # one for; at the same chain twice running, its base moves with the clip: wait.
        c, why = divmod(stopped, 2)
        repeated = why == STOP_NO_WARM and c == cache.stopped
        cache.skip, cache.stopped = (RETRY_AFTER if repeated else 0), (c if why == STOP_NO_WARM else -1)
        return None
    cache.stopped = -1
    packed.ahead = True
    reports = {}
    settled = True
    out, errors = tables.out, tables.errors_row.unpack_from
    numbers = iter(tables.numbers_row.unpack_from(out))  # four a chain: zip takes them in turn
    for (name, at), error, count, reached, final in zip(tables.error_rows, numbers, numbers, numbers, numbers):
        if final == 0.0:
            settled = False
        if count:
            count = int(count)
            reports[name] = report(name, error, count, reached != 0.0, errors(out, at)[:count])
        else:
            reports[name] = report(name, error, 0, reached != 0.0)
    if cache.outputs_key is not None:
        cache.outputs, cache.outputs_key = {}, None  # the Python walk's records: it starts afresh
    cache.show(Pose(rot, trans))
    cache.settled = make(SettledFrame, ((tables, anim, flat), tables.names, reports)) if settled else None
    return reports


def _placed_rows(ins: list, placed: dict) -> bytes:
    """The frame's input rows where grounded feet and follow-clip goals stand in for
    some chains' own (rig_goals.placed_goals)."""
    rows = []
    for _, name, row, _, weight in ins:
        got = placed.get(name)
        rows.append(row if got is None else input_row(got[0], got[1], weight))
    return b"".join(rows)


def _animated(cache, anim) -> tuple:
    """(anim, its rotations as an array, a copy of its translations): the kernel writes the
    frame into a copy of the rotations; every solved pose on that frame shares the
    translations (Rig.pose hands out copies; nothing writes a solved pose in place)."""
    rot = np.array(anim.rot, dtype=np.float64).reshape(-1, 4)
    got = cache.anim_rot = (anim, rot, anim.translations.copy())
    return got


def _load():
    global _kernel
    from .ik import frame_kernel  # numba's import waits for the first solve (as rig_limb's)

    _kernel = frame_kernel
    return _kernel
