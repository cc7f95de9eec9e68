"""Rig.solve's frame in one compiled call (docs/ARCHITECTURE.md, core: one frame evaluation).

The chains are packed once per shape and settings (frame_pack.FrameTables, kept in the
rig's RigState with their last solves as arrays); each frame hands the compiled frame
(ik/frame_kernel.solve_frame) the animated rotations and the frame's goals, poles and
weights, and gets the solved pose, the next warm starts and every chain's report. That
frame calls each solver's own compiled row; there is no second implementation.

What it does not take is solved by rig_eval.py's chain walk in Python: a saved solution
being shown or placed (Rig.restore_state), and input a solver refuses (the Python path
raises its error). Every chain of every solver is compiled otherwise: look-at, two-bone
limbs, FABRIK and CCD, limited or not, following the clip or not, on their own warm starts
or cold (ik/frame_cold.py), stalls retried (ik/frame_reach.py), grounded feet's soles.
"""
from __future__ import annotations

import numpy as np

from .frame_pack import FrameTables, follows_clip, tables_key
from .ik.frame_codes import input_row
from .rig_state import SettledFrame
from .rig_chain import make
from .skeleton import Pose

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
    # The chains as the chains keep them for the frame (Rig.frame_board, written by their
    # setters): their stamps, which the tables are checked by, and their goals, poles and
    # weights as the kernel's input rows, packed (frame_codes.input_row): `flat`.
    board = rig.frame_board
    stamps = board.stamps  # the board's own list: compared here, copied by tables_key
    soles = anim.soles
    flat = frame_rows(rig, placed, soles) if placed or soles else bytes(board.rows)
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
        return None  # input a solver refuses: the Python walk raises its error (nothing kept)
    packed.ahead = True
    reports = {}
    settled = True
    out, errors = tables.out, tables.errors_rows
    numbers = iter(tables.numbers_row.unpack_from(out))  # four a chain: zip takes them in turn
    for (name, at), error, count, reached, final in zip(tables.error_rows, numbers, numbers, numbers, numbers):
        if final == 0.0:
            settled = False
        if count:
            count = int(count)
            reports[name] = report(name, error, count, reached != 0.0, errors[count](out, at))
        else:
            reports[name] = report(name, error, 0, reached != 0.0)
    if cache.outputs_key is not None:
        cache.outputs, cache.outputs_key = {}, None  # the Python walk's records: it starts afresh
    cache.show(Pose(rot, trans))
    cache.settled = make(SettledFrame, ((tables, anim, flat), tables.names, reports)) if settled else None
    return reports


def frame_rows(rig, placed: dict, soles: dict | None = None) -> bytes:
    """The frame's input rows (the board's), where grounded feet and follow-clip goals
    stand in for some chains' own (rig_goals.placed_goals) and grounded feet carry their
    soles (rig_ground.py: the tip's world rotation on the ground)."""
    if not placed and not soles:
        return bytes(rig.frame_board.rows)
    rows, kept = [], rig.solve_state.placed_rows
    for ch in rig.chains_by_name.values():
        _, name, row, pole, weight = ch.frame_inputs
        got = placed.get(name)
        sole = soles.get(name) if soles else None
        if got is not None or sole is not None:
            goal, pole = (ch.own_target, pole) if got is None else got
            # The same goal, pole and sole objects (an animated frame's, kept while it is
            # the same) and weight: the row packed for them before (a struct pack a chain).
            last = kept.get(name)
            if last is not None and last[0] is goal and last[1] is pole and last[2] == weight and last[3] is sole:
                row = last[4]
            else:
                row = input_row(goal, pole, weight, sole)
                kept[name] = (goal, pole, weight, sole, row)
        rows.append(row)
    return b"".join(rows)


def _animated(cache, anim) -> tuple:
    """(anim, its rotations as an array, a copy of its translations): the kernel writes the
    frame into a copy of the rotations; every solved pose on that frame shares the
    translations (Rig.pose hands out copies; nothing writes a solved pose in place)."""
    rot = np.array(anim.rot, dtype=np.float64).reshape(-1, 4)
    got = cache.anim_rot = (anim, rot, anim.translations.copy())
    return got


def compiled_kernel():
    """ik/frame_kernel.py, imported on first use."""
    return _kernel or _load()


def _load():
    global _kernel
    from .ik import frame_kernel  # numba's import waits for the first solve (as rig_limb's)

    _kernel = frame_kernel
    return _kernel
