"""Rig.solve's frame in one compiled call (docs/ARCHITECTURE.md, core: one frame evaluation).

The chains are packed once per shape and settings (frame_pack.FrameTables, kept in the
rig's WarmCache with their last solves as arrays); each frame hands the compiled frame
(ik/frame_kernel.solve_frame) the animated rotations and the frame's goals, poles and
weights, and gets the solved pose, the next warm starts and every chain's report. That
frame calls each solver's own compiled row; there is no second implementation.

What it does not take is solved by rig_eval.py's chain walk in Python, which stays the
one path for: a chain whose method has no compiled row (look-at), grounded feet's sole
turns, a saved solution being shown or placed, a reaching chain with no limited warm start
on its current base (its first solve, an unlimited chain, a base moved by a clip or by
the chain above it), a follow-clip reaching chain, a stall retried from the animated pose,
and input a solver refuses (the Python path raises its error).
"""
from __future__ import annotations

import numpy as np

from .frame_pack import FrameTables, tables_key
from .ik.frame_codes import I_SIZE
from .rig_cache import SettledFrame
from .rig_chain import make
from .skeleton import Pose

# After the compiled frame hands a frame back, this many frames go straight to Python
# before it is tried again: a clip moving a FABRIK chain's base hands back every frame.
RETRY_AFTER = 8

_NO_POLE = (0.0, 0.0, 0.0)
_kernel = None


def compiled_frame(rig, anim, placed: dict, report, frame_key) -> dict | None:
    """The frame solved in one compiled call, or None (nothing changed) when rig_eval's
    Python walk must take it. `report` makes a ChainReport; `frame_key` the settled key."""
    cache = rig._cache
    if cache.skip > 0:
        cache.skip -= 1
        return None
    if rig._ground is not None and anim.soles:
        return None
    tables = _tables(rig, anim)
    if not tables.ok:
        return None
    packed = cache.packed(tables)
    if packed is None:
        return None
    chains = rig._chains
    flat: list = []
    for ch in chains.values():
        got = placed.get(ch._name) if placed else None
        goal, pole = (ch._target, ch._pole) if got is None else got
        flat += goal
        flat += _NO_POLE if pole is None else pole
        flat += (pole is not None, ch._weight)
    inputs = np.array(flat, dtype=np.float64).reshape(-1, I_SIZE)
    rot = _anim_rot(cache, anim).copy()
    out = np.empty((len(chains), 4))
    errors = np.empty((len(chains), tables.cap))
    k = _kernel or _load()
    stopped = k.solve_frame(tables.arrays, inputs, rot, anim.translations, packed.arrays, out, errors)
    if stopped >= 0:
        cache.skip = RETRY_AFTER
        return None
    packed.ahead = True
    reports = {}
    rows = out.tolist()
    for c, name in enumerate(tables.names):
        error, count, reached, final = rows[c]
        count = int(count)
        reports[name] = report(name, error, count, reached != 0.0, tuple(errors[c, :count].tolist()) if count else ())
    cache.outputs, cache.outputs_key = {}, None  # the Python walk's records: it starts afresh
    rig._pose = Pose(rot, anim.translations.copy())
    rig._world_cache = None
    settled = all(r[3] != 0.0 for r in rows)
    cache.settled = make(SettledFrame, (frame_key(rig, placed), tuple(chains), reports)) if settled else None
    return reports


def _tables(rig, anim) -> FrameTables:
    cache = rig._cache
    key = tables_key(rig)
    tables = cache.tables
    if tables is None or tables.key != key:
        offsets = {name: [anim.trans[j] for j in plan.idx] for name, plan in rig._plans.items()}
        tables = cache.tables = FrameTables(rig, key, offsets)
    return tables


def _anim_rot(cache, anim) -> np.ndarray:
    got = cache.anim_rot
    if got is None or got[0] is not anim:
        got = cache.anim_rot = (anim, np.array(anim.rot, dtype=np.float64).reshape(-1, 4))
    return got[1]


def _load():
    global _kernel
    from .ik import frame_kernel  # numba's import waits for the first solve (as rig_limb's)

    _kernel = frame_kernel
    return _kernel
