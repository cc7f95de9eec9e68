"""Keyed curves: evaluation (scalar and vectorised), interpolation shapes and edits."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.curve import INTERPOLATIONS, Curve, Key, position_curve, weight_curve

# smoothstep's steepest slope is 1.5x the straight line's (at the segment's middle).
EASE_MAX_SLOPE = 1.5


@st.composite
def key_lists(draw, interpolations=INTERPOLATIONS, min_size=1, vector=False):
    # Times on a 10 ms grid keep segments from being so short that a finite-difference check
    # measures round-off instead of the curve.
    ticks = draw(st.lists(st.integers(-300, 300), min_size=min_size, max_size=8, unique=True))
    value = (
        st.tuples(*[st.floats(-5, 5, allow_nan=False)] * 3)
        if vector
        else st.floats(0.0, 1.0, allow_nan=False)
    )
    return [Key(t / 100.0, draw(value), draw(st.sampled_from(interpolations))) for t in ticks]


def max_slope(curve: Curve) -> float:
    dv = np.abs(np.diff(curve.values, axis=0)).reshape(len(curve) - 1, -1).max(axis=1)
    return float(np.max(dv / np.diff(curve.times))) if len(curve) > 1 else 0.0


@given(key_lists())
def test_exact_at_every_key(keys):
    c = weight_curve(keys)
    for k in keys:
        assert c.at(k.time) == k.value
    assert np.array_equal(c.sample([k.time for k in keys]), [k.value for k in keys])


@given(key_lists(), st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=40))
def test_weights_stay_between_their_neighbouring_keys_and_in_0_1(keys, times):
    c = weight_curve(keys)
    got = c.sample(times)
    assert np.all((got >= 0.0) & (got <= 1.0))
    for t, v in zip(times, got):
        i = np.searchsorted(c.times, t, side="right") - 1
        lo_i, hi_i = max(i, 0), min(i + 1, len(c) - 1)
        pair = c.values[[lo_i, hi_i]]
        assert pair.min() <= v <= pair.max()


@given(key_lists(), st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=40))
def test_vectorised_equals_scalar(keys, times):
    c = weight_curve(keys)
    assert np.array_equal(c.sample(times), np.array([c.at(t) for t in times]))


@given(key_lists(vector=True), st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=20))
def test_vector_curve_is_its_components_and_vectorised_equals_scalar(keys, times):
    c = position_curve(keys)
    got = c.sample(times)
    assert got.shape == (len(times), 3)
    assert np.array_equal(got, np.array([c.at(t) for t in times]))
    for axis in range(3):
        comp = Curve([Key(k.time, k.value[axis], k.interpolation) for k in keys])
        assert np.array_equal(got[:, axis], comp.sample(times))


@given(key_lists(interpolations=("linear", "ease"), min_size=2), st.data())
def test_linear_and_ease_have_no_jumps(keys, data):
    c = weight_curve(keys)
    slope = max_slope(c)
    # Just either side of each key, the value is within (slope x distance) of the key's.
    for k in keys:
        for h in (1e-3, 1e-6):
            for t in (k.time - h, k.time + h):
                assert abs(c.at(t) - k.value) <= EASE_MAX_SLOPE * slope * h + 1e-12
    # And anywhere: two close times give close values.
    t = data.draw(st.floats(-4, 4))
    h = data.draw(st.floats(1e-6, 1e-2))
    assert abs(c.at(t + h) - c.at(t)) <= EASE_MAX_SLOPE * slope * h + 1e-12


@given(key_lists(interpolations=("ease",), min_size=2))
def test_ease_leaves_and_arrives_flat(keys):
    # Zero slope at both ends: within a small h of a key the change is quadratic in h,
    # far below what a linear segment would give.
    c = weight_curve(keys)
    for i in range(len(c) - 1):
        t0, t1 = c.times[i], c.times[i + 1]
        v0, v1 = c.values[i], c.values[i + 1]
        h = (t1 - t0) * 1e-3
        assert abs(c.at(t0 + h) - v0) <= 3 * 1e-6 * abs(v1 - v0) + 1e-12
        assert abs(c.at(t1 - h) - v1) <= 3 * 1e-6 * abs(v1 - v0) + 1e-12


@given(key_lists(interpolations=("linear", "ease"), min_size=2), st.data())
def test_monotone_between_keys(keys, data):
    c = weight_curve(keys)
    i = data.draw(st.integers(0, len(c) - 2))
    ts = np.sort(data.draw(st.lists(st.floats(0, 1), min_size=2, max_size=10)))
    vals = c.sample(c.times[i] + ts * (c.times[i + 1] - c.times[i]))
    steps = np.diff(vals) * np.sign(c.values[i + 1] - c.values[i])
    assert np.all(steps >= -1e-15)


@given(key_lists(interpolations=("constant",), min_size=2), st.data())
def test_constant_holds_until_the_next_key(keys, data):
    c = weight_curve(keys)
    i = data.draw(st.integers(0, len(c) - 2))
    u = data.draw(st.floats(0, 1, exclude_max=True))
    t = c.times[i] + u * (c.times[i + 1] - c.times[i])
    if t < c.times[i + 1]:
        assert c.at(t) == c.values[i]


@given(key_lists(), st.floats(0.001, 100))
def test_held_flat_outside_the_keys(keys, dt):
    c = weight_curve(keys)
    assert c.at(c.times[0] - dt) == c.values[0]
    assert c.at(c.times[-1] + dt) == c.values[-1]
    assert np.array_equal(c.sample([c.times[0] - dt, c.times[-1] + dt]), c.values[[0, -1]])


@pytest.mark.parametrize(
    "interpolation, u, expected_fraction",
    # smoothstep 3u^2 - 2u^3 worked by hand: 3/16 - 2/64 = 0.15625 at u = 1/4.
    [("linear", 0.25, 0.25), ("linear", 0.5, 0.5), ("ease", 0.25, 0.15625), ("ease", 0.5, 0.5),
     ("ease", 0.75, 0.84375), ("constant", 0.99, 0.0)],
)
def test_interpolation_shapes(interpolation, u, expected_fraction):
    c = weight_curve([Key(1.0, 0.2, interpolation), Key(3.0, 0.6)])
    assert c.at(1.0 + 2.0 * u) == pytest.approx(0.2 + 0.4 * expected_fraction, abs=1e-12)


def test_empty_curve_gives_its_default_and_one_key_is_flat():
    assert weight_curve().at(7.0) == 1.0
    assert np.array_equal(weight_curve().sample([0.0, 1.0]), [1.0, 1.0])
    assert np.array_equal(position_curve().at(0.0), [0.0, 0.0, 0.0])
    assert position_curve().sample([0.0, 1.0]).shape == (2, 3)
    one = weight_curve([(0.5, 0.3)])
    assert one.at(-9.0) == one.at(9.0) == 0.3
    assert np.array_equal(one.sample([-9.0, 0.5, 9.0]), [0.3, 0.3, 0.3])


@pytest.mark.parametrize(
    "keys, message",
    [
        ([(0.0, 1.2)], "must be between 0 and 1, got 1.2"),
        ([(0.0, -0.1)], "must be between 0 and 1"),
        ([(0.0, 0.5), (0.0, 0.6)], "same time"),
        ([(float("nan"), 0.5)], "time must be finite"),
        ([(0.0, float("inf"))], "must be finite"),
        ([(0.0, 0.5, "bezier")], "interpolation must be one of linear, ease, constant"),
        ([(0.0, (1.0, 2.0))], "shape"),
    ],
)
def test_bad_keys_are_refused_with_a_reason(keys, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        weight_curve(keys)


def test_non_finite_evaluation_times_are_refused():
    c = weight_curve([(0.0, 0.0), (1.0, 1.0)])
    with pytest.raises(ValueError):
        c.at(float("nan"))
    with pytest.raises(ValueError):
        c.sample([0.0, float("inf")])


def test_edits_return_new_curves_and_leave_the_old_one_alone():
    c = weight_curve([(0.0, 0.0, "linear"), (1.0, 1.0, "ease")])
    before = list(c.keys)

    added = c.with_key(0.5, 0.25)
    assert [k.time for k in added.keys] == [0.0, 0.5, 1.0]
    assert added.key(1).interpolation == "ease"

    replaced = c.with_key(1.0, 0.5)
    assert len(replaced) == 2 and replaced.key(1) == Key(1.0, 0.5, "ease")  # keeps its interpolation

    moved, index = c.moved_key(0, 2.0, 0.75)
    assert index == 1 and moved.key(1) == Key(2.0, 0.75, "linear")
    assert moved.key(0).time == 1.0

    # Dropping a key on another replaces it: the dragged key wins.
    landed, index = c.moved_key(0, 1.0)
    assert len(landed) == 1 and index == 0 and landed.key(0) == Key(1.0, 0.0, "linear")

    assert c.without_key(0).keys == (Key(1.0, 1.0, "ease"),)
    assert c.with_interpolation(0, "constant").key(0).interpolation == "constant"
    assert c.without_keys_between(-1, 0.5).keys == (Key(1.0, 1.0, "ease"),)

    assert list(c.keys) == before
    with pytest.raises(IndexError):
        c.without_key(2)
    with pytest.raises(ValueError, match="between 0 and 1"):
        c.with_key(0.3, 1.5)


def test_curves_compare_by_value():
    a = weight_curve([(0.0, 0.0), (1.0, 1.0)])
    assert a == weight_curve([(1.0, 1.0), (0.0, 0.0)])
    assert a != weight_curve([(0.0, 0.0), (1.0, 0.9)])
    assert a != a.with_interpolation(0, "linear")
    assert weight_curve() != position_curve()


@settings(max_examples=50)
@given(key_lists(min_size=2), st.data())
def test_index_at_finds_exact_key_times_only(keys, data):
    c = weight_curve(keys)
    i = data.draw(st.integers(0, len(c) - 1))
    assert c.index_at(c.times[i]) == i
    assert c.index_at(c.times[i] + 0.001) is None
