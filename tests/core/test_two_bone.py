"""two_bone_ik: classic limbs worked out by hand, degenerate inputs, and properties."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rigedit.core.ik.two_bone import two_bone_ik
from tests.core.helpers import assert_pose, chain_points

S2 = math.sqrt(0.5)


# --- classic cases: expected positions from plane geometry, not from the solver ---------

CLASSIC = [
    # name, root, mid, end, target, pole, expected mid, expected end, reached
    (
        "3-4-5 triangle, pole up",
        (0, 0, 0), (3, 0, 0), (7, 0, 0), (5, 0, 0), (0, 10, 0),
        # cos(root angle) = (9 + 25 - 16) / (2 * 3 * 5) = 0.6
        (1.8, 2.4, 0), (5, 0, 0), True,
    ),
    (
        "3-4-5 triangle, pole down",
        (0, 0, 0), (3, 0, 0), (7, 0, 0), (5, 0, 0), (2, -1, 0),
        (1.8, -2.4, 0), (5, 0, 0), True,
    ),
    (
        "right angle at the elbow, pole along +z",
        (0, 0, 0), (0, 1, 0), (0, 2, 0), (math.sqrt(2), 0, 0), (0, 0, 3),
        (S2, 0, S2), (math.sqrt(2), 0, 0), True,
    ),
    (
        "shifted root, unit arm reaching straight down, pole forward",
        (1, 2, 3), (2, 2, 3), (3, 2, 3), (1, 2 - math.sqrt(2), 3), (1, 2, 10),
        (1, 2 - S2, 3 + S2), (1, 2 - math.sqrt(2), 3), True,
    ),
    (
        "beyond reach: straight toward the target",
        (0, 0, 0), (1, 1, 0), (2, 0, 0), (0, 10, 0), None,
        (0, math.sqrt(2), 0), (0, 2 * math.sqrt(2), 0), False,
    ),
    (
        "exactly at full reach",
        (0, 0, 0), (0, 3, 0), (4, 3, 0), (0, 0, 7), (1, 0, 0),
        (0, 0, 3), (0, 0, 7), True,
    ),
    (
        "closer than |a - b|, long upper bone: folds toward the target",
        (0, 0, 0), (3, 0, 0), (3, 1, 0), (0, 1, 0), (5, 5, 5),
        (0, 3, 0), (0, 2, 0), False,
    ),
    (
        "closer than |a - b|, long lower bone: the end gets as near as it can",
        (0, 0, 0), (1, 0, 0), (1, 3, 0), (0, 0, 1), None,
        (0, 0, -1), (0, 0, 2), False,
    ),
]


@pytest.mark.parametrize("case", CLASSIC, ids=[c[0] for c in CLASSIC])
def test_classic_limbs(case):
    _, root, mid, end, target, pole, exp_mid, exp_end, exp_reached = case
    r = two_bone_ik(root, mid, end, target, pole)
    assert_pose(r.mid, exp_mid, 1e-12, "mid")
    assert_pose(r.end, exp_end, 1e-12, "end")
    assert r.reached is exp_reached
    assert r.mid.dtype == np.float64 and r.mid.shape == (3,) and r.end.shape == (3,)


def test_no_pole_keeps_the_bend_plane_and_side():
    # Elbow bent toward +y in the XY plane; the hand is pulled in, still in that plane.
    root, mid, end = np.zeros(3), np.array([1.0, 0.5, 0.0]), np.array([2.0, 0.0, 0.0])
    r = two_bone_ik(root, mid, end, (0.5, 1.2, 0.0))
    assert abs(r.mid[2]) < 1e-12
    before = np.cross(mid - root, end - mid)[2]
    after = np.cross(r.mid - root, r.end - r.mid)[2]
    assert np.sign(after) == np.sign(before)  # the knee did not flip to bend backwards


def test_no_pole_target_off_the_plane_keeps_the_plane_normal_as_far_as_it_can():
    root, mid, end = np.zeros(3), np.array([1.0, 1.0, 0.0]), np.array([2.0, 0.0, 0.0])
    n0 = np.cross(mid - root, end - mid)
    r = two_bone_ik(root, mid, end, (1.0, 0.0, 0.8))
    n1 = np.cross(r.mid - root, r.end - r.mid)
    # The new plane contains the reach line; its normal is the old one's nearest such.
    u = np.array([1.0, 0.0, 0.8]) / np.linalg.norm([1.0, 0.0, 0.8])
    want = n0 - n0.dot(u) * u
    cos = n1.dot(want) / (np.linalg.norm(n1) * np.linalg.norm(want))
    assert cos > 1 - 1e-12


def test_pole_on_the_reach_line_keeps_the_current_plane():
    root, mid, end = np.zeros(3), np.array([1.0, 0.0, 1.0]), np.array([2.0, 0.0, 0.0])
    target = np.array([1.5, 0.0, 0.0])
    for pole in ([3.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0]):
        with_pole = two_bone_ik(root, mid, end, target, pole)
        without = two_bone_ik(root, mid, end, target)
        assert_pose(with_pole.mid, without.mid, 1e-12, f"pole {pole}")
        assert with_pole.mid[2] > 0.0


def test_straight_limb_and_target_on_its_line_gives_a_deterministic_bend():
    root, mid, end = np.zeros(3), np.array([0.0, 1.0, 0.0]), np.array([0.0, 2.0, 0.0])
    r1 = two_bone_ik(root, mid, end, (0.0, 1.0, 0.0))
    r2 = two_bone_ik(root, mid, end, (0.0, 1.0, 0.0))
    assert_pose(r1.mid, r2.mid, 1e-12)
    _check_limb(root, mid, end, (0.0, 1.0, 0.0), r1)
    assert_pose(r1.end, (0.0, 1.0, 0.0), 1e-12)
    # The mid left the line: the limb actually bends.
    assert math.hypot(r1.mid[0], r1.mid[2]) > 0.5


@pytest.mark.parametrize(
    "mid, end, target",
    [
        ((1, 0, 0), (2, 0, 0), (0, 0, 0)),  # equal bones, target on the root
        ((1, 0, 0), (1, 1, 0), (0, 0, 0)),  # bent, equal bones, target on the root
        ((2, 0, 0), (3, 0, 0), (0, 0, 0)),  # unequal bones, target on the root
        ((0, 0, 0), (1, 0, 0), (0.5, 0.5, 0)),  # zero-length upper bone
        ((1, 0, 0), (1, 0, 0), (0.5, 0.5, 0)),  # zero-length lower bone
        ((0, 0, 0), (0, 0, 0), (0.5, 0.5, 0)),  # both zero
        ((0, 0, 0), (0, 0, 0), (0, 0, 0)),  # everything on one point
        ((1, 0, 0), (1, 0, 0), (0, 0, 0)),  # zero lower bone, target on the root
        ((0, 0, 0), (0, 1, 0), (0, 0, 0)),  # zero upper bone, target on the root
    ],
)
@pytest.mark.parametrize("pole", [None, (0, 0, 1), (0, 0, 0)])
def test_degenerate_inputs_never_give_nan(mid, end, target, pole):
    r = two_bone_ik((0, 0, 0), mid, end, target, pole)
    _check_limb((0, 0, 0), mid, end, target, r)


@pytest.mark.parametrize("off", [1e-4, 1e-6, 1e-8, 1e-9, 1e-10])
@pytest.mark.parametrize("pole", [None, "near the line"])
def test_nearly_on_line_bend_directions_keep_the_lengths_to_1e_12(off, pole):
    """A straight limb with its target a small angle off its line (no pole: the bend
    direction is the upper bone's part off the reach line), or a pole a small angle off
    the reach line: the bend direction is a difference of nearly equal vectors."""
    root, mid, end = np.zeros(3), np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, 2.0])
    target = np.array([0.0, off, 1.0])
    p = None if pole is None else np.array([3.0 * off, 3.0, 3.0])
    r = two_bone_ik(root, mid, end, target, p)
    _check_limb(root, mid, end, target, r, p)
    assert abs(np.linalg.norm(r.mid - root) - 1.0) <= 1e-12


def test_target_on_root_with_equal_bones_folds_the_end_onto_the_root():
    r = two_bone_ik((0, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 0), (0, 0, 5))
    assert_pose(r.end, (0, 0, 0), 1e-15)
    assert_pose(r.mid, (0, 0, 1), 1e-15)  # stands off along the pole
    assert r.reached


def test_inputs_are_not_modified_and_any_kind_of_point_works():
    root, mid, end, target, pole = (np.array(v, dtype=float) for v in ([0, 0, 0], [1, 1, 0], [2, 0, 0], [1, 0, 1], [0, 1, 0]))
    copies = [v.copy() for v in (root, mid, end, target, pole)]
    r = two_bone_ik(root, mid, end, target, pole)
    for v, c in zip((root, mid, end, target, pole), copies):
        assert np.array_equal(v, c)
    readonly = [v.copy() for v in (root, mid, end, target, pole)]
    for v in readonly:
        v.flags.writeable = False
    strided = [np.repeat(v, 2)[::2] for v in (root, mid, end, target, pole)]
    kinds = {
        "lists and tuples": ([0, 0, 0], [1, 1, 0], (2, 0, 0), [1, 0, 1], (0, 1, 0)),
        "int arrays": [v.astype(int) for v in (root, mid, end, target, pole)],
        "float32 arrays": [v.astype(np.float32) for v in (root, mid, end, target, pole)],
        "read-only arrays": readonly,
        "strided views": strided,
    }
    for kind, args in kinds.items():
        got = two_bone_ik(*args)
        assert_pose(got.mid, r.mid, 1e-12, kind)
        assert_pose(got.end, r.end, 1e-12, kind)
        assert got.reached == r.reached and got.mid.dtype == np.float64


def test_results_are_fresh_arrays():
    args = [np.array(v, dtype=float) for v in ([0, 0, 0], [1, 1, 0], [2, 0, 0], [1, 0, 1])]
    r1, r2 = two_bone_ik(*args), two_bone_ik(*args)
    r1.mid[:] = 7.0
    assert not np.shares_memory(r1.mid, r1.end) and r2.mid[0] != 7.0


@pytest.mark.parametrize(
    "kwargs, word",
    [
        (dict(root=(0, 0)), "root"),
        (dict(mid=(0, 0, 0, 0)), "mid"),
        (dict(end=np.zeros((3, 1))), "end"),
        (dict(target=np.zeros((1, 3))), "target"),
        (dict(target=(0, float("nan"), 0)), "target"),
        (dict(mid=np.array([0, np.inf, 0])), "mid"),
        (dict(pole=(0, -np.inf, 0)), "pole"),
        (dict(pole=(1, 2)), "pole"),
        (dict(root="abc"), "root"),
        (dict(end=("a", "b", "c")), "end"),
        (dict(root=np.array([1 + 2j, 0, 0])), "root"),
        (dict(eps=0.0), "eps"),
        (dict(eps=float("nan")), "eps"),
        (dict(root=(1e200, 0, 0)), "large"),
        (dict(root=np.zeros(4)), "root"),
        (dict(pole=np.array([0.0, np.nan, 0.0])), "pole"),
        (dict(eps="small"), "eps"),
        (dict(eps=-1e-6), "eps"),
    ],
)
def test_bad_input_raises_value_error_naming_it(kwargs, word):
    args = dict(root=(0, 0, 0), mid=(1, 0, 0), end=(2, 0, 0), target=(1, 1, 0), pole=None)
    args.update(kwargs)
    eps = args.pop("eps", 1e-6)
    with pytest.raises(ValueError, match=word):
        two_bone_ik(**args, eps=eps)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["root", "mid", "end", "target", "pole"]),
    st.integers(0, 2),
    st.sampled_from([math.nan, math.inf, -math.inf]),
    st.booleans(),
)
def test_any_non_finite_coordinate_raises_naming_its_argument(field, axis, value, as_array):
    args = dict(root=[0.1, 0.2, 0.3], mid=[1.0, 0.5, 0.0], end=[2.0, 0.0, 0.1], target=[1.0, 1.0, 0.0], pole=[0.0, 0.0, 1.0])
    args[field][axis] = value
    if as_array:
        args = {k: np.array(v) for k, v in args.items()}
    with pytest.raises(ValueError, match=f"{field} has non-finite"):
        two_bone_ik(**args)


# --- properties ----------------------------------------------------------------------------

def _check_limb(root, mid, end, target, r, pole=None, rel=1e-12):
    """Everything the contract promises for one solve (eps = the default 1e-6); bone
    lengths kept to `rel` (1e-9, and 1e-12 on limbs of ordinary scale)."""
    root, mid, end, target = (np.asarray(v, dtype=float) for v in (root, mid, end, target))
    assert np.all(np.isfinite(r.mid)) and np.all(np.isfinite(r.end))
    a, b = np.linalg.norm(mid - root), np.linalg.norm(end - mid)
    d = np.linalg.norm(target - root)
    # Positions carry absolute round-off ~1e-16 of their magnitude; lengths can't beat it.
    slack = 1e-14 * (np.abs(root).max() + a + b + d)
    assert abs(np.linalg.norm(r.mid - root) - a) <= rel * a + slack
    assert abs(np.linalg.norm(r.end - r.mid) - b) <= rel * b + slack
    # On the boundary itself the flag may go either way by an ulp of the distances.
    margin = 1e-12 * (a + b + d)
    if abs(a - b) + margin < d < a + b - margin:
        assert r.reached is True
    if d < abs(a - b) - margin or d > a + b + margin:
        assert r.reached is False
    if abs(a - b) <= d <= a + b:
        # eps (1e-6 m), or round-off where the numbers are so large that it is more.
        assert np.linalg.norm(r.end - target) <= max(1e-6, slack)
    if not abs(a - b) <= d <= a + b:
        # Out of range either way: the end is as near the target as the limb allows
        # (straight beyond reach, folded inside |a - b|)...
        want = a + b if d > a + b else abs(a - b)
        assert abs(np.linalg.norm(r.end - root) - want) <= 1e-9 * (a + b) + slack
        if d > 1e-6 * (a + b):
            # ... and on the reach line, when the target is far enough off the root for
            # its direction to mean something.
            t = target - root
            u = t / np.abs(t).max()
            u /= np.linalg.norm(u)
            assert_pose(r.end, root + want * u, 1e-9 * (a + b) + slack, "end out of range")
            if d > a + b:
                assert_pose(r.mid, root + a * u, 1e-9 * (a + b) + slack, "straight mid")


def _unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


coord = st.floats(-1.0, 1.0, allow_nan=False)
direction = st.tuples(coord, coord, coord).filter(lambda v: np.linalg.norm(v) > 0.1).map(_unit)
scale = st.floats(-2.0, 2.0).map(lambda e: 10.0**e)  # 1 cm to 100 m


@st.composite
def limbs(draw, with_pole=None):
    s = draw(scale)
    a = s * draw(st.floats(0.05, 1.0))
    b = s * draw(st.floats(0.05, 1.0))
    root = np.array(draw(st.tuples(coord, coord, coord))) * s * draw(st.sampled_from([0.0, 1.0, 20.0]))
    mid = root + a * draw(direction)
    end = mid + b * draw(direction)
    reach = draw(st.floats(0.0, 1.6)) * (a + b)
    target = root + reach * draw(direction)
    pole = None
    if with_pole or (with_pole is None and draw(st.booleans())):
        pole = root + s * draw(st.floats(0.1, 3.0)) * draw(direction)
    return root, mid, end, target, pole


@settings(max_examples=400, deadline=None)
@given(limbs())
def test_random_limbs_keep_lengths_and_hit_reachable_targets(limb):
    root, mid, end, target, pole = limb
    r = two_bone_ik(root, mid, end, target, pole)
    _check_limb(root, mid, end, target, r, pole)


@settings(max_examples=300, deadline=None)
@given(limbs(with_pole=True))
def test_mid_lies_in_the_pole_plane_on_the_pole_side(limb):
    root, mid, end, target, pole = limb
    a, b = np.linalg.norm(mid - root), np.linalg.norm(end - mid)
    t = target - root
    d = np.linalg.norm(t)
    # Strictly inside the reach (so the limb bends visibly) and a pole clearly off the line.
    assume(abs(a - b) + 1e-3 * (a + b) < d < (1 - 1e-3) * (a + b))
    u = t / d
    p = pole - root
    p_perp = p - p.dot(u) * u
    assume(np.linalg.norm(p_perp) > 1e-3 * np.linalg.norm(p))
    r = two_bone_ik(root, mid, end, target, pole)
    normal = _unit(np.cross(u, p_perp))
    m = r.mid - root
    assert abs(m.dot(normal)) <= 1e-9 * a
    assert m.dot(p_perp) > 0.0


@settings(max_examples=200, deadline=None)
@given(limbs(with_pole=False), st.floats(0.05, 1.5))
def test_no_pole_target_in_the_bend_plane_keeps_plane_and_side(limb, along):
    root, mid, end, _, _ = limb
    n0 = np.cross(mid - root, end - mid)
    a, b = np.linalg.norm(mid - root), np.linalg.norm(end - mid)
    assume(np.linalg.norm(n0) > 1e-3 * a * b)  # clearly bent
    # A target in the current plane: a mix of the two bone directions.
    target = root + along * ((mid - root) + 0.7 * (end - mid))
    assume(np.linalg.norm(target - root) > 1e-3 * (a + b))
    r = two_bone_ik(root, mid, end, target)
    n1 = np.cross(r.mid - root, r.end - r.mid)
    if np.linalg.norm(n1) > 1e-6 * a * b:  # still bent (not straight or folded)
        assert n1.dot(n0) / (np.linalg.norm(n1) * np.linalg.norm(n0)) > 1 - 1e-9


@settings(max_examples=200, deadline=None)
@given(
    scale,
    st.sampled_from(["target on root", "collinear limb", "pole on axis", "zero upper", "zero lower", "both zero"]),
    direction,
    direction,
    st.floats(0.1, 1.0),
    st.floats(0.1, 1.0),
)
def test_degenerate_limbs_at_every_scale(s, kind, d1, d2, fa, fb):
    a, b = s * fa, s * fb
    root = np.array([0.3, -0.2, 0.1]) * s
    if kind == "zero upper":
        a = 0.0
    if kind in ("zero lower",):
        b = 0.0
    if kind == "both zero":
        a = b = 0.0
    dirs = [d1, d1] if kind in ("collinear limb", "pole on axis") else [d1, d2]
    mid, end = chain_points([a, b], dirs, origin=root)[1:]
    target = root.copy() if kind == "target on root" else root + 0.6 * (a + b + s) * d1
    pole = root + 2.0 * s * d1 if kind == "pole on axis" else None
    r = two_bone_ik(root, mid, end, target, pole)
    _check_limb(root, mid, end, target, r, pole)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([1e-100, 1e-60, 1e60, 1e100, 1e140]), limbs())
def test_extreme_scales_keep_the_contract(s, limb):
    """Limbs of 1e-100 m to 1e140 m: the triangle's fourth powers of lengths would under- or
    overflow, the solve must not (no NaN, lengths kept to 1e-9 relative)."""
    root, mid, end, target, pole = (None if v is None else v * s for v in limb)
    r = two_bone_ik(root, mid, end, target, pole)
    _check_limb(root, mid, end, target, r, pole, rel=1e-9)
