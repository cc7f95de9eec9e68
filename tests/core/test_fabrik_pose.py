"""solve_fabrik_pose(): FABRIK on a skeleton, written back as joint rotations."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.core.ik import ConeLimit, HingeLimit, fabrik, solve_fabrik_pose
from rigedit.core.skeleton import Skeleton
from tests.core.fabrik_strategies import assert_lengths_kept, bone_lengths
from tests.core.test_limits import violation_deg

# The shared data sits beside the clone (CI) or at /work/shared (developers' machines).
DATA = next((d for d in (Path(__file__).resolve().parents[3] / "shared" / "data", Path("/work/shared/data")) if d.is_dir()),
            Path("/work/shared/data"))


def leg_skeleton():
    """Hips with a spine and a leg (thigh, shin, foot) hanging down, facing +Z."""
    return Skeleton.from_joints(
        [
            ("Hips", None, (0.0, 1.0, 0.0)),
            ("Spine", "Hips", (0.0, 0.2, 0.0)),
            ("LeftUpLeg", "Hips", (0.1, -0.05, 0.0)),
            ("LeftLeg", "LeftUpLeg", (0.0, -0.45, 0.0)),
            ("LeftFoot", "LeftLeg", (0.0, -0.45, 0.0)),
            ("LeftToe", "LeftFoot", (0.0, -0.05, 0.12)),
        ]
    )


LEG = ["LeftUpLeg", "LeftLeg", "LeftFoot"]
KNEE = HingeLimit((1.0, 0.0, 0.0), 0.0, 150.0)


def test_solve_writes_rotations_that_fk_turns_into_the_solved_points():
    skel = leg_skeleton()
    pose = skel.rest_pose()
    target = np.array([0.1, 0.35, 0.3])
    new, r = solve_fabrik_pose(skel, pose, LEG, target, tolerance=1e-4, max_iterations=50)
    assert r.reached
    pos, _ = skel.fk(new)
    idx = [skel.index(j) for j in LEG]
    np.testing.assert_allclose(pos[idx], r.points, atol=1e-9)
    # Only the chain's joints turned (the tip's rotation is left alone too: no bone leaves it
    # in the chain); the root's translation and everything off the chain are untouched.
    turned = np.nonzero(np.any(np.abs(new.rotations - pose.rotations) > 1e-12, axis=1))[0]
    assert set(turned.tolist()) <= {skel.index("LeftUpLeg"), skel.index("LeftLeg")}
    np.testing.assert_array_equal(new.translations, pose.translations)
    np.testing.assert_allclose(pos[skel.index("Spine")], skel.fk(pose)[0][skel.index("Spine")])


def test_the_knee_limit_holds_in_the_written_pose():
    skel = leg_skeleton()
    for target in ([0.1, 0.4, 0.3], [0.1, 0.4, -0.3], [0.4, 0.3, 0.1], [0.1, 1.0, 0.0]):
        new, r = solve_fabrik_pose(skel, skel.rest_pose(), LEG, target, limits={"LeftLeg": KNEE}, max_iterations=50)
        pos, rot = skel.fk(new)
        thigh = pos[skel.index("LeftLeg")] - pos[skel.index("LeftUpLeg")]
        shin = pos[skel.index("LeftFoot")] - pos[skel.index("LeftLeg")]
        assert violation_deg(KNEE, thigh, rot[skel.index("LeftUpLeg")], shin) <= 1e-6, target
    # A target behind the leg is reached by bending the knee back, as the hinge allows.
    new, r = solve_fabrik_pose(skel, skel.rest_pose(), LEG, [0.1, 0.4, -0.3], limits={"LeftLeg": KNEE})
    assert r.reached


def test_a_limit_on_the_chain_root_is_measured_against_its_parent_bone():
    skel = leg_skeleton()
    hip_cone = ConeLimit(20.0)
    new, r = solve_fabrik_pose(skel, skel.rest_pose(), LEG, [0.6, 0.5, 0.3], limits={"LeftUpLeg": hip_cone})
    pos, _ = skel.fk(new)
    parent_bone = pos[skel.index("LeftUpLeg")] - pos[skel.index("Hips")]
    thigh = pos[skel.index("LeftLeg")] - pos[skel.index("LeftUpLeg")]
    assert violation_deg(hip_cone, parent_bone, None, thigh) <= 1e-6
    with pytest.raises(ValueError, match="no parent bone"):
        solve_fabrik_pose(skel, skel.rest_pose(), ["Hips", "LeftUpLeg", "LeftLeg"], [0, 0, 0], limits={"Hips": hip_cone})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_warm_points_only_lend_their_directions(seed):
    rng = np.random.default_rng(seed)
    skel = leg_skeleton()
    idx = [skel.index(j) for j in LEG]
    warm = np.cumsum(rng.normal(size=(3, 3)), axis=0)  # wrong lengths on purpose
    target = skel.fk(skel.rest_pose())[0][idx[0]] + rng.normal(size=3) * 0.3
    new, r = solve_fabrik_pose(skel, skel.rest_pose(), LEG, target, warm_points=warm, limits={"LeftLeg": KNEE})
    pos, rot = skel.fk(new)
    np.testing.assert_allclose(pos[idx], r.points, atol=1e-9)
    assert_lengths_kept(r.points, np.array([0.45, 0.45]))
    thigh, shin = np.diff(pos[idx], axis=0)
    assert violation_deg(KNEE, thigh, rot[idx[0]], shin) <= 1e-6


def test_joints_by_index_and_mistakes():
    skel = leg_skeleton()
    idx = [skel.index(j) for j in LEG]
    a, _ = solve_fabrik_pose(skel, skel.rest_pose(), LEG, [0.1, 0.4, 0.2])
    b, _ = solve_fabrik_pose(skel, skel.rest_pose(), idx, [0.1, 0.4, 0.2])
    np.testing.assert_allclose(a.rotations, b.rotations, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="not a child"):
        solve_fabrik_pose(skel, skel.rest_pose(), ["Hips", "LeftLeg"], [0, 0, 0])
    with pytest.raises(KeyError):
        solve_fabrik_pose(skel, skel.rest_pose(), ["Hips", "Nope"], [0, 0, 0])
    with pytest.raises(ValueError, match="at least 2"):
        solve_fabrik_pose(skel, skel.rest_pose(), ["Hips"], [0, 0, 0])
    with pytest.raises(ValueError, match="not in the chain"):
        solve_fabrik_pose(skel, skel.rest_pose(), LEG, [0, 0, 0], limits={"Spine": KNEE})
    with pytest.raises(ValueError, match="warm_points"):
        solve_fabrik_pose(skel, skel.rest_pose(), LEG, [0, 0, 0], warm_points=np.zeros((2, 3)))


def test_a_real_mocap_leg_with_zero_length_joints():
    from rigedit.io.bvh import read_bvh

    imported = read_bvh(DATA / "cmu_12_01_walk.bvh")
    skel = imported.skeleton
    # LHipJoint has a zero-length offset in this file: the chain starts on top of Hips.
    chain = ["Hips", "LHipJoint", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase"]
    pose = skel.rest_pose()
    pos0, _ = skel.fk(pose)
    idx = [skel.index(j) for j in chain]
    lengths = bone_lengths(pos0[idx])
    assert lengths[0] == 0.0
    target = pos0[idx[-1]] + np.array([0.2, 0.3, 0.25]) * lengths.sum()
    limits = {"LeftLeg": ConeLimit(120.0), "LeftFoot": ConeLimit(60.0)}
    new, r = solve_fabrik_pose(skel, pose, chain, target, limits=limits, max_iterations=100, tolerance=1e-3 * lengths.sum())
    pos, _ = skel.fk(new)
    assert np.all(np.isfinite(pos))
    np.testing.assert_allclose(pos[idx], r.points, atol=1e-9 * np.abs(pos0).max())
    assert_lengths_kept(pos[idx], lengths)
    assert r.reached
    plain = fabrik(pos0[idx], target, max_iterations=100, tolerance=1e-3 * lengths.sum())
    assert plain.reached
