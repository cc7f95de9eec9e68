"""Goals that follow the clip (issue 14): right after an import the IK plays the clip as
recorded; a goal moved at a frame is an offset keyed there, eased in and out; poles follow
the animated knees and elbows, so no knee bends the other way than the clip's."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.autochains import propose_chains
from rigedit.core.bake import bake
from rigedit.core.clip import Clip
from rigedit.core.clip_goals import RAMP_S, bend_poles, follow_kwargs, keyed_offset, offset_curve
from rigedit.core.curve import Key
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Pose
from rigedit.core.timeline import Timeline
from rigedit.core.transforms import quat_mul, quat_rotate
from rigedit.io.bvh import read_bvh
from rigedit.io.gltf import read_gltf

DATA = Path("/work/shared/data")
FILES = ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh", "CesiumMan.glb", "RiggedSimple.glb"]
# docs/ARCHITECTURE.md, Contracts: the pose equals the clip at weight 1 to 1e-6 of the figure.
FIGURE_EPS = 1e-6
# A knee or elbow bent less than this is as good as straight: its bend side is noise.
BENT_DEG = 5.0


def read(name: str):
    imp = read_bvh(DATA / name) if name.endswith(".bvh") else read_gltf(DATA / name)
    return imp.skeleton, imp.clip


def imported(skeleton, clip, **extra) -> Rig:
    """A rig as File > Import and `rigedit import` make it."""
    rig = Rig(skeleton, clip=clip)
    for p in propose_chains(skeleton, clip.frame(0)):
        rig.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole, **follow_kwargs(clip), **extra)
    return rig


def figure_size(skeleton, clip) -> float:
    return float(np.ptp(skeleton.fk_matrices(clip.frame(0))[0], axis=0).max())


def world(skeleton, clip) -> np.ndarray:
    return skeleton.fk_matrices(Pose(clip.rotations, clip.translations))[0]


@pytest.fixture(scope="module")
def walk():
    return read("cmu_12_01_walk.bvh")


@pytest.mark.parametrize("name", FILES)
def test_playing_an_imported_clip_shows_the_clip(name):
    skeleton, clip = read(name)
    rig = imported(skeleton, clip)
    assert rig.chains and all(ch.follow_clip for ch in rig.chains)
    eps = FIGURE_EPS * figure_size(skeleton, clip)
    frames = np.unique(np.linspace(0, clip.n_frames - 1, 12).round().astype(int))
    for f in frames:  # played in order, as the editor plays it
        rig.time = f * clip.frame_time
        rig.solve()
        expected = skeleton.fk_matrices(rig.animated_pose())[0]
        np.testing.assert_allclose(rig.world_positions(), expected, rtol=0, atol=eps, err_msg=f"{name} frame {f}")
        for ch in rig.chains:  # every goal sits on its animated tip
            tip = expected[skeleton.index(ch.joints[-1])]
            np.testing.assert_allclose(ch.target, tip, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", FILES)
def test_baking_an_imported_clip_gives_the_clip(name):
    skeleton, clip = read(name)
    result = bake(imported(skeleton, clip))
    eps = FIGURE_EPS * figure_size(skeleton, clip)
    np.testing.assert_allclose(world(skeleton, result.clip), world(skeleton, clip), rtol=0, atol=eps)


def test_without_the_flag_goals_stay_put_and_the_body_tears(walk):
    # The bug the flag fixes: goals left where frame 0 put them.
    skeleton, clip = walk
    rig = Rig(skeleton, clip=clip)
    for p in propose_chains(skeleton, clip.frame(0)):
        rig.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole)
    rig.time = 1.6
    rig.solve()
    off = np.abs(rig.world_positions() - skeleton.fk_matrices(rig.animated_pose())[0]).max()
    assert off > 0.1


def test_without_a_clip_a_following_chain_has_an_absolute_target(walk):
    skeleton, clip = walk
    rig = imported(skeleton, clip)
    rig.clip = None
    rig.solve()
    goal = rig.world_position(rig.chain("left_arm").joints[-1]) + [0.0, 0.05, 0.05]
    rig.chain("left_arm").target = goal
    assert rig.chain("left_arm").offset_keys == ()
    np.testing.assert_array_equal(rig.chain("left_arm").target, goal)
    rig.time = 1.0  # time does not move it
    rig.solve()
    np.testing.assert_array_equal(rig.chain("left_arm").target, goal)
    assert np.linalg.norm(rig.world_position(rig.chain("left_arm").joints[-1]) - goal) < 1e-6


def test_a_goal_moved_at_a_frame_is_an_offset_keyed_there_and_eased_in_and_out(walk):
    skeleton, clip = walk
    rig = imported(skeleton, clip)
    rig.timeline = Timeline(frame_rate=clip.frame_rate, end=clip.duration)
    arm = rig.chain("left_arm")
    hand = arm.joints[-1]
    t = 60 * clip.frame_time
    rig.time = t
    rig.solve()
    lift = np.array([0.0, 0.08, 0.03])
    goal = np.asarray(arm.target) + lift
    arm.target = goal  # the public API writes the world goal at the rig's time
    np.testing.assert_allclose(arm.target, goal, rtol=0, atol=1e-12)
    times = [k.time for k in arm.offset_keys]
    ramp = math.floor(RAMP_S * clip.frame_rate + 0.5) * clip.frame_time
    np.testing.assert_allclose(times, [t - ramp, t, t + ramp], atol=1e-12)
    rig.solve()
    assert np.linalg.norm(rig.world_position(hand) - goal) < 1e-6
    # Eased: half way up the ramp the offset is half way, and the solve follows it there.
    for u in (0.25, 0.5, 0.75):
        rig.time = t - ramp * (1 - u)
        rig.solve()
        animated = skeleton.fk_matrices(rig.animated_pose())[0][skeleton.index(hand)]
        s = u * u * (3 - 2 * u)
        np.testing.assert_allclose(arm.target - animated, s * lift, rtol=0, atol=1e-9)
        assert np.linalg.norm(rig.world_position(hand) - arm.target) < 1e-6
    # Outside the ramps the clip plays as recorded.
    for tt in (t - 2 * ramp, t + 2 * ramp):
        rig.time = tt
        rig.solve()
        np.testing.assert_allclose(rig.world_positions(), skeleton.fk_matrices(rig.animated_pose())[0], rtol=0,
                                   atol=FIGURE_EPS * figure_size(skeleton, clip))


def test_keys_ease_between_each_other_and_only_the_outermost_get_ramps():
    r = 5 / 30  # 0.15 s at 30 fps, to whole frames
    keys = keyed_offset((), 1.0, (0.0, 0.1, 0.0), 30.0)
    assert [k.time for k in keys] == pytest.approx([1.0 - r, 1.0, 1.0 + r])
    keys = keyed_offset(keys, 1.5, (0.2, 0.0, 0.0), 30.0)  # later than every key: a ramp out after it
    assert [k.time for k in keys] == pytest.approx([1.0 - r, 1.0, 1.0 + r, 1.5, 1.5 + r])
    keys = keyed_offset(keys, 1.3, (0.0, 0.0, 0.1), 30.0)  # between keys: no ramp
    assert len(keys) == 6
    curve = offset_curve(keys)
    np.testing.assert_allclose(curve.at(1.0 + r + (1.3 - 1.0 - r) / 2), [0.0, 0.0, 0.05], atol=1e-12)  # ease: half way
    assert all(k.interpolation == "ease" for k in keys)
    np.testing.assert_array_equal(curve.at(0.5), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(curve.at(2.0), [0.0, 0.0, 0.0])
    again = keyed_offset(keys, 1.0, (0.0, 0.3, 0.0), 30.0)  # re-keying replaces, adds nothing
    assert len(again) == len(keys) and offset_curve(again).at(1.0)[1] == pytest.approx(0.3)


def test_weight_zero_is_the_animated_pose_exactly_whatever_the_offsets(walk):
    skeleton, clip = walk
    rig = imported(skeleton, clip, weight=0.0)
    for ch in rig.chains:
        ch.offset_keys = (Key(0.5, (0.0, 0.1, 0.05)),)
    for t in (0.0, 0.5, 1.3):
        rig.time = t
        rig.solve()
        anim = rig.animated_pose()
        np.testing.assert_array_equal(rig.pose.rotations, anim.rotations)
        np.testing.assert_array_equal(rig.pose.translations, anim.translations)


def test_a_copy_follows_its_own_time(walk):
    skeleton, clip = walk
    rig = imported(skeleton, clip)
    other = rig.copy()
    other.time = 1.0
    rig.time = 0.0
    hand = rig.chain("left_arm").joints[-1]
    pos = lambda r, t: r.skeleton.fk_matrices(r.clip.pose_at(t))[0][skeleton.index(hand)]  # noqa: E731
    np.testing.assert_allclose(other.chain("left_arm").target, pos(other, 1.0), atol=1e-12)
    np.testing.assert_allclose(rig.chain("left_arm").target, pos(rig, 0.0), atol=1e-12)


def test_bad_offset_keys_are_refused_naming_the_field(walk):
    skeleton, clip = walk
    arm = imported(skeleton, clip).chain("left_arm")
    with pytest.raises(ValueError, match="offset_keys"):
        arm.offset_keys = (Key(0.0, (0.0, float("nan"), 0.0)),)
    with pytest.raises(ValueError, match="offset_keys"):
        arm.offset_keys = (Key(0.0, (0.0, 1.0)),)
    with pytest.raises(ValueError, match="follow_clip"):
        arm.follow_clip = "yes"
    assert arm.offset_keys == ()


# --- poles ---------------------------------------------------------------------------------


def test_bend_poles_push_the_mid_joint_out_and_keep_the_side_through_straight_frames():
    root = np.zeros((4, 3))
    tip = np.tile([0.0, -1.0, 0.0], (4, 1))
    mid = np.array([[0.0, -0.5, 0.1], [0.0, -0.5, 0.0], [0.0, -0.5, 0.0], [0.0, -0.5, -0.2]])
    poles, last = bend_poles(root, mid, tip)
    length = 2 * math.hypot(0.5, 0.1)
    np.testing.assert_allclose(poles[0], [0.0, -0.5, 0.1 + length], atol=1e-12)
    np.testing.assert_allclose(poles[1], mid[1] + [0.0, 0.0, 1.0], atol=1e-12)  # straight: the side before
    np.testing.assert_allclose(poles[2], mid[2] + [0.0, 0.0, 1.0], atol=1e-12)
    assert poles[3][2] < mid[3][2]  # bent the other way by the clip: followed
    np.testing.assert_allclose(last, [0.0, 0.0, -1.0])
    first, _ = bend_poles(root[:1], mid[1:2], tip[:1])
    assert np.all(np.isnan(first))  # straight with no frame before: the caller's fallback
    held, _ = bend_poles(root[:1], mid[1:2], tip[:1], previous=np.array([1.0, 0.0, 0.0]))
    np.testing.assert_allclose(held[0], [1.0, -0.5, 0.0])


@given(
    st.lists(st.floats(-1, 1), min_size=3, max_size=3),
    st.lists(st.floats(-1, 1), min_size=3, max_size=3),
)
@settings(max_examples=60, deadline=None)
def test_a_pole_lies_in_the_limbs_plane_on_the_mid_joints_side(mid, tip):
    root, mid, tip = np.zeros(3), np.array(mid), np.array(tip)
    line = tip - root
    if np.linalg.norm(line) < 1e-3:
        return
    perp = mid - line * (mid @ line) / (line @ line)
    if np.linalg.norm(perp) < 1e-3:
        return
    pole = bend_poles(root, mid, tip)[0][0]
    normal = np.cross(line, mid)
    assert abs((pole - mid) @ normal) <= 1e-9 * np.linalg.norm(normal) * np.linalg.norm(pole - mid)
    assert (pole - mid) @ perp > 0


def pirouette(skeleton, clip, turns: float = 2.0) -> Clip:
    """The walk turned about the vertical through its start, `turns` times over the clip."""
    rot, trans = clip.rotations.copy(), clip.translations.copy()
    n = clip.n_frames
    angle = 2 * math.pi * turns * np.arange(n) / max(n - 1, 1)
    spin = np.stack([np.zeros(n), np.sin(angle / 2), np.zeros(n), np.cos(angle / 2)], axis=1)
    for j in np.flatnonzero(np.asarray(skeleton.parents) < 0):
        centre = trans[0, j] * [1.0, 0.0, 1.0]
        rot[:, j] = quat_mul(spin, rot[:, j])
        trans[:, j] = quat_rotate(spin, trans[:, j] - centre) + centre
    return Clip(rot, trans, clip.frame_time)


def bends(skeleton, pos, joints):
    """Per frame: the bend angle (degrees) and the unit bend direction of a limb."""
    r, m, t = (pos[:, skeleton.index(j)] for j in joints)
    a, b = m - r, t - m
    cos = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    angle = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    line = t - r
    perp = m - (r + line * (np.einsum("ij,ij->i", m - r, line) / np.einsum("ij,ij->i", line, line))[:, None])
    return angle, perp / np.maximum(np.linalg.norm(perp, axis=1), 1e-300)[:, None]


def wrong_way_frames(skeleton, original, baked, joints) -> tuple[int, int]:
    angle, want = bends(skeleton, original, joints)
    _, got = bends(skeleton, baked, joints)
    bent = angle > BENT_DEG
    return int(np.sum(bent & (np.einsum("ij,ij->i", want, got) <= 0.0))), int(bent.sum())


def test_on_a_pirouette_no_baked_knee_bends_the_other_way_than_the_clip(walk):
    skeleton, clip = walk
    spun = pirouette(skeleton, clip)
    rig = imported(skeleton, spun)
    lift = (0.0, 0.06, 0.0)  # every foot 6 cm up all clip long: the knees bend more than the clip's
    for name in ("left_leg", "right_leg"):
        rig.chain(name).offset_keys = (Key(0.0, lift),)
    result = bake(rig)
    original, baked = world(skeleton, spun), world(skeleton, result.clip)
    for name in ("left_leg", "right_leg", "left_arm", "right_arm"):
        joints = rig.chain(name).joints
        wrong, bent = wrong_way_frames(skeleton, original, baked, joints)
        assert bent > 50, name  # the test sees bent frames
        assert wrong == 0, f"{name}: {wrong} of {bent} bent frames bend the other way"
    for name in ("left_leg", "right_leg"):
        foot = skeleton.index(rig.chain(name).joints[-1])
        np.testing.assert_allclose(baked[:, foot] - original[:, foot], np.tile(lift, (clip.n_frames, 1)), atol=1e-6)


def test_the_pirouette_is_a_real_test_poles_from_frame_0_bend_knees_backwards(walk):
    # The same goals from timeline keys on chains that do not follow the clip, their poles
    # placed on frame 0 as before issue 14: the knees turn backwards as the dancer spins.
    skeleton, clip = walk
    spun = pirouette(skeleton, clip)
    rig = imported(skeleton, spun)
    original = world(skeleton, spun)
    tl = Timeline(frame_rate=clip.frame_rate, end=clip.duration)
    for name in ("left_leg", "right_leg"):
        ch = rig.chain(name)
        ch.follow_clip = False
        foot = skeleton.index(ch.joints[-1])
        for f in range(clip.n_frames):
            tl.key_target(name, f * clip.frame_time, tuple(original[f, foot] + [0.0, 0.06, 0.0]))
    baked = world(skeleton, bake(rig, timeline=tl).clip)
    wrong, bent = wrong_way_frames(skeleton, original, baked, rig.chain("left_leg").joints)
    assert wrong > bent // 4


def test_playing_the_pirouette_with_offsets_gives_the_bake(walk):
    # The live solve and the bake place goals and poles the same way (one implementation).
    skeleton, clip = walk
    spun = pirouette(skeleton, clip)
    rig = imported(skeleton, spun)
    rig.chain("left_leg").offset_keys = (Key(0.0, (0.0, 0.06, 0.0)),)
    rig.chain("right_arm").offset_keys = (Key(1.0, (0.1, 0.0, 0.0)), Key(2.0, (0.0, 0.1, 0.1)))
    baked = bake(rig).clip
    eps = FIGURE_EPS * figure_size(skeleton, clip)
    for f in range(clip.n_frames):  # every frame: a straight knee keeps the side of the frame before
        rig.time = f * clip.frame_time
        rig.solve()
        if f % 37 == 0:
            np.testing.assert_allclose(rig.world_positions(), skeleton.fk_matrices(baked.frame(f))[0], rtol=0, atol=eps)


def test_a_grounded_foot_aims_where_the_ground_puts_it_even_when_following(walk):
    skeleton, clip = walk
    rig = imported(skeleton, clip)
    rig.ground = "flat"
    leg = rig.chain("left_leg")
    leg.ground_feet = True
    rig.time = 1.0
    rig.solve()
    grounded = rig.grounded_targets()["left_leg"]
    np.testing.assert_allclose(rig.shown_target("left_leg"), grounded, atol=1e-12)
    arm = rig.chain("left_arm")  # the others still follow the clip, the body riding the ground (a lift)
    hand = skeleton.fk_matrices(rig.animated_pose())[0][skeleton.index(arm.joints[-1])]
    np.testing.assert_allclose(np.asarray(arm.target)[[0, 2]], hand[[0, 2]], atol=1e-12)


def test_a_removed_chain_keeps_its_last_goal_as_an_absolute_target(walk):
    skeleton, clip = walk
    rig = imported(skeleton, clip)
    rig.time = 0.5
    arm = rig.chain("left_arm")
    goal = np.asarray(arm.target).copy()
    rig.solve()
    rig.remove_chain("left_arm")
    np.testing.assert_array_equal(arm.target, goal)
    arm.target = goal + 0.01  # no rig to key an offset in: an absolute target
    assert arm.offset_keys == ()
