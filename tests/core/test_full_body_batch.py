"""The full-body kernel's batch form: solve_rows is solve_row over rows (issue 16)."""
from __future__ import annotations

import numpy as np

from rigedit.core import full_body_batch, rig_full_body
from rigedit.core.rig_anim import animated
from tests.core.full_body_cases import humanoid, reach_goals

# Each row is the single-row function itself, run in another thread: the same operations.
ROW_EPS = 1e-12


def _inputs(rows: int):
    rig = humanoid()
    rig.full_body = True
    rig.solve()
    tables = rig_full_body.tables_of(rig)
    goals, poles, has_pole, pulls, tols, clamps, softs, active, _ = rig_full_body.chain_arrays(rig, tables)
    anim = animated(rig)
    rot = np.array(anim.rot)
    trans = np.array(anim.translations)
    G = np.repeat(goals[None], rows, axis=0)
    G[:, tables.names.index("left_arm")] = reach_goals(rig, np.random.default_rng(21), rows)
    G[:, tables.names.index("right_arm")] = reach_goals(rig, np.random.default_rng(22), rows, chain="right_arm")
    lk, la, lb, lax = tables.lim
    mk, mx, mlo, mhi = tables.mid
    shared = (tables.order, tables.below, tables.child, tables.owner, lk, la, lb, lax, tables.kinds, tables.cs, tables.cj)
    rest = (has_pole, pulls, tols, clamps, softs, mk, mx, mlo, mhi, active, rig_full_body.FULL_BODY_ITERATIONS)
    return tables, rot, trans, G, np.repeat(poles[None], rows, axis=0), shared, rest


def test_rows_are_the_row_function():
    rows = 6
    tables, rot, trans, G, P, shared, rest = _inputs(rows)
    k = rig_full_body.kernel()
    cap = rig_full_body.FULL_BODY_ITERATIONS
    R = np.repeat(rot[None], rows, axis=0)
    T = np.repeat(trans[None], rows, axis=0)
    out_r, out_t = np.empty_like(R), np.empty_like(T)
    err, errors, its = np.empty((rows, len(tables.names))), np.empty((rows, cap)), np.empty(rows, np.int64)
    hist = np.empty((rows, cap, len(tables.names)))
    k.solve_rows(tables.parents, R, T, R.copy(), T[:, 0].copy(), *shared, G, P, *rest, out_r, out_t, err, errors, hist, its)
    for i in range(rows):
        one_r, one_t = np.empty_like(rot), np.empty_like(trans)
        one_err, one_errors = np.empty(len(tables.names)), np.empty(cap)
        one_hist = np.empty((cap, len(tables.names)))
        n = k.solve_row(tables.parents, rot, trans, rot.copy(), trans[0].copy(), *shared, G[i], P[i], *rest, one_r, one_t,
                        one_err, one_errors, one_hist)
        np.testing.assert_allclose(hist[i, :n], one_hist[:n], atol=ROW_EPS)
        assert n == its[i]
        np.testing.assert_allclose(out_r[i], one_r, atol=ROW_EPS)
        np.testing.assert_allclose(out_t[i], one_t, atol=ROW_EPS)
        np.testing.assert_allclose(err[i], one_err, atol=ROW_EPS)
        assert err[i, tables.names.index("left_arm")] <= 1e-3


def test_solve_batch_rows_are_rig_solves():
    rig = humanoid()
    goals = np.array(reach_goals(rig, np.random.default_rng(31), 5))
    rot, trans, err, its = full_body_batch.solve_batch(rig, {"left_arm": goals})
    names = [n for n in rig.chain_names]
    for i, g in enumerate(goals):
        one = rig.copy()
        one.full_body = True
        one.chain("left_arm").target = g
        report = one.solve()["left_arm"]
        np.testing.assert_allclose(rot[i], one.pose.rotations, atol=ROW_EPS)
        np.testing.assert_allclose(trans[i], one.pose.translations, atol=ROW_EPS)
        assert abs(err[i, names.index("left_arm")] - report.error) <= ROW_EPS
        assert its[i] == report.iterations


def test_solve_batch_refuses_bad_goals():
    import pytest

    rig = humanoid()
    with pytest.raises(ValueError, match="no full-body chain"):
        full_body_batch.solve_batch(rig, {"tail": np.zeros((2, 3))})
    with pytest.raises(ValueError, match="finite"):
        full_body_batch.solve_batch(rig, {"left_arm": np.full((2, 3), np.nan)})
    with pytest.raises(ValueError, match=r"\(N, 3\)"):
        full_body_batch.solve_batch(rig, {"left_arm": np.zeros((2, 2))})
