import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.ik.soft import effective_target, effective_target_float, soft_distance

finite = st.floats(-10.0, 10.0, allow_nan=False)
vec3 = st.tuples(finite, finite, finite).map(np.array)


def mid_joint(root, target, a, b):
    """Exact two-bone mid joint in the plane of root, target and +Y (law of cosines).

    A stand-in for the real solver's geometry: it is what any exact solver must produce for
    a reachable target, and it is the joint whose speed blows up as the limb straightens.
    """
    v = target - root
    d = np.linalg.norm(v, axis=-1, keepdims=True)
    u = v / d
    along = (a * a - b * b + d * d) / (2.0 * d)
    h = np.sqrt(np.maximum(a * a - along * along, 0.0))
    side = np.cross(np.cross(u, [0.0, 1.0, 0.0]), u)
    side = side / np.linalg.norm(side, axis=-1, keepdims=True)
    return root + u * along + side * h


def test_clamp_holds_for_targets_beyond_reach():
    root = np.array([0.1, 1.0, -0.2])
    directions = np.random.default_rng(1).normal(size=(200, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    far = root + directions * np.linspace(0.5, 5.0, 200)[:, None]
    out = effective_target(root, far, 1.0)
    dist = np.linalg.norm(out - root, axis=1)
    assert np.all(dist <= 0.999 + 1e-12)
    beyond = np.linalg.norm(far - root, axis=1) > 0.999
    assert np.allclose(dist[beyond], 0.999)
    # The direction is kept: the limb still points at the real target.
    assert np.allclose((out - root) / dist[:, None], directions)


def test_targets_inside_reach_are_untouched_without_softness():
    root = np.zeros(3)
    t = np.array([[0.3, 0.2, 0.1], [0.0, -0.9, 0.0]])
    assert np.array_equal(effective_target(root, t, 1.0, softness=0.0), t)


def test_off_is_identity_even_beyond_reach():
    rng = np.random.default_rng(2)
    root = rng.normal(size=(50, 3))
    target = rng.normal(size=(50, 3)) * 3
    assert np.array_equal(effective_target(root, target, 0.5, reach_clamp=1.0, softness=0.0), target)


@pytest.mark.parametrize("softness", [0.0, 0.02, 0.05, 0.2])
def test_distance_map_is_monotone_continuous_and_never_longer(softness):
    d = np.linspace(0.0, 3.0, 30001)
    out = soft_distance(d, 1.0, 0.999, softness)
    step = np.diff(out)
    assert np.all(step >= 0.0)
    # Slope <= 1 everywhere: no jump larger than the target's own move.
    assert np.all(step <= np.diff(d) + 1e-12)
    assert np.all(out <= d)
    assert np.all(out <= 0.999)


def test_soft_ik_leaves_the_short_range_alone():
    d = np.linspace(0.0, 0.9, 100)
    assert np.array_equal(soft_distance(d, 1.0, 0.999, 0.05), d)


def test_soft_ik_approaches_the_clamp_smoothly_and_only_asymptotically():
    d = np.array([0.95, 1.0, 1.1, 1.5])
    out = soft_distance(d, 1.0, 0.999, 0.05)
    assert np.all(np.diff(out) > 0.0)
    assert np.all(out < 0.999)
    assert out[-1] > 0.999 - 1e-4


def test_soft_ik_keeps_the_elbow_from_snapping_as_the_target_crosses_full_reach():
    # A 0.5 + 0.5 m limb; the target moves in 0.1 mm steps from well inside to well past reach.
    a = b = 0.5
    root = np.zeros(3)
    xs = np.linspace(0.8, 1.2, 4001)
    target = np.stack([xs, np.zeros_like(xs), np.zeros_like(xs)], axis=1)
    step = xs[1] - xs[0]

    def worst_speed(softness):
        eff = effective_target(root, target, a + b, softness=softness)
        mid = mid_joint(root, eff, a, b)
        end_moves = np.linalg.norm(np.diff(eff, axis=0), axis=1)
        mid_moves = np.linalg.norm(np.diff(mid, axis=0), axis=1)
        # The end effector (the effective target: reachable, so an exact solver hits it)
        # never moves farther than the target itself did.
        assert np.all(end_moves <= step + 1e-12)
        return mid_moves.max() / step

    hard, soft = worst_speed(0.0), worst_speed(0.05)
    # Without softness the elbow races (about 11x the target's speed) just before the clamp;
    # with 5 cm of softness it never moves more than twice as fast as the hand's target.
    assert hard > 5.0
    assert soft < 2.0


def test_vectorised_per_chain_lengths_and_softness():
    root = np.zeros((3, 3))
    target = np.array([[2.0, 0, 0], [0, 2.0, 0], [0, 0, 0.1]])
    lengths = np.array([1.0, 1.5, 1.0])
    soft = np.array([0.0, 0.1, 0.2])
    out = effective_target(root, target, lengths, softness=soft)
    for i in range(3):
        single = effective_target(root[i], target[i], lengths[i], softness=soft[i])
        assert np.array_equal(out[i], single)
    assert np.linalg.norm(out[0]) == pytest.approx(0.999)
    assert np.linalg.norm(out[1]) < 1.5 * 0.999
    assert np.array_equal(out[2], target[2])


def test_target_on_the_root_has_no_nan():
    out = effective_target(np.ones(3), np.ones(3), 1.0, softness=0.1)
    assert np.array_equal(out, np.ones(3))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(chain_length=-1.0), "chain_length"),
        (dict(chain_length=np.nan), "chain_length"),
        (dict(softness=-0.1), "softness"),
        (dict(reach_clamp=0.0), "reach_clamp"),
        (dict(reach_clamp=np.inf), "reach_clamp"),
    ],
)
def test_bad_parameters_are_named(kwargs, match):
    args = dict(chain_length=1.0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        effective_target(np.zeros(3), np.ones(3), **args)


def test_bad_points_are_refused():
    with pytest.raises(ValueError, match="finite"):
        effective_target(np.zeros(3), [np.nan, 0, 0], 1.0)
    with pytest.raises(ValueError, match="3-vector"):
        effective_target(np.zeros(2), np.zeros(2), 1.0)


@settings(max_examples=200, deadline=None)
@given(vec3, vec3, vec3, st.floats(0.01, 5.0), st.floats(0.0, 1.0), st.floats(0.5, 1.0))
def test_effective_target_is_a_contraction(root, t1, t2, length, softness, clamp):
    # Moving the real target by x never moves the effective one by more than x, and the
    # effective target stays on the root -> target ray, within the clamped reach.
    e1 = effective_target(root, t1, length, clamp, softness)
    e2 = effective_target(root, t2, length, clamp, softness)
    assert np.all(np.isfinite(e1))
    assert np.linalg.norm(e1 - e2) <= np.linalg.norm(t1 - t2) + 1e-9
    r1 = np.linalg.norm(e1 - root)
    # (Softness under a nanometre counts as none, so with clamp 1 that is the identity.)
    assert r1 <= max(length * clamp, 0.0) + 1e-9 or (clamp == 1.0 and softness < 1e-9)
    assert r1 <= np.linalg.norm(t1 - root) + 1e-9
    if r1 > 1e-9:
        cos = np.dot(e1 - root, t1 - root) / (r1 * np.linalg.norm(t1 - root))
        assert cos > 1.0 - 1e-9


def test_with_the_real_two_bone_solver():
    # The same crossing of full reach through the project's two_bone_ik (when it is in the
    # tree): the elbow never races, the hand never jumps, the limb never goes straight, so
    # the elbow keeps to the pole's side throughout.
    two_bone = pytest.importorskip("rigedit.core.ik.two_bone")
    root, mid, end = np.zeros(3), np.array([0.0, -0.45, 0.05]), np.array([0.0, -0.9, 0.0])
    pole = np.array([0.0, -0.45, 1.0])
    xs = np.linspace(0.75, 1.2, 4501)
    step = xs[1] - xs[0]
    direction = np.array([0.6, -0.8, 0.0])
    length = np.linalg.norm(mid - root) + np.linalg.norm(end - mid)  # ~0.906 m

    def run(**kw):
        mids, ends = [], []
        m, e = mid, end
        for x in xs:
            r = two_bone.two_bone_ik(root, m, e, effective_target(root, direction * x, length, **kw), pole)
            m, e = r.mid, r.end
            mids.append(m)
            ends.append(e)
        return np.array(mids), np.array(ends)

    mids, ends = run(softness=0.05)
    assert np.all(np.linalg.norm(np.diff(ends, axis=0), axis=1) <= step + 1e-9)
    assert np.linalg.norm(np.diff(mids, axis=0), axis=1).max() / step < 2.0
    off_line = np.linalg.norm(np.cross(mids, direction), axis=1)
    assert off_line.min() > 0.01
    assert np.all(mids[:, 2] > 0.0)
    hard_mids, _ = run(reach_clamp=1.0)
    assert np.linalg.norm(np.diff(hard_mids, axis=0), axis=1).max() / step > 5.0


@given(vec3, vec3, st.floats(0.0, 5.0), st.floats(0.0, 2.0), st.floats(0.5, 1.0))
def test_the_float_path_rig_solve_uses_equals_the_array_path(root, target, length, softness, clamp):
    got = effective_target_float(tuple(root), tuple(target), length, clamp, softness)
    want = effective_target(root, target, length, clamp, softness)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_the_float_path_is_the_identity_when_off_and_on_the_root():
    t = (0.3, 1.2, -0.7)
    assert effective_target_float((0.0, 0.0, 0.0), t, 0.1, 1.0, 0.0) == t  # far out of reach, off
    assert effective_target_float(t, t, 0.5, 0.999, 0.05) == t  # on the root: nothing to move
