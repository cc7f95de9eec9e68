import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.ground import HeightField, flat_ground, ground_feet, pelvis_drop, slope_ground
from rigedit.core.transforms import quat_angle, quat_rotate

ANKLE = 0.08
FLAT, SLOPE = flat_ground(), slope_ground()


def reference_bilinear(field, x, z):
    """A scalar, loop-free-of-numpy-tricks bilinear lookup to check the vectorised one."""
    h = field.heights
    nz, nx = h.shape
    gx = min(max((x - field.origin[0]) / field.spacing, 0.0), nx - 1)
    gz = min(max((z - field.origin[1]) / field.spacing, 0.0), nz - 1)
    i = min(int(gx), nx - 2)
    k = min(int(gz), nz - 2)
    fx, fz = gx - i, gz - k
    return (
        h[k, i] * (1 - fx) * (1 - fz)
        + h[k, i + 1] * fx * (1 - fz)
        + h[k + 1, i] * (1 - fx) * fz
        + h[k + 1, i + 1] * fx * fz
    )


def synthetic_walk(frames=600, stride=0.6, ankle=ANKLE, lift=0.12):
    """Two feet walking along +z (with a drift in x): each is planted at ankle height for half
    its cycle and swings forward for the other half. Returns (frames, 2, 3) and planted flags."""
    t = np.linspace(0.0, 12.0, frames)
    feet = np.zeros((frames, 2, 3))
    planted = np.zeros((frames, 2), bool)
    for leg, phase0 in enumerate((0.0, 0.5)):
        phase = (t + phase0) % 1.0
        cycles = np.floor(t + phase0)
        swing = phase >= 0.5
        s = np.where(swing, (phase - 0.5) * 2.0, 0.0)
        feet[:, leg, 2] = -4.0 + stride * (cycles + s) - stride * phase0
        feet[:, leg, 0] = (-0.12 if leg == 0 else 0.12) - 3.0 + 0.4 * t
        feet[:, leg, 1] = ankle + lift * np.sin(np.pi * s)
        planted[:, leg] = ~swing
    return feet, planted


def test_bilinear_matches_a_scalar_reference_on_the_bundled_slope():
    field = slope_ground()
    rng = np.random.default_rng(0)
    pts = rng.uniform(-11.0, 11.0, size=(500, 2))  # a little outside the 20 m map too
    got = field.height(pts[:, 0], pts[:, 1])
    want = [reference_bilinear(field, x, z) for x, z in pts]
    assert np.allclose(got, want, atol=1e-12)


def test_a_tilted_plane_is_reproduced_exactly_with_its_normal():
    # Bilinear interpolation reproduces any plane, so height and normal are known in closed form.
    xs = np.arange(6) * 0.5 - 1.0
    zs = np.arange(5) * 0.5 + 2.0
    X, Z = np.meshgrid(xs, zs)
    field = HeightField(0.3 * X - 0.2 * Z + 1.0, 0.5, (-1.0, 2.0))
    x = np.array([-0.7, 0.1, 1.3])
    z = np.array([2.2, 3.9, 2.5])
    assert np.allclose(field.height(x, z), 0.3 * x - 0.2 * z + 1.0)
    n = np.array([-0.3, 1.0, 0.2]) / np.linalg.norm([-0.3, 1.0, 0.2])
    assert np.allclose(field.normal(x, z), n)


def test_normal_is_the_gradient_of_the_height():
    field = slope_ground()
    rng = np.random.default_rng(3)
    # Points away from cell edges, where the bilinear surface is smooth.
    cells = rng.integers(-150, 150, size=(300, 2))
    frac = rng.uniform(0.2, 0.8, size=(300, 2))
    p = (cells + frac) * field.spacing
    e = 1e-6
    x, z = p[:, 0], p[:, 1]
    dhdx = (field.height(x + e, z) - field.height(x - e, z)) / (2 * e)
    dhdz = (field.height(x, z + e) - field.height(x, z - e)) / (2 * e)
    want = np.stack([-dhdx, np.ones_like(dhdx), -dhdz], axis=1)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    assert np.allclose(field.normal(x, z), want, atol=1e-6)


