"""Quaternion helpers against scipy's Rotation and plain geometry."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation, Slerp

from rigedit.core import scalar_quat as sq
from rigedit.core.transforms import (
    quat_angle,
    quat_between,
    quat_conj,
    quat_from_axis_angle,
    quat_from_euler,
    quat_from_matrix,
    quat_mul,
    quat_normalize,
    quat_rotate,
    quat_slerp,
    quat_to_euler,
    quat_to_matrix,
)
from tests.core.helpers import assert_pose

finite = st.floats(-1.0, 1.0, allow_nan=False)
vec3 = st.tuples(finite, finite, finite).map(np.array)
quat = st.tuples(finite, finite, finite, finite).filter(lambda q: np.linalg.norm(q) > 0.1).map(
    lambda q: np.array(q) / np.linalg.norm(q)
)


def _rot(q):
    return Rotation.from_quat(q)


@settings(max_examples=200, deadline=None)
@given(quat, quat, vec3)
def test_mul_rotate_and_matrix_agree_with_scipy(a, b, v):
    assert_pose(quat_rotate(a, v), _rot(a).apply(v), 1e-12)
    # Rotating by a * b is rotating by b, then by a.
    assert_pose(quat_rotate(quat_mul(a, b), v), _rot(a).apply(_rot(b).apply(v)), 1e-12)
    np.testing.assert_allclose(quat_to_matrix(a), _rot(a).as_matrix(), atol=1e-12)
    assert_pose(quat_rotate(quat_conj(a), quat_rotate(a, v)), v, 1e-12)


@settings(max_examples=200, deadline=None)
@given(quat)
def test_matrix_round_trip(q):
    back = quat_from_matrix(quat_to_matrix(q))
    assert min(np.abs(back - q).max(), np.abs(back + q).max()) < 1e-12


def test_vectorised_over_leading_axes():
    rng = np.random.default_rng(0)
    q = quat_normalize(rng.normal(size=(5, 7, 4)))
    v = rng.normal(size=(5, 7, 3))
    want = _rot(q.reshape(-1, 4)).apply(v.reshape(-1, 3)).reshape(5, 7, 3)
    assert_pose(quat_rotate(q, v), want, 1e-12)
    assert quat_to_matrix(q).shape == (5, 7, 3, 3)
    assert quat_from_matrix(quat_to_matrix(q)).shape == (5, 7, 4)


@settings(max_examples=200, deadline=None)
@given(vec3, vec3)
def test_between_turns_a_onto_b_by_the_shortest_arc(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    q = quat_between(a, b)
    assert abs(np.linalg.norm(q) - 1.0) < 1e-12
    if na < 1e-6 or nb < 1e-6:
        return
    turned = quat_rotate(q, a / na)
    assert_pose(turned, b / nb, 1e-9)
    # Shortest arc: the turn angle is the angle between the directions.
    cos = np.clip(a.dot(b) / (na * nb), -1.0, 1.0)
    assert abs(quat_angle(q) - np.arccos(cos)) < 1e-6


@pytest.mark.parametrize("a", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0.3, -0.5, 0.8), (0.95, 0.1, 0)])
def test_between_opposite_directions_is_a_half_turn_about_a_perpendicular(a):
    a = np.array(a, dtype=float)
    q = quat_between(a, -2.0 * a)
    assert abs(q[3]) < 1e-12 and abs(np.linalg.norm(q) - 1.0) < 1e-12
    assert abs(q[:3].dot(a)) < 1e-12
    assert_pose(quat_rotate(q, a), -a, 1e-12)
    assert np.array_equal(q, quat_between(a, -a))  # deterministic


@settings(max_examples=200, deadline=None)
@given(vec3, vec3, st.floats(-13.0, -1.0))
def test_between_nearly_opposite_directions_keeps_full_precision(a, side, log_gap):
    # Within 1e-13..0.1 rad of a half turn: the half-angle form's 1 + dot cancels there
    # (it put turned directions ~1e-6 off); the near-opposite form must stay at round-off,
    # in the vectorised and the float version alike.
    na = np.linalg.norm(a)
    perp = side - side.dot(a) / max(na * na, 1e-300) * a
    npp = np.linalg.norm(perp)
    if na < 1e-3 or npp < 1e-3 * np.linalg.norm(side) or npp < 1e-6:
        return
    u, p = a / na, perp / npp
    gap = 10.0**log_gap
    b = -np.cos(gap) * u + np.sin(gap) * p
    for q in (quat_between(u, b), np.array(sq.qbetween(tuple(u), tuple(b)))):
        assert abs(np.linalg.norm(q) - 1.0) < 1e-12
        assert_pose(quat_rotate(q, u), b, 1e-13)
        # The shortest arc; nearer than HALF_TURN_SINE, a half turn and a small arc, whose
        # angle is within the gap of it.
        assert abs(quat_angle(q) - (np.pi - gap)) < (1e-12 if gap > 1e-6 else gap + 1e-12)
    batch = quat_between(np.stack([u, u]), np.stack([b, p]))  # mixed rows: near and not
    np.testing.assert_allclose(batch[0], quat_between(u, b), rtol=0, atol=1e-15)


def test_between_zero_vectors_is_identity():
    assert np.array_equal(quat_between([0, 0, 0], [1, 0, 0]), [0, 0, 0, 1])
    assert np.array_equal(quat_between([1, 0, 0], [0, 0, 0]), [0, 0, 0, 1])


@settings(max_examples=200, deadline=None)
@given(quat, quat, st.floats(0.0, 1.0))
def test_slerp_ends_exact_and_constant_speed(a, b, t):
    assert np.array_equal(quat_slerp(a, b, 0.0), a)
    assert np.array_equal(quat_slerp(a, b, 1.0), b)
    m = quat_slerp(a, b, t)
    assert abs(np.linalg.norm(m) - 1.0) < 1e-12
    # The angle from a grows linearly along the shorter arc.
    total = quat_angle(quat_mul(quat_conj(a), b))
    if total > 1e-6:
        assert abs(quat_angle(quat_mul(quat_conj(a), m)) - t * total) < 1e-6
    if abs(a.dot(b)) < 1e-6:
        return  # a half turn apart: two arcs are equally short, either is right
    want = Slerp([0.0, 1.0], Rotation.from_quat([a, b]))([t]).as_quat()[0]
    assert min(np.abs(m - want).max(), np.abs(m + want).max()) < 1e-9


def test_slerp_vectorised_t_and_ends_exact_per_row():
    rng = np.random.default_rng(1)
    a = quat_normalize(rng.normal(size=(6, 4)))
    b = quat_normalize(rng.normal(size=(6, 4)))
    t = np.array([0.0, 1.0, 0.5, 0.0, 1.0, 0.25])
    m = quat_slerp(a, b, t)
    assert np.array_equal(m[[0, 3]], a[[0, 3]]) and np.array_equal(m[[1, 4]], b[[1, 4]])


@pytest.mark.parametrize("order", ["XYZ", "ZXY", "ZYX", "YXZ", "XZY", "YZX"])
def test_euler_is_intrinsic_in_the_given_order(order):
    rng = np.random.default_rng(2)
    angles = rng.uniform(-170, 170, size=(10, 3))
    q = quat_from_euler(order, angles)
    axes = {"X": (1, 0, 0), "Y": (0, 1, 0), "Z": (0, 0, 1)}
    for row, want_q in zip(angles, q):
        # Intrinsic: the first named axis's rotation is outermost.
        built = np.array([0.0, 0.0, 0.0, 1.0])
        for axis, deg in zip(order, row):
            built = quat_mul(built, quat_from_axis_angle(np.array(axes[axis], float), np.radians(deg)))
        assert min(np.abs(built - want_q).max(), np.abs(built + want_q).max()) < 1e-12
    back = quat_to_euler(order, q)
    again = quat_from_euler(order, back)
    assert np.all(np.minimum(np.abs(again - q).max(-1), np.abs(again + q).max(-1)) < 1e-12)


def test_normalize_zero_is_identity_and_angle_range():
    assert np.array_equal(quat_normalize(np.zeros(4)), [0, 0, 0, 1])
    q = quat_from_axis_angle(np.array([0, 1.0, 0]), np.array(3 * np.pi / 2))
    assert abs(quat_angle(q) - np.pi / 2) < 1e-12  # the same rotation as -90 degrees
