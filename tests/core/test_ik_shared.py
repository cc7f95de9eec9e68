"""The contract fabrik() and ccd() share (one result shape, one loop), as properties over random
chains run through both solvers; test_limits runs both under limits."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rigedit.core.ik import ccd, fabrik
from tests.core.fabrik_strategies import (
    assert_lengths_kept,
    assert_result_consistent,
    bone_lengths,
    chains,
    reach_interval,
    targets,
    unit,
)
from tests.core.helpers import chain_points

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SOLVERS = pytest.mark.parametrize("solve", [fabrik, ccd], ids=["fabrik", "ccd"])


@SOLVERS
@SETTINGS
@given(chains(), st.data(), st.integers(0, 30), st.sampled_from([1e-6, 1e-3, 1e-1]))
def test_lengths_kept_root_fixed_and_the_error_never_grows(solve, chain, data, max_iterations, tol_rel):
    pts, scale = chain
    target = data.draw(targets(pts))
    before = pts.copy()
    tolerance = tol_rel * scale
    r = solve(pts, target, tolerance=tolerance, max_iterations=max_iterations)
    np.testing.assert_array_equal(pts, before)
    assert np.array_equal(r.points[0], pts[0])
    assert_lengths_kept(r.points, bone_lengths(pts))
    assert_result_consistent(r, target, tolerance)
    assert r.iterations <= max_iterations
    if np.linalg.norm(target - pts[0]) <= bone_lengths(pts).sum():
        assert r.error <= np.linalg.norm(pts[-1] - target) * (1 + 1e-12) + 1e-12 * scale


@SOLVERS
@SETTINGS
@given(chains(), st.data())
def test_out_of_reach_is_straight_toward_the_target(solve, chain, data):
    pts, scale = chain
    lengths = bone_lengths(pts)
    total = float(lengths.sum())
    direction = unit(data.draw(st.lists(st.floats(-1, 1), min_size=3, max_size=3)))
    target = pts[0] + direction * (total * data.draw(st.floats(1.0001, 10.0)) + 1e-6 * scale)
    r = solve(pts, target)
    assert r.iterations == 0 and r.errors == ()
    expected = pts[0] + np.concatenate(([0.0], np.cumsum(lengths)))[:, None] * unit(target - pts[0])
    np.testing.assert_allclose(r.points, expected, rtol=0, atol=1e-12 * (scale + np.abs(pts).max()))


@SOLVERS
@SETTINGS
@given(chains(zero_bones=True, shapes=("random",)), st.data())
def test_reachable_targets_are_reached_given_enough_iterations(solve, chain, data):
    pts, scale = chain
    lengths = bone_lengths(pts)
    inner, outer = reach_interval(lengths)
    assume(outer - inner > 0.1 * outer)
    dist = inner + (outer - inner) * data.draw(st.floats(0.1, 0.95))
    target = pts[0] + unit(data.draw(st.lists(st.floats(-1, 1), min_size=3, max_size=3))) * dist
    r = solve(pts, target, tolerance=1e-4 * outer, max_iterations=3000)
    assert r.reached, f"error {r.error} after {r.iterations} passes, errors {r.errors[-5:]}"


@SOLVERS
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(points=[[0, 0, 0]]), "points"),
        (dict(points=[[0, 0], [1, 1]]), "points"),
        (dict(points=[[0, 0, 0], [np.nan, 0, 0]]), "finite"),
        (dict(target=[np.inf, 0, 0]), "target"),
        (dict(target=[1, 2]), "target"),
        (dict(lengths=[1.0]), "lengths"),
        (dict(lengths=[1.0, -1.0]), "lengths"),
        (dict(tolerance=np.nan), "tolerance"),
        (dict(max_iterations=-1), "max_iterations"),
        (dict(limits="knee"), "limits"),
    ],
)
def test_bad_input_is_a_clear_value_error(solve, kwargs, message):
    args = dict(points=chain_points([1.0, 1.0]), target=[1.0, 1.0, 0.0])
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        solve(args.pop("points"), args.pop("target"), **args)


@SOLVERS
def test_zero_length_bones_keep_their_place(solve):
    pts = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 2.0, 0.0]])
    r = solve(pts, [1.0, 1.0, 0.0], max_iterations=200)
    assert r.reached
    assert_lengths_kept(r.points, bone_lengths(pts))