@settings(max_examples=200, deadline=None)
@given(st.floats(-30, 30), st.floats(-30, 30))
def test_normals_are_unit_and_point_up(x, z):
    for field in (FLAT, SLOPE):
        n = field.normal(x, z)
        assert abs(np.linalg.norm(n) - 1.0) < 1e-12
        assert n[1] > 0.0


def test_outside_the_grid_the_edge_extends():
    field = slope_ground(size=4.0, spacing=0.1)
    assert field.height(100.0, 0.3) == pytest.approx(field.height(2.0, 0.3))
    assert field.height(-0.4, -100.0) == pytest.approx(field.height(-0.4, -2.0))
    assert np.allclose(field.normal(100.0, 100.0), [0.0, 1.0, 0.0])


def test_flat_ground_is_flat():
    field = flat_ground(height=0.25)
    pts = np.random.default_rng(5).uniform(-50, 50, size=(100, 2))
    assert np.allclose(field.height(pts[:, 0], pts[:, 1]), 0.25)
    assert np.allclose(field.normal(pts[:, 0], pts[:, 1]), [0, 1, 0])


def test_the_slope_has_the_features_it_promises():
    field = slope_ground()
    # 5 degree rise along x, a 12 cm step at z = 1.
    assert field.height(1.0, -6.0) - field.height(0.0, -6.0) == pytest.approx(np.tan(np.radians(5)), abs=1e-3)
    assert field.height(5.0, 1.2) - field.height(5.0, 0.8) == pytest.approx(0.12, abs=1e-3)


@pytest.mark.parametrize("field", [flat_ground(), slope_ground()], ids=["flat", "slope"])
def test_grounded_walk_plants_feet_on_the_terrain(field):
    feet, planted = synthetic_walk()
    g = ground_feet(field, feet, ANKLE)
    terrain = np.vectorize(lambda x, z: reference_bilinear(field, x, z))(g.targets[..., 0], g.targets[..., 2])
    sole = g.targets[..., 1] - ANKLE
    # Planted feet stand on the terrain within 1 mm; swinging feet are never under it.
    assert np.all(np.abs(sole[planted] - terrain[planted]) <= 1e-3)
    assert np.all(sole >= terrain - 1e-3)
    # The lift of a swinging foot is kept over the terrain, and x/z never slide.
    lift = feet[..., 1] - ANKLE
    assert np.allclose(sole - terrain, lift, atol=1e-9)
    assert np.array_equal(g.targets[..., [0, 2]], feet[..., [0, 2]])
    assert np.allclose(np.linalg.norm(g.normals, axis=-1), 1.0)
    assert np.allclose(np.linalg.norm(g.sole_rotations, axis=-1), 1.0)


def test_sole_turns_onto_the_ground_normal_within_the_limit():
    xs = np.arange(3) * 1.0
    X, Z = np.meshgrid(xs, xs)
    gentle = HeightField(np.tan(np.radians(10)) * X, 1.0)
    steep = HeightField(np.tan(np.radians(50)) * X, 1.0)
    foot = np.array([1.0, ANKLE, 1.0])
    g = ground_feet(gentle, foot, ANKLE, max_tilt_deg=30)
    assert np.allclose(quat_rotate(g.sole_rotations, [0, 1, 0]), g.normals, atol=1e-12)
    g = ground_feet(steep, foot, ANKLE, max_tilt_deg=30)
    up = quat_rotate(g.sole_rotations, [0, 1, 0])
    assert np.degrees(np.arccos(up[1])) == pytest.approx(30.0)
    # Tilted toward the slope's normal, not some other way.
    assert np.dot(np.cross([0, 1, 0], up), np.cross([0, 1, 0], g.normals)) > 0


