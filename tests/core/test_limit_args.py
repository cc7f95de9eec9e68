"""fabrik()'s and ccd()'s `limits=`: every mistake in a ChainLimits named, by both solvers, and
the plans kept between calls (limit_args.py) never standing in for limits that changed."""
from __future__ import annotations

import numpy as np
import pytest

from rigedit.core.ik import ChainLimits, ConeLimit, HingeLimit, ccd, fabrik
from rigedit.core.transforms import quat_normalize

SOLVERS = pytest.mark.parametrize("solve", [fabrik, ccd], ids=["fabrik", "ccd"])
PTS = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 2.0, 0.0], [0.0, 3.0, 0.0]])
CONE = ConeLimit(30.0)
UNIT = (0.0, 0.0, 0.0, 1.0)
QUARTER_X = (0.7071067811865476, 0.0, 0.0, 0.7071067811865476)  # turns +Z onto -Y


@SOLVERS
@pytest.mark.parametrize(
    "limits, message",
    [
        (ChainLimits({1: CONE}, root_dir=(0, 0, 0)), "root_dir must not be zero"),
        (ChainLimits({1: CONE}, root_dir=(0, np.nan, 0)), r"root_dir must be 3 finite numbers, got \[0.0, nan, 0.0\]"),
        (ChainLimits({1: CONE}, root_dir=(0, 1)), "root_dir must be 3 finite numbers"),
        (ChainLimits({1: CONE}, root_dir="up"), "root_dir must be 3 finite numbers, got 'up'"),
        (ChainLimits({1: CONE}, root_frame=(0, 0, 0, 0)), "root_frame must not be a zero quaternion"),
        (ChainLimits({1: CONE}, root_frame=(0, 0, np.inf, 1)), "root_frame must be 4 finite numbers"),
        (ChainLimits({1: CONE}, root_frame=(0, 0, 1)), "root_frame must be 4 finite numbers"),
        (ChainLimits({1: CONE}, frames=[UNIT, (0.0, 0.0, 0.0, 0.0), UNIT]), r"frames\[1\] must not be a zero quaternion"),
        (ChainLimits({1: CONE}, frames=[UNIT, UNIT, (0.0, np.nan, 0.0, 1.0)]), r"frames must be 3 finite quaternions \(one per bone\); frame 2"),
        (ChainLimits({1: CONE}, frames=np.zeros((2, 4))), r"frames must be 3 finite quaternions \(one per bone\), got shape"),
        (ChainLimits({1: CONE}, frames=[UNIT, (0, 0, 1)]), "frames must be 3 finite quaternions"),
        ({1: HingeLimit((0, 1, 0))}, "hinge on joint 1: its axis is parallel"),
        (ChainLimits({0: HingeLimit((0, 1, 0))}, root_dir=(0, 1, 0)), "hinge on joint 0: its axis is parallel"),
        # The axis is parallel only in the frame given for bone 1: the frames are read.
        (ChainLimits({2: HingeLimit((0, 0, 1))}, frames=[UNIT, QUARTER_X, UNIT]), "hinge on joint 2: its axis is parallel"),
        ({0: CONE}, "root_dir"),
        ([CONE, None, None, None], "root_dir"),
        (ChainLimits({0: CONE}), "root_dir"),
        (ChainLimits([CONE]), "ChainLimits.joints must map"),
    ],
)
def test_a_bad_chain_limits_is_a_clear_value_error(solve, limits, message):
    with pytest.raises(ValueError, match=message):
        solve(PTS, [1.0, 1.0, 0.0], limits=limits)


@SOLVERS
def test_bad_points_and_targets_are_named_under_limits_too(solve):
    with pytest.raises(ValueError, match="target must be finite"):
        solve(PTS, [np.nan, 1.0, 0.0], limits={1: CONE})
    bad = PTS.copy()
    bad[2, 0] = np.inf
    with pytest.raises(ValueError, match="points must be finite; row 2"):
        solve(bad, [1.0, 1.0, 0.0], limits={1: CONE})


@SOLVERS
def test_frames_of_any_length_are_read_as_the_unit_ones(solve):
    # No pass (max_iterations=0): the start conformed to the limits in the frames given,
    # which the round-off of normalising cannot send down another path.
    rng = np.random.default_rng(3)
    pts = np.cumsum(rng.normal(size=(5, 3)) * 0.3, axis=0)
    frames = quat_normalize(rng.normal(size=(4, 4)))
    joints = {1: HingeLimit((1, 0, 0), -20, 120), 2: ConeLimit(40.0), 3: HingeLimit((0, 0, 1), -30, 90)}
    target = pts[0] + rng.normal(size=3) * 0.5
    unit = solve(pts, target, limits=ChainLimits(joints, (0.0, -1.0, 0.0), UNIT, frames), max_iterations=0)
    scaled = frames * rng.uniform(0.1, 10.0, size=(4, 1))
    other = solve(pts, target, limits=ChainLimits(joints, (0.0, -2.0, 0.0), (0.0, 0.0, 0.0, 3.0), scaled), max_iterations=0)
    assert unit.error > 1e-3  # the start is not the answer: a pass would have moved it
    np.testing.assert_allclose(other.points, unit.points, rtol=0, atol=1e-12)
    np.testing.assert_allclose(other.frames, unit.frames, rtol=0, atol=1e-12)


