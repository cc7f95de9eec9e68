"""Mirror, copy and paste poses (issue 25): partners by names and by position, the plane
found from the rest pose (not assumed at X = 0), the mirrored arm at the mirror images of
the posed one to 1e-9 m, mirroring twice gives the pose back, pasting by weight slerps."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.mirror import mirror_map, symmetry
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.transforms import quat_from_axis_angle, quat_mul, quat_normalize, quat_rotate, quat_slerp
from rigedit.io.loaded import load

DATA = "/work/shared/data"
unit = st.floats(-1.0, 1.0, allow_nan=False)
quats = st.tuples(unit, unit, unit, unit).filter(lambda q: np.linalg.norm(q) > 0.2).map(
    lambda q: tuple(np.asarray(q) / np.linalg.norm(q))
)
LEFT_ARM = ["LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand"]


def free_humanoid() -> Rig:
    rig = Rig.default()
    for ch in rig.chains:
        ch.weight = 0.0
    rig.solve()
    return rig


def names_of(sk: Skeleton, partners) -> dict[str, str]:
    return {sk.names[i]: sk.names[p] for i, p in enumerate(partners)}


@settings(max_examples=20, deadline=None)
@given(qs=st.lists(quats, min_size=4, max_size=4))
def test_mirroring_the_posed_left_arm_puts_the_right_arm_at_its_mirror_images(qs):
    rig = free_humanoid()
    for name, q in zip(LEFT_ARM, qs):
        rig.set_rotation(name, q)
    rig.solve()
    before = rig.world_positions()
    sym = rig.symmetry()
    rig.mirror_pose()
    rig.solve()
    after = rig.world_positions()
    sk = rig.skeleton
    for left in LEFT_ARM + ["LeftHand_End"]:
        right = left.replace("Left", "Right")
        want = sym.reflect_points(before[sk.index(left)])
        assert np.allclose(after[sk.index(right)], want, atol=1e-9, rtol=0), right
        # ... and the left arm took the right's (rest) pose, mirrored
        assert np.allclose(after[sk.index(left)], sym.reflect_points(before[sk.index(right)]), atol=1e-9, rtol=0)


def test_the_arm_chains_overrule_a_mirrored_pose_as_they_overrule_any_other():
    rig = Rig.default()
    rig.chain("left_arm").weight = rig.chain("right_arm").weight = 0.0
    rig.set_rotation("LeftForeArm", quat_normalize(np.array([0.4, 0.1, 0.0, 0.9])))
    rig.solve()
    before = rig.world_positions()
    rig.mirror_pose(["LeftForeArm"])  # a joint and its partner only
    rig.solve()
    sym = rig.symmetry()
    sk = rig.skeleton
    for name in ("RightForeArm", "RightHand", "RightHand_End"):
        want = sym.reflect_points(before[sk.index(name.replace("Right", "Left"))])
        assert np.allclose(rig.world_position(name), want, atol=1e-9, rtol=0)


def test_the_plane_is_found_where_the_character_stands_not_at_x_0():
    rig = Rig.default()
    sk = rig.skeleton
    turn = quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), np.array(0.6))
    sk.rest_rotations[0] = quat_mul(turn, sk.rest_rotations[0])
    sk.offsets[0] = sk.offsets[0] + np.array([0.7, 0.0, -0.3])
    sym = symmetry(sk)
    assert np.allclose(abs(sym.normal @ quat_rotate(turn, np.array([1.0, 0.0, 0.0]))), 1.0, atol=1e-12)
    assert abs((sk.offsets[0] - sym.point) @ sym.normal) < 1e-9
    rig = Rig(sk)
    rig.set_rotation("LeftArm", quat_normalize(np.array([0.3, 0.2, 0.1, 0.9])))
    rig.solve()
    before = rig.world_positions()
    rig.mirror_pose()
    rig.solve()
    assert np.allclose(rig.world_position("RightHand"), sym.reflect_points(before[sk.index("LeftHand")]), atol=1e-9)


def test_unnamed_joints_pair_by_position():
    rig = Rig.default()
    sk = rig.skeleton
    named = mirror_map(sk)
    anonymous = Skeleton(
        [f"j{i}" for i in range(len(sk))], sk.parents.copy(), sk.offsets.copy(), sk.rest_rotations.copy()
    )
    assert mirror_map(anonymous) == named
    assert names_of(sk, named)["LeftToe_End"] == "RightToe_End" and names_of(sk, named)["Head"] == "Head"


@pytest.mark.parametrize(
    "file, pairs",
    [
        ("cmu_12_01_walk.bvh", {"LThumb": "RThumb", "LHipJoint": "RHipJoint", "LeftHandIndex1": "RightHandIndex1", "Head": "Head"}),
        ("dataset-1_kick_normal_001.bvh", {"UpperArm_L": "UpperArm_R", "Toes_L": "Toes_R", "Hand_L_End": "Hand_R_End", "Chest": "Chest"}),
        ("lafan1_push1_subject2.bvh", {"LeftToe": "RightToe", "LeftShoulder": "RightShoulder", "Spine2": "Spine2"}),
    ],
)
def test_real_skeletons_pair_by_name_and_mirror_twice_back(file, pairs):
    loaded = load(f"{DATA}/{file}")
    rig = Rig(loaded.skeleton, clip=loaded.clip)
    sk = rig.skeleton
    sym = rig.symmetry()
    got = names_of(sk, sym.partners)
    for a, b in pairs.items():
        assert got[a] == b and got[b] == a
    assert all(sym.partners[p] == i for i, p in enumerate(sym.partners))  # an involution
    rng = np.random.default_rng(7)
    rig.time = float(rng.uniform(0.0, rig.clip.duration))
    rig.solve()
    before = rig.world_positions()
    rig.mirror_pose()
    rig.solve()
    once = rig.world_positions()
    assert not np.allclose(once, before, atol=1e-3)
    rig.mirror_pose()
    rig.solve()
    assert np.allclose(rig.world_positions(), before, atol=1e-9, rtol=0)


def test_the_cmu_walk_is_mirrored_across_its_own_plane():
    loaded = load(f"{DATA}/cmu_12_01_walk.bvh")
    rig = Rig(loaded.skeleton, clip=loaded.clip)
    sym = rig.symmetry()
    world = rig.skeleton.fk_matrices(sym.reference)[0]
    gaps = np.linalg.norm(sym.reflect_points(world) - world[list(sym.partners)], axis=1)
    assert gaps.max() < 0.05 * rig.skeleton.height()  # measured mocap: a few centimetres


def test_copy_and_paste_pose_round_trip_through_json():
    rig = free_humanoid()
    rig.set_rotation("Head", quat_normalize(np.array([0.1, 0.3, 0.0, 0.9])))
    rig.set_root_offset((0.1, -0.05, 0.2))
    rig.solve()
    pose = json.loads(json.dumps(rig.copy_pose()))
    other = free_humanoid()
    assert other.paste_pose(pose) == []
    other.solve()
    assert np.allclose(other.world_positions(), rig.world_positions(), atol=1e-9)
    part = rig.copy_pose(["Head"])
    assert set(part) == {"joints"} and list(part["joints"]) == ["Head"]


@settings(max_examples=20, deadline=None)
@given(q=quats, w=st.floats(0.0, 1.0))
def test_paste_by_weight_slerps_from_the_shown_pose(q, w):
    rig = free_humanoid()
    start = np.array(rig.rotation("LeftArm"))
    skipped = rig.paste_pose({"joints": {"LeftArm": list(q), "Tail": [0, 0, 0, 1]}}, weight=w)
    assert skipped == ["Tail"]
    want = quat_slerp(start, np.array(q), w)
    assert abs(abs(np.dot(rig.rotation("LeftArm"), want)) - 1.0) < 1e-12


def test_paste_mirrored_lands_on_the_partners():
    rig = free_humanoid()
    for name, q in zip(LEFT_ARM, ([0.1, 0.2, 0.0, 0.9], [0.3, 0.1, 0.1, 0.9], [0.5, 0.0, 0.0, 0.8], [0.0, 0.2, 0.2, 0.9])):
        rig.set_rotation(name, quat_normalize(np.array(q)))
    rig.solve()
    before = rig.world_positions()
    pose = rig.copy_pose(LEFT_ARM)
    other = free_humanoid()
    other.paste_pose(pose, mirror=True)
    other.solve()
    sym = rig.symmetry()
    for left in LEFT_ARM:
        right = left.replace("Left", "Right")
        assert np.allclose(other.world_position(right), sym.reflect_points(before[rig.skeleton.index(left)]), atol=1e-9)
        assert np.allclose(other.world_position(left), free_humanoid().world_position(left), atol=1e-12)


@pytest.mark.parametrize(
    "pose, problem",
    [
        ({"joints": {"Head": [0, 0, 0]}}, "joints.Head"),
        ({"joints": {"Head": [0, 0, 0, 0]}}, "zero"),
        ({"joints": {"Head": [0, 0, 0, 1]}, "root": [0, "1", 0]}, "root"),
        ({"joints": {}, "tilt": 1}, "tilt"),
        ([], "a pose is"),
    ],
)
def test_bad_pastes_say_what_is_wrong(pose, problem):
    rig = free_humanoid()
    layer = rig.pose_layer
    with pytest.raises(ValueError, match=problem):
        rig.paste_pose(pose)
    assert rig.pose_layer == layer
    with pytest.raises(ValueError, match="weight"):
        rig.paste_pose({"joints": {}}, weight=1.5)
