"""fabrik_batch(): row by row the same answer as fabrik()."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.core.ik import fabrik, fabrik_batch
from tests.core.fabrik_strategies import SCALES, assert_lengths_kept, bone_lengths, chains, targets

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def batches(draw):
    """N chains of one joint count, each with its own shape, scale and target kind."""
    n = draw(st.integers(2, 8))
    rows = draw(st.lists(chains(min_points=n, max_points=n), min_size=1, max_size=12))
    pts = np.stack([p for p, _ in rows])
    tgt = np.stack([draw(targets(p)) for p in pts])
    return pts, tgt, max(s for _, s in rows)


def _same_as_single(pts, tgt, **kw):
    b = fabrik_batch(pts, tgt, **kw)
    single_kw = {k: v for k, v in kw.items() if k != "pole"}
    for i in range(len(pts)):
        pole = None if kw.get("pole") is None else kw["pole"][i]
        r = fabrik(pts[i], tgt[i], pole=pole, **single_kw)
        scale = 1.0 + float(np.abs(pts[i]).max())
        np.testing.assert_allclose(b.points[i], r.points, rtol=0, atol=1e-9 * scale, err_msg=f"row {i}")
        assert b.iterations[i] == r.iterations, f"row {i}"
        assert b.reached[i] == r.reached, f"row {i}"
        assert b.error[i] == pytest.approx(r.error, rel=1e-9, abs=1e-9 * scale), f"row {i}"
    return b


@SETTINGS
@given(batches(), st.integers(0, 20), st.sampled_from([1e-6, 1e-3, 1e-1]), st.booleans())
def test_every_row_equals_the_single_chain_result(batch, max_iterations, tol_rel, arc_start):
    pts, tgt, scale = batch
    before = pts.copy()
    b = _same_as_single(pts, tgt, tolerance=tol_rel * scale, max_iterations=max_iterations, arc_start=arc_start)
    np.testing.assert_array_equal(pts, before)
    assert b.points.shape == pts.shape and b.iterations.dtype.kind == "i" and b.reached.dtype == bool
    np.testing.assert_array_equal(b.points[:, 0], pts[:, 0])
    for i in range(len(pts)):
        assert_lengths_kept(b.points[i], bone_lengths(pts[i]), f"row {i}")


@SETTINGS
@given(batches(), st.data())
def test_with_poles_every_row_equals_the_single_chain_result(batch, data):
    pts, tgt, scale = batch
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    pole = pts[:, 0] + rng.normal(size=(len(pts), 3)) * scale
    _same_as_single(pts, tgt, pole=pole)


def test_many_random_rows_equal_the_single_chain_result():
    rng = np.random.default_rng(7)
    n_chains, n = 400, 10
    pts = np.cumsum(rng.normal(size=(n_chains, n, 3)), axis=1)
    pts[::3] = np.arange(n)[:, None] * [0.0, 1.0, 0.0]  # straight bind poses: the arc start
    pts[1::5, 4] = pts[1::5, 3]  # zero-length bones
    tgt = pts[:, 0] + rng.normal(size=(n_chains, 3)) * 4.0
    tgt[::13] = pts[::13, 0]  # on the root
    _same_as_single(pts, tgt, max_iterations=15)


def test_finished_rows_stop_changing():
    # A row already within tolerance runs no pass and comes back exactly as given, while
    # its neighbours iterate.
    rng = np.random.default_rng(3)
    pts = np.cumsum(rng.normal(size=(6, 5, 3)), axis=1)
    tgt = pts[:, 0] + rng.normal(size=(6, 3))
    tgt[2] = pts[2, -1] + [1e-4, 0.0, 0.0]
    b = fabrik_batch(pts, tgt)
    assert b.iterations[2] == 0
    np.testing.assert_array_equal(b.points[2], pts[2])
    assert b.iterations.max() > 0


@given(SCALES)
@settings(max_examples=20, deadline=None)
def test_empty_batch(scale):
    b = fabrik_batch(np.zeros((0, 4, 3)), np.zeros((0, 3)), tolerance=1e-3 * scale)
    assert b.points.shape == (0, 4, 3) and b.iterations.shape == (0,) and b.reached.shape == (0,)


@pytest.mark.parametrize(
    "pts, tgt, kw, message",
    [
        (np.zeros((2, 1, 3)), np.zeros((2, 3)), {}, "n >= 2"),
        (np.zeros((2, 3)), np.zeros((2, 3)), {}, "points"),
        (np.zeros((2, 4, 3)), np.zeros((3, 3)), {}, "target"),
        (np.full((2, 4, 3), np.nan), np.zeros((2, 3)), {}, "finite"),
        (np.zeros((2, 4, 3)), np.zeros((2, 3)), {"pole": np.zeros((1, 3))}, "pole"),
        (np.zeros((2, 4, 3)), np.zeros((2, 3)), {"tolerance": -1}, "tolerance"),
        (np.zeros((2, 4, 3)), np.zeros((2, 3)), {"max_iterations": None}, "max_iterations"),
    ],
)
def test_bad_input_is_a_clear_value_error(pts, tgt, kw, message):
    with pytest.raises(ValueError, match=message):
        fabrik_batch(pts, tgt, **kw)


def test_a_row_finished_early_is_not_overwritten_by_later_passes():
    # Row 2 is within tolerance after 9 passes, the others need all 10: the passes that
    # keep running for them must not touch row 2's answer.
    chain = np.array(
        [
            [0.69231067, -0.69793467, 2.98325961],
            [1.17808081, -0.34512513, 2.72110198],
            [0.90342326, -0.48040578, 2.73007171],
            [0.82531106, -0.48775635, 2.68821384],
            [0.77548876, -0.52478686, 2.66669328],
            [1.0756265, 0.23535502, 2.57297306],
            [1.87902013, -0.15573715, 2.77963863],
        ]
    )
    tgt = np.array([[0.70122265, -0.7072985, 3.02865389]] * 2 + [[1.67717364, 1.64355347, 3.92495559]])
    pts = np.stack([chain] * 3)
    b = _same_as_single(pts, tgt)
    assert b.iterations.tolist() == [10, 10, 9]


# Found by hypothesis: a chain with one real bone whose target is exactly on the root is
# equally far from the target whichever way the bone points, so the arc start tied with the
# start pose and the last bit decided, differently in a batch (whose other rows change
# nothing for this row) and in the single solver. A tie keeps the start in both.
ONE_BONE_ON_ROOT = (
    np.array([[-2.9184848299318817, 1.6580136164266879, 2.97452691333235], [-2.8573728105962815, 1.2692755890733551, 3.005271371819353]]),
    np.array([-2.813584712778842, 1.122344243265577, 3.336121968241835]),
)
ZERO_BONES_ON_ROOT = np.array(
    [
        [94.13864877522411, -30.45936335134457, -131.55903733142443],
        [94.13864877522411, -30.45936335134457, -131.55903733142443],
        [94.13864877522411, -30.45936335134457, -131.55903733142443],
        [96.7491094276099, -51.831821239342275, -135.20956995076583],
        [96.7491094276099, -51.831821239342275, -135.20956995076583],
    ]
)


@pytest.mark.parametrize("with_pole", [False, True])
def test_one_bone_with_target_on_root_keeps_its_start_in_batch_and_single(with_pole):
    pts, pole = ONE_BONE_ON_ROOT
    other = pts + [0.3, -0.1, 0.2]  # a second row, so the batch is not one chain
    batch_pts = np.stack([other, pts])
    tgt = np.stack([other[0] + [0.5, 0.0, 0.0], pts[0]])
    b = _same_as_single(batch_pts, tgt, pole=np.stack([pole, pole]) if with_pole else None)
    np.testing.assert_allclose(b.points[1], pts, rtol=0, atol=1e-12)
    assert np.all(np.isfinite(b.points))


def test_zero_length_bones_with_target_on_root_keep_the_real_bone_in_batch_and_single():
    other = np.cumsum(np.full((5, 3), 0.4), axis=0)
    batch_pts = np.stack([other, ZERO_BONES_ON_ROOT])
    tgt = np.stack([other[0] + [0.0, 0.5, 0.0], ZERO_BONES_ON_ROOT[0]])
    b = _same_as_single(batch_pts, tgt, tolerance=5.623413251903491e-05, max_iterations=1)
    np.testing.assert_allclose(b.points[1], ZERO_BONES_ON_ROOT, rtol=0, atol=1e-9)