def test_sole_tilt_fades_as_the_foot_lifts():
    xs = np.arange(3) * 1.0
    X, _ = np.meshgrid(xs, xs)
    field = HeightField(np.tan(np.radians(10)) * X, 1.0)
    heights = ANKLE + np.array([0.0, 0.05, 0.1, 0.3])
    feet = np.stack([np.ones(4), heights, np.ones(4)], axis=1)
    angles = np.degrees(quat_angle(ground_feet(field, feet, ANKLE, tilt_fade=0.1).sole_rotations))
    assert angles == pytest.approx([10.0, 5.0, 0.0, 0.0], abs=1e-9)


def test_pelvis_drop_makes_both_legs_reach_and_is_the_least_that_does():
    # One foot on a step 15 cm lower than the other: the lower foot decides.
    hips = np.array([[-0.1, 0.95, 0.0], [0.1, 0.95, 0.0]])
    targets = np.array([[-0.1, 0.08, 0.1], [0.1, -0.07, -0.1]])
    legs = np.array([0.9, 0.9])
    drop = pelvis_drop(hips, targets, legs)
    assert drop > 0.0
    new_hips = hips - [0.0, drop, 0.0]
    reach = np.linalg.norm(targets - new_hips, axis=1)
    assert np.all(reach <= 0.999 * legs + 1e-12)
    less = hips - [0.0, drop - 1e-3, 0.0]
    assert np.any(np.linalg.norm(targets - less, axis=1) > 0.999 * legs)


def test_no_drop_when_both_legs_already_reach():
    hips = np.array([[-0.1, 0.8, 0.0], [0.1, 0.8, 0.0]])
    targets = np.array([[-0.1, 0.08, 0.1], [0.1, 0.08, -0.1]])
    assert pelvis_drop(hips, targets, 0.9) == 0.0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-0.3, 0.3), st.floats(-0.5, 0.5), st.floats(-0.3, 0.3)), min_size=2, max_size=6),
    st.floats(0.5, 1.2),
)
def test_pelvis_drop_property(foot_offsets, leg):
    n = len(foot_offsets)
    hips = np.stack([np.linspace(-0.2, 0.2, n), np.full(n, 1.0), np.zeros(n)], axis=1)
    targets = hips + np.array(foot_offsets) - [0.0, 1.0, 0.0]
    drop = pelvis_drop(hips, targets, leg)
    assert np.isfinite(drop) and drop >= 0.0

    def all_reach(dr):
        return np.all(np.linalg.norm(targets - (hips - [0.0, dr, 0.0]), axis=1) <= 0.999 * leg + 1e-9)

    # Either every leg reaches after the drop, or no drop at all (scanned in 0.1 mm steps)
    # would have made them all reach.
    if not all_reach(drop):
        drops = np.arange(0.0, 3.0, 1e-4)[:, None, None] * [0.0, 1.0, 0.0]
        dist = np.linalg.norm(targets - (hips - drops), axis=2)
        assert not np.any(np.all(dist <= 0.999 * leg + 1e-9, axis=1))
    # And it is the least drop that works: 1 mm less leaves a leg short.
    elif drop > 1e-3:
        assert not all_reach(drop - 1e-3)


def test_pelvis_drop_splits_the_miss_when_no_drop_serves_both_legs():
    hips = np.array([[0.0, 1.0, 0.0], [0.2, 1.0, 0.0]])
    targets = np.array([[0.0, 1.5, 0.0], [0.2, 0.0, 0.0]])  # 0.5 m above, 1 m below
    drop = pelvis_drop(hips, targets, 0.5, reach_clamp=1.0)
    miss = np.linalg.norm(targets - (hips - [0.0, drop, 0.0]), axis=1) - 0.5
    assert miss[0] == pytest.approx(miss[1]) and miss[0] > 0.0


