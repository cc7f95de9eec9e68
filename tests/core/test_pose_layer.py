"""The pose layer under the IK (issue 25): set_rotation / rotation / pose_layer, seen by
Rig.solve, full body and IK/FK matching; chains overrule it at weight 1, show it at 0."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.clip import Clip
from rigedit.core.pose_layer import PoseLayer
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Pose
from rigedit.core.transforms import quat_mul, quat_normalize

unit = st.floats(-1.0, 1.0, allow_nan=False)
quats = st.tuples(unit, unit, unit, unit).filter(lambda q: np.linalg.norm(q) > 0.2).map(
    lambda q: tuple(np.asarray(q) / np.linalg.norm(q))
)


def same_rotation(a, b, tol=1e-12) -> bool:
    return abs(abs(float(np.dot(a, b))) - 1.0) < tol


def fk_with(rig: Rig, pose: Pose, joint: str, q) -> np.ndarray:
    """World positions of `pose` with one joint's local rotation replaced: what FK predicts."""
    rot = pose.rotations.copy()
    rot[rig.skeleton.index(joint)] = q
    return rig.skeleton.fk_matrices(Pose(rot, pose.translations.copy()))[0]


@pytest.fixture(scope="module")
def humanoid() -> Rig:
    rig = Rig.default()
    rig.solve()
    return rig


@settings(max_examples=25, deadline=None)
@given(q=quats, joint=st.sampled_from(["Head", "LeftHand", "RightToeBase", "LeftShoulder"]))
def test_a_joint_outside_every_chain_moves_its_children_as_fk_predicts(humanoid, q, joint):
    rig = humanoid.copy()
    for ch in rig.chains:
        if joint == "LeftShoulder":
            ch.weight = 0.0  # the arm chain hangs below: at weight 0 it follows FK too
    rig.solve()
    before = rig.pose
    rig.set_rotation(joint, q)
    assert same_rotation(rig.rotation(joint), q)  # before the solve: the layer's
    rig.solve()
    assert same_rotation(rig.rotation(joint), q)
    expected = fk_with(rig, before, joint, q)
    assert np.allclose(rig.world_positions(), expected, atol=1e-9, rtol=0)


def test_a_joint_inside_a_chain_is_overruled_at_weight_1_and_shown_at_weight_0(humanoid):
    rig = humanoid.copy()
    target = rig.chain("left_arm").target.copy()
    q = quat_normalize(np.array([0.3, 0.2, -0.4, 0.8]))
    rig.set_rotation("LeftForeArm", q)
    rig.solve()
    assert not same_rotation(rig.rotation("LeftForeArm"), q, 1e-6)
    assert np.linalg.norm(rig.world_position("LeftHand") - target) < 1e-3  # the IK still holds the hand
    before = rig.pose
    rig.chain("left_arm").weight = 0.0
    rig.solve()
    assert same_rotation(rig.rotation("LeftForeArm"), q)
    hand = rig.skeleton.index("LeftHand")
    expected = rig.skeleton.fk_matrices(rig.animated_pose())[0][hand]
    assert np.allclose(rig.world_position("LeftHand"), expected, atol=1e-9, rtol=0)
    assert not np.allclose(before.rotations, rig.pose.rotations)


def test_the_layer_adds_to_the_clip_and_follows_its_motion(humanoid):
    rig = humanoid.copy()
    n = len(rig.skeleton)
    rng = np.random.default_rng(4)
    rot = quat_normalize(np.tile(rig.skeleton.rest_rotations, (3, 1, 1)) + 0.2 * rng.normal(size=(3, n, 4)))
    rig.clip = Clip(rot, np.tile(rig.skeleton.offsets, (3, 1, 1)), 1.0 / 30)
    head = rig.skeleton.index("Head")
    q = quat_normalize(np.array([0.1, 0.5, 0.0, 0.9]))
    rig.set_rotation("Head", q)
    delta = rig.pose_layer.rotation_at("Head", 0.0)
    rig.solve()
    assert same_rotation(rig.rotation("Head"), q)
    rig.time = 2.0 / 30  # unkeyed, the delta holds: the clip's motion goes on under it
    rig.solve()
    assert same_rotation(rig.rotation("Head"), quat_mul(rot[2, head], delta))


def test_full_body_sees_the_layer(humanoid):
    rig = humanoid.copy()
    rig.full_body = True
    rig.solve()
    q = quat_normalize(np.array([0.0, 0.0, 0.38, 0.92]))
    before = rig.pose
    rig.set_rotation("Head", q)
    rig.solve()
    assert same_rotation(rig.rotation("Head"), q)
    hips = rig.skeleton.index("Hips")
    assert np.allclose(rig.pose.translations[hips], before.translations[hips], atol=1e-9)


def test_putting_a_layer_back_undoes_the_edit(humanoid):
    rig = humanoid.copy()
    before, shown = rig.pose_layer, rig.world_positions()
    rig.set_rotation("Head", (0.0, 0.7071067811865476, 0.0, 0.7071067811865476))
    rig.solve()
    assert not np.allclose(rig.world_positions(), shown, atol=1e-6)
    rig.pose_layer = before
    rig.solve()
    assert np.allclose(rig.world_positions(), shown, atol=1e-9, rtol=0)
    assert rig.pose_layer == PoseLayer()


def test_match_fk_to_ik_keeps_the_shown_pose_with_a_layer(humanoid):
    rig = humanoid.copy()
    rig.set_rotation("LeftShoulder", quat_normalize(np.array([0.0, 0.2, 0.1, 0.97])))
    rig.set_rotation("LeftForeArm", quat_normalize(np.array([0.3, 0.0, 0.0, 0.95])))
    rig.solve()
    shown = rig.world_positions()
    rig.match_fk_to_ik("left_arm")
    rig.chain("left_arm").weight = 0.0
    rig.solve()
    assert np.allclose(rig.world_positions(), shown, atol=1e-9, rtol=0)


def test_bad_input_names_the_problem(humanoid):
    rig = humanoid.copy()
    with pytest.raises(KeyError):
        rig.set_rotation("Tail", (0, 0, 0, 1))
    with pytest.raises(ValueError, match="quaternion"):
        rig.set_rotation("Head", (0, 0, 0, 0))
    with pytest.raises(ValueError, match="quaternion"):
        rig.set_rotation("Head", (0, float("nan"), 0, 1))
    with pytest.raises(ValueError, match="'Tail'"):
        rig.pose_layer = PoseLayer().with_rotation("Tail", (0, 0, 0, 1), 0.0)
    with pytest.raises(TypeError):
        rig.pose_layer = {}


def test_a_copy_has_the_layer_and_edits_stay_apart(humanoid):
    rig = humanoid.copy()
    rig.set_rotation("Head", (0.0, 0.0, 0.38268343236508984, 0.9238795325112867))
    other = rig.copy()
    assert other.pose_layer == rig.pose_layer
    other.set_rotation("Head", (0.0, 0.0, 0.0, 1.0))
    assert other.pose_layer != rig.pose_layer