def _random_limit(rng):
    if rng.random() < 0.5:
        return ConeLimit(float(rng.uniform(5.0, 60.0)))
    lo = float(rng.uniform(-90.0, 0.0))
    return HingeLimit(tuple(rng.normal(size=3).tolist()), lo, lo + float(rng.uniform(10.0, 150.0)))


@SOLVERS
@pytest.mark.parametrize("seed", range(4))
def test_a_dict_or_list_changed_between_solves_is_read_again(solve, seed):
    # The plan of a dict or list is kept between calls, keyed by the object: changing it in
    # place (a limit replaced, added or removed, at a random joint) must give the answer of
    # a fresh copy, never the old plan's.
    rng = np.random.default_rng(seed)
    n = 6
    pts = np.cumsum(rng.normal(size=(n, 3)) * 0.3, axis=0)
    target = pts[0] + rng.normal(size=3) * 0.6
    by_joint = {int(k): _random_limit(rng) for k in rng.choice(np.arange(1, n - 1), size=2, replace=False)}
    as_list = [by_joint.get(k) for k in range(n)]
    for _ in range(6):
        for limits, fresh in ((by_joint, lambda: dict(by_joint)), (as_list, lambda: list(as_list))):
            got = solve(pts, target, limits=limits, max_iterations=20)
            want = solve(pts, target, limits=fresh(), max_iterations=20)
            np.testing.assert_allclose(got.points, want.points, rtol=0, atol=1e-12)
            assert (got.frames is None) == (want.frames is None)
        k = int(rng.integers(1, n - 1))
        if k in by_joint and rng.random() < 0.3:
            del by_joint[k]
            as_list[k] = None
        else:
            by_joint[k] = as_list[k] = _random_limit(rng)


@SOLVERS
def test_one_dict_on_chains_of_two_lengths_is_checked_for_each(solve):
    limits = {3: CONE}
    solve(PTS, [1.0, 1.0, 0.0], limits=limits)  # 4 points: the limit is on the tip, ignored
    with pytest.raises(ValueError, match="not a joint index of this 3-point chain"):
        solve(PTS[:3], [1.0, 1.0, 0.0], limits=limits)
    longer = np.vstack([PTS, [[0.0, 4.0, 0.0]]])
    assert solve(longer, [1.0, 2.0, 0.0], limits=limits).frames is not None  # now on a real bone


@SOLVERS
def test_something_not_a_limit_put_in_a_kept_dict_is_named(solve):
    limits = {1: CONE, 2: CONE}
    solve(PTS, [1.0, 1.0, 0.0], limits=limits)
    limits[2] = np.array([30.0, 40.0])  # its == gives an array, not a bool
    with pytest.raises(ValueError, match="limit on joint 2: must be a HingeLimit or a ConeLimit, got ndarray"):
        solve(PTS, [1.0, 1.0, 0.0], limits=limits)


@SOLVERS
@pytest.mark.parametrize("seed", range(3))
def test_the_plain_array_call_is_the_careful_one(solve, seed):
    # float64 arrays go straight to the kernel (ccd's and limited_plain's fast paths); lists
    # go through the readers: the same solve either way, with limits or without.
    rng = np.random.default_rng(seed)
    pts = np.cumsum(rng.normal(size=(6, 3)) * 0.3, axis=0)
    joints = {int(k): _random_limit(rng) for k in rng.choice(np.arange(1, 5), size=2, replace=False)}
    for limits in (None, joints, ChainLimits(joints, root_frame=tuple(quat_normalize(rng.normal(size=4)).tolist()))):
        target = pts[0] + rng.normal(size=3) * 0.5
        fast = solve(pts, target, limits=limits, max_iterations=15)
        careful = solve(pts.tolist(), target.tolist(), limits=limits, max_iterations=15)
        np.testing.assert_allclose(fast.points, careful.points, rtol=0, atol=1e-12)
        assert fast.iterations == careful.iterations  # one kernel on the same numbers: one path
        np.testing.assert_allclose(fast.errors, careful.errors, rtol=0, atol=1e-12)
        assert (fast.frames is None) == (careful.frames is None) == (limits is None)
        if limits is not None:
            np.testing.assert_allclose(fast.frames, careful.frames, rtol=0, atol=1e-12)
