"""Rig.solve's frame in one compiled call (docs/ARCHITECTURE.md, core: one frame evaluation).

The chains are packed once per shape and settings (frame_pack.FrameTables, kept in the
rig's RigState with their last solves as arrays); each frame hands the compiled frame
(ik/frame_kernel.solve_frame) the animated rotations and the frame's goals, poles and
weights, and gets the solved pose, the next warm starts and every chain's report. That
frame calls each solver's own compiled row; there is no second implementation and no other
path: look-at, two-bone limbs, FABRIK and CCD, limited or not, following the clip or not,
on their own warm starts or cold (ik/frame_cold.py), stalls retried (ik/frame_reach.py),
grounded feet's soles, and saved solutions put back and shown as saved (Rig.restore_state).
Input a solver refuses stops the call with nothing kept, and `refused` raises the error.
"""
from __future__ import annotations

import numpy as np

from .frame_pack import FrameTables, follows_clip, tables_key
from .ik.frame_codes import S_SHOW, STOP_HINGE, STOP_LIMB, STOP_ROOT, STOP_SPAN, input_row
from .ik.two_bone_codes import BAD_EPS, OVERFLOW, TOO_FAR
from .rig_state import SettledFrame
from .rig_chain import make
from .skeleton import Pose

_kernel = None


def compiled_frame(rig, anim, placed: dict, report, show: dict | None = None) -> dict:
    """The frame solved in one compiled call; `report` makes a ChainReport. A frame whose
    inputs (the tables, the animated frame, the goals, poles and weights) are those of the
    last one, which left every chain final, returns that one's reports at once. `show`
    (Rig.restore_state): chain name -> frame_codes.SHOW_*, what this frame does with those
    chains instead of solving them; the next frame finds every base afresh."""
    cache = rig.solve_state
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
    if show is None and settled is not None and settled.key[0] is tables and settled.key[1] is anim and settled.key[2] == flat:
        return cache.report_idle()
    packed = cache.packed(tables)
    if show:
        for c, name in enumerate(tables.names):
            packed.state[c, S_SHOW] = show.get(name, 0.0)
    tables.input_bytes[:] = flat  # (FrameTables.input_bytes says why)
    got = cache.anim_rot
    if got is None or got[0] is not anim:
        got = _animated(cache, anim)
    rot, trans = got[1].copy(), got[2]
    stopped = (_kernel or _load()).solve_frame(
        tables.table, tables.floats, tables.inputs, rot, anim.translations, packed.state, packed.slots, tables.out
    )
    if stopped >= 0:
        packed.state[:, S_SHOW] = 0.0
        raise refused(rig, tables.names, stopped)
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
    cache.show(Pose(rot, trans))
    settled = settled and show is None
    cache.settled = make(SettledFrame, ((tables, anim, flat), tables.names, reports)) if settled else None
    return reports


def refused(rig, names: tuple, stopped: int) -> ValueError:
    """The error for the chain the compiled frame stopped at (`stopped`: chain * STOP_SPAN +
    why, frame_codes.STOP_*), naming the chain, the joint where there is one, and the problem."""
    c, why = divmod(stopped, STOP_SPAN)
    name = names[c]
    if why >= STOP_HINGE:
        k = why - STOP_HINGE
        joint = rig.chain(name).joints[k]
        problem = f"the hinge on joint {k} ({joint!r}) has its axis parallel to the parent bone, leaving no plane to bend in"
    elif why == STOP_ROOT:
        problem = "a limit on the chain's root joint needs the bone entering it, which has zero length"
    elif why == STOP_LIMB + OVERFLOW:
        problem = f"its limb or target is not finite or lies farther than {TOO_FAR:g} m"
    elif why == STOP_LIMB + BAD_EPS:
        problem = "its tolerance is not positive"
    else:
        problem = f"its solver refused the input (code {why})"
    return ValueError(f"chain {name!r} cannot be solved: {problem}")


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
    from .ik import frame_kernel  # numba's import waits for the first solve

    _kernel = frame_kernel
    return _kernel