def test_walk_on_the_slope_with_pelvis_drop():
    # End to end: ground a walk over the steps, then lower a pelvis whose hips ride at a
    # fixed height over the flat reference; every planted foot is reachable after the drop.
    field = slope_ground()
    feet, planted = synthetic_walk()
    g = ground_feet(field, feet, ANKLE)
    hips = feet.copy()
    hips[..., 1] = 0.9
    hips[..., 2] = feet[..., 2].mean(axis=1, keepdims=True)
    leg = 0.85
    for f in range(len(feet)):
        drop = pelvis_drop(hips[f], g.targets[f], leg)
        d = np.linalg.norm(g.targets[f] - (hips[f] - [0, drop, 0]), axis=1)
        assert np.all(d <= 0.999 * leg + 1e-9)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(heights=np.zeros((1, 3)), spacing=1.0), "2 x 2"),
        (dict(heights=np.zeros(4), spacing=1.0), "2 x 2"),
        (dict(heights=np.full((2, 2), np.nan), spacing=1.0), "finite"),
        (dict(heights=np.zeros((2, 2)), spacing=0.0), "spacing"),
        (dict(heights=np.zeros((2, 2)), spacing=1.0, origin=(0.0, np.inf)), "origin"),
    ],
)
def test_bad_height_fields_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        HeightField(**kwargs)


def test_bad_lookups_and_grounding_inputs_are_refused():
    field = flat_ground()
    with pytest.raises(ValueError, match="finite"):
        field.height(np.nan, 0.0)
    with pytest.raises(ValueError, match="feet"):
        ground_feet(field, np.zeros(2), ANKLE)
    with pytest.raises(ValueError, match="ankle_height"):
        ground_feet(field, np.zeros(3), -1.0)
    with pytest.raises(ValueError, match="reference_height"):
        ground_feet(field, np.zeros(3), ANKLE, reference_height=np.nan)
    with pytest.raises(ValueError, match="reach_clamp"):
        pelvis_drop(np.zeros((1, 3)), np.zeros((1, 3)), 1.0, reach_clamp=0.0)
    with pytest.raises(ValueError, match="one per hip"):
        pelvis_drop(np.zeros((2, 3)), np.zeros((2, 3)), [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="2 hips but 1 targets"):
        pelvis_drop(np.zeros((2, 3)), np.zeros((1, 3)), 1.0)


def test_a_mocap_walk_grounded_on_the_slope():
    # CMU 12_01 walks 3.9 m along +z, up the slope's first step (z = 1 m). Its ankles come to
    # a few cm over its flat floor; planted frames must stand on the terrain, and the legs
    # must reach after the pelvis drop.
    from rigedit.core.skeleton import Pose
    from rigedit.io.bvh import read_bvh

    bvh = read_bvh("/work/shared/data/cmu_12_01_walk.bvh")
    skel, clip = bvh.skeleton, bvh.clip
    pos, _ = skel.fk(Pose(clip.rotations, clip.translations))
    ankles = pos[:, [skel.index("LeftFoot"), skel.index("RightFoot")]]
    hips = pos[:, [skel.index("LeftUpLeg"), skel.index("RightUpLeg")]]
    legs = np.array([
        sum(np.linalg.norm(skel.offsets[skel.index(j)]) for j in (side + "Leg", side + "Foot"))
        for side in ("Left", "Right")
    ])
    field = slope_ground()
    # Each ankle's own planted height: the lowest fifth of its frames count as planted.
    ankle = np.percentile(ankles[..., 1], 20, axis=0)
    targets = np.stack([ground_feet(field, ankles[:, i], ankle[i]).targets for i in range(2)], axis=1)
    sole = targets[..., 1] - ankle
    terrain = field.height_at(targets)
    planted = ankles[..., 1] <= ankle
    assert np.all(planted.sum(axis=0) >= 50)
    assert np.all(np.abs(sole - terrain)[planted] <= 1e-3)
    assert np.all(sole >= terrain - 1e-3)
    for f in range(len(ankles)):
        drop = pelvis_drop(hips[f], targets[f], legs)
        reach = np.linalg.norm(targets[f] - (hips[f] - [0, drop, 0]), axis=1)
        side = np.linalg.norm((targets[f] - hips[f])[:, [0, 2]], axis=1)
        # Legs whose target is within reach sideways reach it after the drop.
        ok = side < 0.999 * legs
        assert np.all(reach[ok] <= 0.999 * legs[ok] + 1e-9)
