"""Full-body IK for many frames at once (rig.full_body's solve, batched): each row one
frame's goals, solved by the kernel's solve_rows with the rows in parallel, from the same
tables and settings the rig's own full-body solve packs (rig_full_body.py)."""
from __future__ import annotations

import numpy as np

from .full_body_tables import anim_arrays, chain_arrays, tables_of
from .rig_anim import animated
from .rig_full_body import FULL_BODY_ITERATIONS, kernel
from .rig_goals import goal_and_pole, placed_goals


def solve_batch(rig, goals: dict, *, rotations=None, translations=None):
    """Full-body IK for many frames at once (the kernel's solve_rows, rows in parallel):
    `goals` maps chain name -> (N, 3) goals (chains not named keep their target); each row
    starts cold from the animated pose, or from the animated frames `rotations` (N, J, 4)
    and `translations` (N, J, 3) when given. Returns (rotations (N, J, 4), translations
    (N, J, 3), tip errors (N, C) in rig.chain_names order without look-at chains, passes
    (N,)): the solved pose of each row at weight 1."""
    tables = tables_of(rig)
    placed = placed_goals(rig, animated(rig))
    _, poles, has_pole, pulls, tols, clamps, softs, active, _ = chain_arrays(rig, tables, placed)
    base = np.array([goal_and_pole(rig.chains_by_name[n], placed)[0] for n in tables.names], dtype=np.float64).reshape(-1, 3)
    rows = None
    for name, g in goals.items():
        if name not in tables.names:
            raise ValueError(f"no full-body chain named {name!r} (chains: {', '.join(tables.names)})")
        g = np.asarray(g, dtype=np.float64)
        if g.ndim != 2 or g.shape[1] != 3 or (rows is not None and g.shape[0] != rows):
            raise ValueError(f"goals[{name!r}] must be (N, 3) with one N for every chain, got shape {g.shape}")
        if not np.isfinite(g).all():
            raise ValueError(f"goals[{name!r}] must be finite")
        rows = g.shape[0]
    if rows is None:
        raise ValueError("goals must name at least one chain")
    G = np.repeat(base[None], rows, axis=0)
    for name, g in goals.items():
        G[:, tables.names.index(name)] = g
    if rotations is None:
        anim_rot, anim_trans = anim_arrays(rig, animated(rig))
        R, T = np.repeat(anim_rot[None], rows, axis=0), np.repeat(anim_trans[None], rows, axis=0)
    else:
        R, T = np.ascontiguousarray(rotations, dtype=np.float64), np.ascontiguousarray(translations, dtype=np.float64)
        if R.shape != (rows, len(tables.parents), 4) or T.shape != (rows, len(tables.parents), 3):
            raise ValueError(f"rotations and translations must be ({rows}, {len(tables.parents)}, 4) and (..., 3)")
    lk, la, lb, lax = tables.lim
    mk, mx, mlo, mhi = tables.mid
    cap = FULL_BODY_ITERATIONS
    out_r, out_t = np.empty_like(R), np.empty_like(T)
    err, errors, its = np.empty((rows, len(tables.names))), np.empty((rows, cap)), np.empty(rows, np.int64)
    chain_errors = np.empty((rows, cap, len(tables.names)))
    kernel().solve_rows(
        tables.parents, R, T, R.copy(), T[:, tables.root].copy(), tables.order, tables.below, tables.child, tables.owner,
        lk, la, lb, lax, tables.kinds, tables.cs, tables.cj, G, np.repeat(poles[None], rows, axis=0), has_pole, pulls,
        tols, clamps, softs, mk, mx, mlo, mhi, active, cap, out_r, out_t, err, errors, chain_errors, its,
    )  # fmt: skip
    return out_r, out_t, err, its
