"""Pose-layer keys (issue 25): key_pose, pose_keys, delete / move / interpolation, eased
playback checked against scipy's Slerp, Blender's rule for unkeyed edits, copies."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation, Slerp

from rigedit.core.clip import Clip
from rigedit.core.pose_channel import Channel, PoseKey
from rigedit.core.pose_layer import PoseLayer
from rigedit.core.rig import Rig
from rigedit.core.rig_posing import layered, layered_frames
from rigedit.core.skeleton import Pose
from rigedit.core.transforms import quat_normalize

unit = st.floats(-1.0, 1.0, allow_nan=False)
quats = st.tuples(unit, unit, unit, unit).filter(lambda q: np.linalg.norm(q) > 0.2).map(
    lambda q: tuple(np.asarray(q) / np.linalg.norm(q))
)
FREE = ["Head", "LeftShoulder", "RightShoulder", "LeftHand", "RightToeBase"]  # outside the chains' writes


def same_rotation(a, b, tol=1e-9) -> bool:
    return abs(abs(float(np.dot(a, b))) - 1.0) < tol


@pytest.fixture(scope="module")
def humanoid() -> Rig:
    rig = Rig.default()
    for ch in rig.chains:
        ch.weight = 0.0  # every joint shows the layer
    rig.solve()
    return rig


def eased(u: float) -> float:
    return u * u * (3.0 - 2.0 * u)


def expected_between(q0, q1, s):
    return Slerp([0.0, 1.0], Rotation.from_quat([q0, q1]))([s]).as_quat()[0]


@settings(max_examples=20, deadline=None)
@given(a=st.lists(quats, min_size=len(FREE), max_size=len(FREE)), b=st.lists(quats, min_size=len(FREE), max_size=len(FREE)),
       t1=st.floats(0.2, 3.0), u=st.floats(0.05, 0.95))
def test_keyed_poses_play_back_eased_between_keys(humanoid, a, b, t1, u):
    rig = humanoid.copy()
    for name, q in zip(FREE, a):
        rig.set_rotation(name, q)
    rig.key_pose()
    rig.time = t1
    for name, q in zip(FREE, b):
        rig.set_rotation(name, q)
    rig.key_pose()
    assert rig.pose_keys == (0.0, t1)
    rig.time = u * t1
    rig.solve()
    for name, q0, q1 in zip(FREE, a, b):
        assert same_rotation(rig.rotation(name), expected_between(q0, q1, eased(u)))
    rig.set_pose_key_interpolation(0.0, "linear")
    rig.solve()
    for name, q0, q1 in zip(FREE, a, b):
        assert same_rotation(rig.rotation(name), expected_between(q0, q1, u))
    rig.set_pose_key_interpolation(0.0, "constant")
    rig.solve()
    for name, q0 in zip(FREE, a):
        assert same_rotation(rig.rotation(name), q0)
    rig.time = t1 + 1.0  # after the last key: held
    rig.solve()
    for name, q1 in zip(FREE, b):
        assert same_rotation(rig.rotation(name), q1)


def test_half_way_is_the_eased_slerp_on_the_whole_body(humanoid):
    rig = humanoid.copy()
    rng = np.random.default_rng(25)
    names = rig.skeleton.names
    first = quat_normalize(rng.normal(size=(len(names), 4)))
    second = quat_normalize(rng.normal(size=(len(names), 4)))
    for name, q in zip(names, first):
        rig.set_rotation(name, q)
    rig.key_pose(time=0.0)
    rig.time = 1.0
    for name, q in zip(names, second):
        rig.set_rotation(name, q)
    rig.key_pose()
    rig.time = 0.5
    rig.solve()
    shown = rig.pose.rotations
    for i, name in enumerate(names):
        assert same_rotation(shown[i], expected_between(first[i], second[i], 0.5)), name


def test_an_unkeyed_edit_holds_on_an_unkeyed_joint_and_until_the_time_moves_on_a_keyed_one(humanoid):
    rig = humanoid.copy()
    q = quat_normalize(np.array([0.2, 0.1, 0.0, 1.0]))
    rig.set_rotation("Head", q)
    rig.key_pose(["Head"])
    p = quat_normalize(np.array([0.0, 0.4, 0.1, 1.0]))
    rig.set_rotation("LeftShoulder", p)  # no keys: a static pose
    rig.time = 0.7
    r = quat_normalize(np.array([-0.3, 0.0, 0.2, 1.0]))
    rig.set_rotation("Head", r)  # keyed: holds only here
    rig.solve()
    assert same_rotation(rig.rotation("Head"), r)
    rig.time = 0.8
    rig.solve()
    assert same_rotation(rig.rotation("Head"), q)
    assert same_rotation(rig.rotation("LeftShoulder"), p)
    rig.time = 0.7  # the edit was not keyed: it is gone
    rig.solve()
    assert same_rotation(rig.rotation("Head"), q)
    rig.set_rotation("Head", r)
    rig.key_pose(["Head"])  # keyed: it stays
    rig.time = 0.0
    rig.time = 0.7
    rig.solve()
    assert same_rotation(rig.rotation("Head"), r)
    assert rig.pose_keys == (0.0, 0.7)


def test_key_pose_keys_every_chains_weight_and_goal(humanoid):
    rig = humanoid.copy()
    rig.chain("left_arm").weight = 0.25
    rig.chain("left_arm").target = (0.5, 1.2, 0.1)
    rig.key_pose(time=0.4)
    for ch in rig.chains:
        assert rig.timeline.curve(ch.name, "weight").at(0.4) == ch.weight
        assert np.allclose(rig.timeline.curve(ch.name, "target").at(0.4), ch.target, atol=0)
        if ch.pole is not None:
            assert np.allclose(rig.timeline.curve(ch.name, "pole").at(0.4), ch.pole, atol=0)
    assert rig.timeline.curve("left_arm", "weight").at(0.4) == 0.25


def test_delete_move_and_interpolation_of_pose_keys(humanoid):
    rig = humanoid.copy()
    rig.set_rotation("Head", (0.0, 0.0, 0.0, 1.0))
    rig.key_pose(["Head"], time=0.0)
    rig.set_rotation("Head", (0.0, 0.3826834323650898, 0.0, 0.9238795325112867))
    rig.key_pose(["Head", "Neck"], time=1.0)
    rig.key_pose(["Neck"], time=1.0 + 5e-10)  # the same key time
    assert rig.pose_keys == (0.0, 1.0)
    rig.move_pose_key(1.0, 2.0)
    assert rig.pose_keys == (0.0, 2.0)
    assert [k.time for k in rig.pose_layer.joints["Head"].keys] == [0.0, 2.0]
    rig.delete_pose_key(0.0)
    assert rig.pose_keys == (2.0,)
    with pytest.raises(ValueError, match="no pose key at 1 s"):
        rig.delete_pose_key(1.0)
    with pytest.raises(ValueError, match="interpolation"):
        rig.set_pose_key_interpolation(2.0, "bouncy")
    with pytest.raises(KeyError):
        rig.key_pose(["Tail"])
    rig.delete_pose_key(2.0)
    assert rig.pose_keys == () and rig.pose_layer == PoseLayer()


def test_a_copy_keeps_the_keys_and_the_data_form_gives_the_layer_back(humanoid):
    rig = humanoid.copy()
    rig.set_rotation("Head", (0.1, 0.0, 0.0, 1.0))
    rig.set_root_offset((0.0, 0.1, 0.0))
    rig.key_pose()
    rig.time = 1.0
    rig.set_rotation("Head", (0.0, 0.2, 0.0, 1.0))
    rig.set_root_offset((0.0, -0.1, 0.3))
    rig.key_pose(time=1.0)
    rig.set_rotation("Neck", (0.0, 0.0, 0.2, 1.0))
    rig.set_rotation("Head", (0.3, 0.0, 0.0, 1.0))  # a pending edit on a keyed joint
    other = rig.copy()
    assert other.pose_layer == rig.pose_layer and other.pose_keys == rig.pose_keys
    again = PoseLayer.from_data(rig.pose_layer.to_data(), rig.skeleton)
    assert again == rig.pose_layer
    rig.time = 0.5
    other.time = 0.5
    rig.solve()
    other.solve()
    assert np.allclose(rig.world_positions(), other.world_positions(), atol=1e-12)
    hips = rig.skeleton.index("Hips")
    offset = rig.pose.translations[hips] - rig.skeleton.offsets[hips]
    assert np.allclose(offset, [0.0, 0.0, 0.15], atol=1e-12)  # eased half way between the offsets


@pytest.mark.parametrize(
    "data, where",
    [
        ({"joints": {"Tail": {"keys": []}}}, "Tail"),
        ({"joints": {"Head": {"keys": [{"time": "0", "value": [0, 0, 0, 1]}]}}}, "time"),
        ({"joints": {"Head": {"keys": [{"time": 0, "value": [0, 0, 0]}]}}}, "value"),
        ({"joints": {"Head": {"keys": [{"time": 0, "value": [0, 0, 0, 0]}]}}}, "zero quaternion"),
        ({"joints": {"Head": {"keys": [{"time": 0, "value": [0, 0, 0, 1], "interpolation": "cubic"}]}}}, "interpolation"),
        ({"joints": {"Head": {"keys": [{"time": 0, "value": [0, 0, 0, 1]}, {"time": 0, "value": [0, 0, 0, 1]}]}}}, "same time"),
        ({"root": {"held": [0, float("nan"), 0]}}, "finite"),
        ({"joints": {}, "extra": 1}, "extra"),
    ],
)
def test_bad_data_names_its_field(humanoid, data, where):
    with pytest.raises(ValueError, match=where):
        PoseLayer.from_data(data, humanoid.skeleton)


def test_key_pose_keys_a_follow_clip_chain_as_an_offset_from_the_animated_tip():
    rig = Rig.default()
    n = len(rig.skeleton)
    frames = 30
    turn = np.zeros((frames, n, 4))
    turn[..., 3] = 1.0
    turn[:, 0, 1] = np.linspace(0.0, 0.3, frames)  # the body turns: the hand's animated tip moves
    rot = quat_normalize(turn)
    rig.clip = Clip(rot, np.tile(rig.skeleton.offsets, (frames, 1, 1)), 1.0 / 30)
    arm = rig.chain("left_arm")
    arm.follow_clip = True
    rig.time = 10 / 30
    goal = np.asarray(arm.target) + np.array([0.05, 0.02, -0.03])
    arm.target = goal  # an offset keyed here
    rig.time = 20 / 30
    later = np.asarray(arm.target).copy()
    rig.key_pose()
    assert any(abs(k.time - 20 / 30) < 1e-12 for k in arm.offset_keys)
    assert not rig.timeline.curve("left_arm", "target").keys  # its goal is the offset, not a timeline key
    rig.time = 10 / 30
    assert np.allclose(arm.target, goal, atol=1e-9)
    rig.time = 20 / 30
    assert np.allclose(arm.target, later, atol=1e-9)


def shaped(kind: str, u: float) -> float:
    return {"linear": u, "ease": eased(u), "constant": 0.0}[kind]


@settings(max_examples=30, deadline=None)
@given(data=st.data(), n_keys=st.integers(3, 12))
def test_many_keys_play_back_each_segment_by_its_own_interpolation(humanoid, data, n_keys):
    """A layer of several joints and the roots' offset, keyed many times with mixed
    interpolations: at random times (between keys, on them, outside them) each joint shows
    the slerp of its two bracketing keys by that segment's shape, the roots the lerp, and a
    clip's frames layered in one call show what each frame layered alone does."""
    gaps = data.draw(st.lists(st.floats(0.05, 1.0), min_size=n_keys, max_size=n_keys))
    times = np.cumsum(gaps) - 0.5
    kinds = data.draw(st.lists(st.sampled_from(["linear", "ease", "constant"]), min_size=n_keys, max_size=n_keys))
    values = {name: data.draw(st.lists(quats, min_size=n_keys, max_size=n_keys)) for name in FREE}
    offsets = data.draw(st.lists(st.tuples(unit, unit, unit), min_size=n_keys, max_size=n_keys))
    # Two keys a half turn apart have no shorter arc: either way round is a right answer.
    assume(all(abs(np.dot(a, b)) > 1e-6 for v in values.values() for a, b in zip(v, v[1:])))

    def channel(vals):
        return Channel(tuple(PoseKey(float(t), tuple(v), k) for t, v, k in zip(times, vals, kinds)))

    layer = PoseLayer({name: channel(v) for name, v in values.items()}, channel(offsets))
    at = data.draw(st.lists(st.floats(times[0] - 0.5, times[-1] + 0.5), min_size=1, max_size=6)) + [float(times[2])]
    for t in at:
        i = int(np.clip(np.searchsorted(times, t, side="right") - 1, 0, n_keys - 2))
        u = float(np.clip((t - times[i]) / (times[i + 1] - times[i]), 0.0, 1.0))
        s = 1.0 if t >= times[-1] else 0.0 if t <= times[0] else shaped(kinds[i], u)
        shown = layer.rotations_at(t)
        for name, vals in values.items():
            assert same_rotation(shown[name], expected_between(vals[i], vals[i + 1], s)), (name, t)
        want = np.asarray(offsets[i]) + (np.asarray(offsets[i + 1]) - np.asarray(offsets[i])) * s
        assert np.allclose(layer.offset_at(t), want, atol=1e-12, rtol=0)
    sk, roots = humanoid.skeleton, humanoid.root_indices()
    rng = np.random.default_rng()
    rot = quat_normalize(np.tile(sk.rest_rotations, (len(at), 1, 1)) + 0.1 * rng.normal(size=(len(at), len(sk), 4)))
    trans = np.tile(sk.offsets, (len(at), 1, 1))
    many = layered_frames(layer, rot, trans, at, sk, roots)
    for f, t in enumerate(at):
        one = layered(layer, Pose(rot[f], trans[f]), t, sk, roots)
        assert np.allclose(many[0][f], one.rotations, atol=1e-15, rtol=0) and np.allclose(many[1][f], one.translations, atol=1e-15, rtol=0)
