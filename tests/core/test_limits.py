"""Joint limits: the clamp on one bone, and limits held by fabrik on whole chains.

Whether a limit holds is checked here from first principles (angles in the parent bone's
frame), and for chains in the skeleton written from the result's frames, so the frames the
solver carries are checked against the ones a rig will really have.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rigedit.core.ik.chain_frames import plan_limits
from rigedit.core.ik import ChainLimits, ConeLimit, HingeLimit, ccd, clamp_bone, fabrik, limit_error_deg
from rigedit.core.ik.fabrik_pose import write_chain_frames
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_conj, quat_mul, quat_normalize, quat_rotate
from tests.core.fabrik_strategies import assert_lengths_kept, assert_result_consistent, bone_lengths, chains, targets, unit

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def violation_deg(limit, parent_dir, parent_frame, bone_dir) -> float:
    """Degrees by which bone_dir breaks the limit (<= 0 when it holds), from the definitions."""
    p, d = unit(parent_dir), unit(bone_dir)
    if isinstance(limit, ConeLimit):
        return math.degrees(angle(p, d)) - limit.max_deg
    axis = quat_rotate(np.asarray(parent_frame, dtype=float), unit(limit.axis))
    a = unit(axis - (axis @ p) * p)
    off_plane = math.degrees(math.asin(min(1.0, abs(d @ a))))
    theta = math.degrees(math.atan2(d @ np.cross(a, p), d @ p))
    if limit.min_deg <= theta <= limit.max_deg:
        return off_plane
    # Angles live on a circle: -180 and 180 are one direction.
    return max(off_plane, min(_around(theta, limit.min_deg), _around(theta, limit.max_deg)))


def _around(a: float, b: float) -> float:
    """Degrees between two angles the short way round."""
    g = abs(a - b) % 360.0
    return min(g, 360.0 - g)


def angle(a, b) -> float:
    """Radians between unit vectors; atan2 stays accurate near 0 and pi, where acos does not."""
    return math.atan2(np.linalg.norm(np.cross(a, b)), a @ b)


def random_quat(rng):
    return quat_normalize(rng.normal(size=4))


@st.composite
def limits_for(draw, rng):
    if draw(st.booleans()):
        return ConeLimit(draw(st.floats(0.0, 180.0)))
    lo = draw(st.floats(-180.0, 180.0))
    hi = draw(st.floats(lo, 180.0))
    return HingeLimit(tuple(rng.normal(size=3)), lo, hi)


def test_limit_types_refuse_bad_values():
    for bad in (
        lambda: HingeLimit((0.0, 0.0, 0.0)),
        lambda: HingeLimit((1.0, 0.0)),
        lambda: HingeLimit((1.0, np.nan, 0.0)),
        lambda: HingeLimit(min_deg=10.0, max_deg=5.0),
        lambda: HingeLimit(min_deg=-181.0),
        lambda: HingeLimit(max_deg=np.inf),
        lambda: ConeLimit(-1.0),
        lambda: ConeLimit(180.5),
        lambda: ConeLimit(np.nan),
    ):
        with pytest.raises(ValueError):
            bad()
    assert HingeLimit([0, 0, 2], -10, 20).axis == (0.0, 0.0, 2.0)  # stored as a hashable tuple


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.data())
def test_clamp_bone_gives_the_nearest_allowed_direction(seed, data):
    rng = np.random.default_rng(seed)
    limit = data.draw(limits_for(rng))
    parent = rng.normal(size=3) * 10.0 ** rng.uniform(-2, 2)
    frame = random_quat(rng)
    if isinstance(limit, HingeLimit):
        axis = quat_rotate(frame, unit(limit.axis))
        assume(np.linalg.norm(np.cross(axis, unit(parent))) > 1e-3)
    bone = rng.normal(size=3) * data.draw(st.sampled_from([0.0, 1e-3, 1.0, 100.0]))
    c = clamp_bone(limit, parent, frame, bone)
    assert c.shape == (3,) and np.all(np.isfinite(c))
    assert abs(np.linalg.norm(c) - 1.0) < 1e-12
    assert violation_deg(limit, parent, frame, c) <= 1e-7
    np.testing.assert_allclose(clamp_bone(limit, parent, frame, c), c, atol=1e-12)  # idempotent
    if not np.any(bone):
        return
    # Nearer to the wanted direction than any allowed direction we can construct.
    p = unit(parent)
    if isinstance(limit, ConeLimit):
        w = np.cross(p, rng.normal(size=(64, 3)))
        w /= np.linalg.norm(w, axis=1, keepdims=True)
        ang = np.radians(rng.uniform(0.0, limit.max_deg, 64))
    else:
        a = unit(axis - (axis @ p) * p)
        w = np.tile(np.cross(a, p), (64, 1))
        ang = np.radians(rng.uniform(limit.min_deg, limit.max_deg, 64))
    samples = np.cos(ang)[:, None] * p + np.sin(ang)[:, None] * w
    d = unit(bone)
    best = min(angle(s, d) for s in samples)
    assert angle(c, d) <= best + 1e-9
    err = limit_error_deg(limit, parent, frame, bone)
    assert err == pytest.approx(math.degrees(angle(c, d)), abs=1e-6)
    if violation_deg(limit, parent, frame, bone) < -1e-6:
        np.testing.assert_allclose(c, d, atol=1e-9)  # an allowed direction is left alone
        assert err < 1e-6


def test_clamp_bone_refuses_what_has_no_answer():
    with pytest.raises(ValueError, match="parallel"):
        clamp_bone(HingeLimit((0, 1, 0)), [0, 2, 0], None, [1, 0, 0])
    with pytest.raises(ValueError, match="parent"):
        clamp_bone(ConeLimit(10), [0, 0, 0], None, [1, 0, 0])
    with pytest.raises(ValueError):
        clamp_bone("knee", [0, 1, 0], None, [1, 0, 0])


def test_a_knee_bends_one_way():
    knee = HingeLimit((1.0, 0.0, 0.0), 0.0, 150.0)
    down = [0.0, -1.0, 0.0]
    # +X axis, thigh down: positive angles swing the shin toward -Z (back).
    back = clamp_bone(knee, down, None, [0.0, -1.0, -1.0])
    np.testing.assert_allclose(back, unit([0.0, -1.0, -1.0]), atol=1e-12)
    front = clamp_bone(knee, down, None, [0.0, -1.0, 1.0])
    np.testing.assert_allclose(front, down, atol=1e-12)  # straightened, never bent forward
    # Wanting almost straight up (-174 degrees) is nearer 150 than 0 around the circle.
    up = clamp_bone(knee, down, None, [0.0, 1.0, 0.1])
    np.testing.assert_allclose(up, [0.0, math.sqrt(3) / 2, -0.5], atol=1e-12)


# Chains: the solver's frames against a skeleton's.


def skeleton_of(pts, frames, root_dir, root_frame):
    """A skeleton whose FK gives `pts` with world rotations `frames` on the chain joints,
    under a parent joint one unit back along root_dir with rotation root_frame."""
    n = len(pts)
    world = [root_frame] + [frames[k] for k in range(n - 1)] + [frames[-1]]
    positions = [pts[0] - unit(root_dir)] + list(pts)
    offsets = [positions[0]] + [quat_rotate(quat_conj(world[i]), positions[i + 1] - positions[i]) for i in range(n)]
    local = [world[0]] + [quat_mul(quat_conj(world[i]), world[i + 1]) for i in range(n)]
    skel = Skeleton([f"j{i}" for i in range(n + 1)], list(range(-1, n)), offsets, local)
    pos, _ = skel.fk(skel.rest_pose())
    np.testing.assert_allclose(pos[1:], pts, atol=1e-9 * (1 + np.abs(pts).max()))
    return skel


@st.composite
def limited_chains(draw):
    pts, scale = draw(chains(max_points=8))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = len(pts)
    frames = np.array([random_quat(rng) for _ in range(n - 1)])
    root_dir = rng.normal(size=3)
    root_frame = random_quat(rng)
    joints = {}
    for k in draw(st.sets(st.integers(0, n - 1), max_size=n)):
        joints[k] = draw(limits_for(rng))
    return pts, scale, ChainLimits(joints, root_dir=root_dir, root_frame=root_frame, frames=frames)


def _hinge_axes_ok(pts, lim):
    """Hinge axes far enough from their parent bones (the solver refuses parallel ones)."""
    lengths = bone_lengths(pts)
    for k, limit in lim.joints.items():
        if not isinstance(limit, HingeLimit) or k >= len(pts) - 1 or lengths[k] == 0:
            continue
        if k == 0:
            parent, frame = lim.root_dir, lim.root_frame
        else:
            if lengths[k - 1] == 0:
                return False  # its parent direction is inherited; tested elsewhere
            parent, frame = pts[k] - pts[k - 1], lim.frames[k - 1]
        if np.linalg.norm(np.cross(quat_rotate(frame, unit(limit.axis)), unit(parent))) < 1e-3:
            return False
    return True


@pytest.mark.parametrize("solve", [fabrik, ccd], ids=["fabrik", "ccd"])
@SETTINGS
@given(limited_chains(), st.data(), st.sampled_from([0, 1, 5, 30]))
def test_limits_hold_after_the_solve(solve, case, data, max_iterations):
    pts, scale, lim = case
    assume(_hinge_axes_ok(pts, lim))
    target = data.draw(targets(pts))
    before = pts.copy()
    r = solve(pts, target, limits=lim, max_iterations=max_iterations, tolerance=1e-3 * scale)
    np.testing.assert_array_equal(pts, before)
    assert np.array_equal(r.points[0], pts[0])
    assert_result_consistent(r, target, 1e-3 * scale)
    assert_lengths_kept(r.points, bone_lengths(pts))
    if 0.1 <= scale <= 10.0:  # ordinary scale: 1e-12 of each bone (issue 13)
        assert np.all(np.abs(bone_lengths(r.points) - bone_lengths(pts)) <= 1e-12 * bone_lengths(pts))

    n = len(pts)
    lengths = bone_lengths(pts)
    active = [k for k in lim.joints if k < n - 1]
    assert (r.frames is None) == (not active)  # frames come back when a limit was in play
    if r.frames is None:
        return
    # The limits hold in the solver's own frames...
    for k, limit in lim.joints.items():
        if k >= n - 1 or lengths[k] == 0 or (k > 0 and lengths[k - 1] == 0):
            continue
        parent = lim.root_dir if k == 0 else r.points[k] - r.points[k - 1]
        frame = lim.root_frame if k == 0 else r.frames[k - 1]
        bone = r.points[k + 1] - r.points[k]
        assert violation_deg(limit, parent, frame, bone) <= 1e-6, f"joint {k}: {limit}"
    # ...and a skeleton written from those frames has the solved points, and the limits
    # hold in its own world rotations: build one from the start pose and its frames, write
    # the result's frames into it, and read positions and rotations back.
    skel = skeleton_of(pts, lim.frames, lim.root_dir, lim.root_frame)
    rest = skel.rest_pose()
    pose = write_chain_frames(skel, rest, list(range(1, n + 1)), r.frames, skel.fk(rest)[1])
    pos, rot = skel.fk(pose)
    np.testing.assert_allclose(pos[1:], r.points, atol=1e-9 * (1 + np.abs(pts).max()))
    for k, limit in lim.joints.items():
        if k >= n - 1 or lengths[k] == 0 or (k > 0 and lengths[k - 1] == 0):
            continue
        parent = lim.root_dir if k == 0 else pos[k + 1] - pos[k]
        bone = pos[k + 2] - pos[k + 1]
        assert violation_deg(limit, parent, rot[k], bone) <= 1e-6, f"joint {k} in the written skeleton: {limit}"


def test_a_limit_plan_solves_as_the_limits_it_was_made_from():
    # The rig validates a chain's limits once (plan_limits) and passes the plan, with the
    # frames as float tuples, on every frame: the answer must be the dict's (to round-off).
    rng = np.random.default_rng(5)
    pts = np.cumsum(rng.normal(size=(5, 3)) * 0.3, axis=0)
    joints = {1: HingeLimit((1, 0, 0), 0, 150), 2: ConeLimit(40.0), 3: HingeLimit((0, 0, 1), -30, 90)}
    frames = quat_normalize(rng.normal(size=(4, 4)))
    root_dir, root_frame = (0.0, -1.0, 0.0), (0.0, 0.0, 0.0, 1.0)
    plan = plan_limits(joints, len(pts))
    as_tuples = [tuple(q) for q in frames.tolist()]
    for _ in range(5):
        target = pts[0] + rng.normal(size=3) * 0.6
        want = fabrik(pts, target, limits=ChainLimits(joints, root_dir, root_frame, frames), max_iterations=30)
        got = fabrik(pts, target, limits=ChainLimits(plan, root_dir, root_frame, as_tuples), max_iterations=30)
        np.testing.assert_allclose(got.points, want.points, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.errors, want.errors, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.frames, want.frames, rtol=0, atol=1e-12)


def test_a_limit_plan_refuses_a_chain_of_another_length():
    plan = plan_limits({1: ConeLimit(30.0)}, 4)
    pts = np.cumsum(np.ones((5, 3)), axis=0)
    with pytest.raises(ValueError, match="4-point chain"):
        fabrik(pts, pts[0], limits=plan)
    with pytest.raises(ValueError, match="not a joint index"):
        plan_limits({7: ConeLimit(30.0)}, 4)
    assert plan_limits({3: ConeLimit(30.0)}, 4) is None  # on the tip: no bone to limit


def test_default_frames_are_parallel_transport_from_the_root_frame():
    pts = np.array([[0.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, -2.0, 0.0], [0.0, -3.0, 0.0]])
    lim = ChainLimits({1: HingeLimit((1, 0, 0), 0, 150)}, root_dir=(0, -1, 0))
    r = fabrik(pts, pts[-1], limits=lim)
    np.testing.assert_allclose(np.abs(r.frames[:, 3]), 1.0)  # straight along root_dir: all identity
    bent = fabrik(pts, [0.0, -1.5, -1.0], limits=lim, max_iterations=100)
    assert bent.reached
    thigh, shin = np.diff(bent.points, axis=0)[:2]
    frame = bent.frames[0]  # the thigh's frame carries the knee's axis
    assert violation_deg(lim.joints[1], thigh, frame, shin) <= 1e-9


def test_a_leg_reaches_behind_by_bending_its_knee_back():
    leg = np.array([[0.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, -2.0, 0.0]])
    lim = {1: HingeLimit((1.0, 0.0, 0.0), 0.0, 150.0)}
    r = fabrik(leg, [0.0, -1.2, -0.6], limits=ChainLimits(lim, root_dir=(0, -1, 0)))
    assert r.reached
    thigh, shin = np.diff(r.points, axis=0)
    assert np.cross(thigh, shin) @ [1.0, 0.0, 0.0] >= -1e-12  # bent the allowed way


def test_limit_forms_and_mistakes():
    pts = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 2.0, 0.0]])
    cone = ConeLimit(10.0)
    as_list = fabrik(pts, [1.0, 1.0, 0.0], limits=[None, cone, cone])  # the tip's limit is ignored
    as_map = fabrik(pts, [1.0, 1.0, 0.0], limits={1: cone})
    np.testing.assert_allclose(as_list.points, as_map.points, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="root_dir"):
        fabrik(pts, [1.0, 1.0, 0.0], limits={0: cone})
    with pytest.raises(ValueError, match="joint index"):
        fabrik(pts, [1.0, 1.0, 0.0], limits={3: cone})
    with pytest.raises(ValueError, match="joint index"):
        fabrik(pts, [1.0, 1.0, 0.0], limits={"knee": cone})
    with pytest.raises(ValueError, match="HingeLimit or a ConeLimit"):
        fabrik(pts, [1.0, 1.0, 0.0], limits={1: 30.0})
    with pytest.raises(ValueError, match="parallel"):
        fabrik(pts, [1.0, 1.0, 0.0], limits={1: HingeLimit((0, 1, 0))})
    with pytest.raises(ValueError, match="frames"):
        fabrik(pts, [1.0, 1.0, 0.0], limits=ChainLimits({1: cone}, frames=np.zeros((1, 4))))
    with pytest.raises(ValueError, match="root_dir"):
        fabrik(pts, [1.0, 1.0, 0.0], limits=ChainLimits({1: cone}, root_dir=(0, 0, 0)))


def test_start_pose_outside_its_limits_is_brought_inside_first():
    # Already on the target but bent 90 degrees at a 30-degree cone: the limit wins.
    pts = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    r = fabrik(pts, pts[-1], limits={1: ConeLimit(30.0)})
    thigh, shin = np.diff(r.points, axis=0)
    assert violation_deg(ConeLimit(30.0), thigh, None, shin) <= 1e-9
    assert r.error > 0.1
