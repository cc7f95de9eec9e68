"""two_bone_ik_batch: row by row the same answer as two_bone_ik (to 1e-12 m on limbs of
metre scale), degenerate rows included."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.ik.two_bone import two_bone_ik
from rigedit.core.ik.two_bone_batch import two_bone_ik_batch
from tests.core.test_two_bone import limbs


def _random_rows(rng, n, degenerate_share=0.3, log_scale=(-2, 2), kind=None):
    """Random limbs at 1 cm to 100 m, with a share of every degenerate kind mixed in
    (or every row of one kind, 0-8, or -1 for plain limbs)."""
    s = 10.0 ** rng.uniform(*log_scale, n)[:, None]
    unit = lambda: _units(rng, n)  # noqa: E731
    root = rng.normal(size=(n, 3)) * s * 5
    a = rng.uniform(0.05, 1, (n, 1)) * s
    b = rng.uniform(0.05, 1, (n, 1)) * s
    d1, d2 = unit(), unit()
    mid = root + a * d1
    end = mid + b * d2
    target = root + rng.uniform(0, 1.6, (n, 1)) * (a + b) * unit()
    pole = root + rng.uniform(0.1, 3, (n, 1)) * s * unit()
    kinds = rng.integers(0, 9, n)
    kinds[rng.uniform(size=n) > degenerate_share] = -1
    if kind is not None:
        kinds[:] = kind
    straight = kinds == 0  # collinear limb, target on its line
    mid[straight] = root[straight] + a[straight] * d1[straight]
    end[straight] = mid[straight] + b[straight] * d1[straight]
    target[straight] = root[straight] + 0.5 * (a + b)[straight] * d1[straight]
    on_root = kinds == 1
    target[on_root] = root[on_root]
    pole_on_axis = kinds == 2
    pole[pole_on_axis] = root[pole_on_axis] + 2.0 * (target - root)[pole_on_axis]
    pole_on_root = kinds == 3
    pole[pole_on_root] = root[pole_on_root]
    zero_a = kinds == 4
    mid[zero_a] = root[zero_a]
    zero_b = kinds == 5
    end[zero_b] = mid[zero_b]
    equal_on_root = kinds == 6  # equal bones, target on the root: the end folds onto it
    end[equal_on_root] = mid[equal_on_root] + a[equal_on_root] * d2[equal_on_root]
    target[equal_on_root] = root[equal_on_root]
    collinear = kinds == 7  # straight limb, target off its line
    end[collinear] = mid[collinear] + b[collinear] * d1[collinear]
    point = kinds == 8  # every joint on one point: no length at all
    mid[point] = end[point] = root[point]
    return root, mid, end, target, pole, s[:, 0]


def _units(rng, n):
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _assert_rows_match(root, mid, end, target, pole, scale, r):
    assert r.mid.shape == r.end.shape == root.shape and r.reached.shape == (len(root),)
    assert r.reached.dtype == bool
    for i in range(len(root)):
        one = two_bone_ik(root[i], mid[i], end[i], target[i], None if pole is None else pole[i])
        # 1e-12 m on a limb of metre scale: the contract for a batch row, relative to the
        # size of the numbers involved (limbs of 1 cm to 100 m, roots up to 500 m out).
        tol = 1e-12 * (scale[i] + np.abs(root[i]).max())
        assert np.abs(r.mid[i] - one.mid).max() <= tol, f"row {i}: mid {r.mid[i]} != {one.mid}"
        assert np.abs(r.end[i] - one.end).max() <= tol, f"row {i}: end {r.end[i]} != {one.end}"
        assert bool(r.reached[i]) == one.reached, f"row {i}: reached"


@pytest.mark.parametrize("with_pole", [False, True])
def test_every_row_equals_the_single_chain_solve(with_pole):
    rng = np.random.default_rng(7)
    n = 4000
    root, mid, end, target, pole, s = _random_rows(rng, n)
    pole = pole if with_pole else None
    r = two_bone_ik_batch(root, mid, end, target, pole)
    check = np.r_[0:1500, rng.choice(n, 500, replace=False)]
    _assert_rows_match(root[check], mid[check], end[check], target[check],
                       None if pole is None else pole[check], s[check],
                       type(r)(r.mid[check], r.end[check], r.reached[check]))


def test_rows_at_full_reach_agree_with_single_solves():
    # Targets exactly at full reach: the boundary of `reached`, where a row must still
    # decide as the single solve does.
    rng = np.random.default_rng(21)
    root, mid, end, target, pole, s = _random_rows(rng, 3000, 0.0)
    a = np.linalg.norm(mid - root, axis=1, keepdims=True)
    b = np.linalg.norm(end - mid, axis=1, keepdims=True)
    target = root + (a + b) * _units(rng, len(root))
    r = two_bone_ik_batch(root, mid, end, target)
    check = rng.choice(len(root), 300, replace=False)
    _assert_rows_match(root[check], mid[check], end[check], target[check], None, s[check],
                       type(r)(r.mid[check], r.end[check], r.reached[check]))


@settings(max_examples=60, deadline=None)
@given(st.lists(limbs(with_pole=True), min_size=1, max_size=30), st.booleans())
def test_hypothesis_rows_equal_single_solves(rows, with_pole):
    root, mid, end, target, pole = (np.array([r[k] for r in rows]) for k in range(5))
    pole = pole if with_pole else None
    scale = np.linalg.norm(mid - root, axis=1) + np.linalg.norm(end - mid, axis=1)
    r = two_bone_ik_batch(root, mid, end, target, pole)
    _assert_rows_match(root, mid, end, target, pole, scale, r)


@pytest.mark.parametrize("with_pole", [False, True])
@pytest.mark.parametrize("kind", range(9))
def test_a_lone_degenerate_row_among_plain_ones_is_found(kind, with_pole):
    # Each row takes its own branch: one odd limb among plain ones must get the single
    # solve's answer for its kind, and its neighbours theirs.
    rng = np.random.default_rng(kind)
    n = 3000
    root, mid, end, target, pole, s = _random_rows(rng, n, 0.0, log_scale=(0, 0))
    odd = _random_rows(rng, 1, log_scale=(0, 0), kind=kind)
    for arr, row in zip((root, mid, end, target, pole, s), odd):
        arr[1234] = row[0]
    pole = pole if with_pole else None
    r = two_bone_ik_batch(root, mid, end, target, pole)
    check = np.r_[1234, rng.choice(n, 20, replace=False)]
    _assert_rows_match(root[check], mid[check], end[check], target[check],
                       None if pole is None else pole[check], s[check],
                       type(r)(r.mid[check], r.end[check], r.reached[check]))


def test_all_rows_degenerate_still_solves_them_all():
    # A crowd in T-pose: every limb straight, targets on the limb lines.
    n = 100
    root = np.zeros((n, 3))
    mid = np.tile([1.0, 0, 0], (n, 1))
    end = np.tile([2.0, 0, 0], (n, 1))
    target = np.tile([1.0, 0, 0], (n, 1)) * np.linspace(0, 2.5, n)[:, None]
    r = two_bone_ik_batch(root, mid, end, target)
    _assert_rows_match(root, mid, end, target, None, np.full(n, 2.0), r)


def test_inputs_are_left_alone_and_empty_batches_work():
    rng = np.random.default_rng(3)
    arrays = _random_rows(rng, 50)[:5]
    copies = [a.copy() for a in arrays]
    two_bone_ik_batch(*arrays)
    for a, c in zip(arrays, copies):
        assert np.array_equal(a, c)
    r = two_bone_ik_batch(*(np.zeros((0, 3)) for _ in range(4)))
    assert r.mid.shape == (0, 3) and r.reached.shape == (0,)


@pytest.mark.parametrize(
    "field, bad, words",
    [
        ("root", np.zeros((5, 2)), "root.*shape"),
        ("mid", np.zeros((4, 3)), "mid.*shape"),
        ("target", np.zeros(3), "target.*shape"),
        ("pole", np.zeros((5, 3, 1)), "pole.*shape"),
        ("end", [["a", "b", "c"]] * 5, "end"),
    ],
)
def test_wrong_shapes_raise(field, bad, words):
    args = dict(root=np.zeros((5, 3)), mid=np.ones((5, 3)), end=np.full((5, 3), 2.0), target=np.ones((5, 3)), pole=None)
    args[field] = bad
    with pytest.raises(ValueError, match=words):
        two_bone_ik_batch(**args)


@pytest.mark.parametrize("field", ["root", "mid", "end", "target", "pole"])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_rows_raise_naming_field_and_row(field, value):
    rng = np.random.default_rng(5)
    arrays = dict(zip(["root", "mid", "end", "target", "pole"], _random_rows(rng, 20, 0.0)[:5]))
    arrays[field][13, 1] = value
    with pytest.raises(ValueError, match=f"{field}.*row 13"):
        two_bone_ik_batch(**arrays)



def test_a_long_batch_equals_single_solves_and_names_a_bad_row():
    rng = np.random.default_rng(11)
    n = 30_000
    root, mid, end, target, pole, s = _random_rows(rng, n)
    r = two_bone_ik_batch(root, mid, end, target, pole)
    check = np.r_[0:50, n - 50 : n, rng.choice(n, 300, replace=False)]
    _assert_rows_match(root[check], mid[check], end[check], target[check], pole[check], s[check],
                       type(r)(r.mid[check], r.end[check], r.reached[check]))
    target[n - 3, 0] = np.nan
    with pytest.raises(ValueError, match=f"target.*row {n - 3}"):
        two_bone_ik_batch(root, mid, end, target, pole)
