import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rigedit.core.ik.look_at import clamp_to_cone, head_roll, solve_look_at
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.transforms import quat_angle, quat_between, quat_from_axis_angle, quat_mul, quat_rotate

FWD = np.array([0.0, 0.0, 1.0])
UP = np.array([0.0, 1.0, 0.0])


def upper_body(rest_rotations=None):
    return Skeleton.from_joints(
        [
            ("Hips", None, (0.0, 1.0, 0.0)),
            ("Spine", "Hips", (0.0, 0.3, 0.0)),
            ("Neck", "Spine", (0.0, 0.3, 0.05)),
            ("Head", "Neck", (0.0, 0.12, 0.0)),
            ("Jaw", "Head", (0.0, -0.05, 0.08)),
        ],
        rest_rotations,
    )


def head_frame(skel, pose, head="Head", fwd=FWD, up=UP):
    pos, rot = skel.fk(pose)
    h = skel.index(head)
    return pos[..., h, :], quat_rotate(rot[..., h, :], fwd), quat_rotate(rot[..., h, :], up)


def angle_between(a, b):
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    # atan2 of sine and cosine: arccos alone cannot resolve angles under ~1e-8.
    return np.arctan2(np.linalg.norm(np.cross(a, b), axis=-1), np.sum(a * b, axis=-1))


def solve(skel, pose, target, **kw):
    args = dict(joints=["Neck", "Head"], weights=[0.4, 0.6], max_angle_deg=80.0)
    args.update(kw)
    return solve_look_at(skel, pose, args.pop("joints"), args.pop("weights"), target, **args)


@pytest.mark.parametrize(
    "target",
    [(0.5, 1.9, 2.0), (-1.0, 1.2, 1.0), (0.0, 3.0, 1.5), (2.0, 1.7, 0.5), (0.1, 1.72, 0.3)],
)
def test_reaches_the_target_direction_inside_the_cone(target):
    skel = upper_body()
    out = solve(skel, skel.rest_pose(), np.array(target))
    pos, fwd, _ = head_frame(skel, out)
    assert angle_between(fwd, np.array(target) - pos) < 1e-9


def test_clamps_to_the_cone_boundary_outside_it():
    skel = upper_body()
    rest = skel.rest_pose()
    _, ref_fwd, _ = head_frame(skel, rest)
    target = np.array([3.0, 1.7, -1.0])  # ~108 degrees to the side and back
    out = solve(skel, rest, target, max_angle_deg=60.0)
    pos, fwd, _ = head_frame(skel, out)
    assert np.degrees(angle_between(fwd, ref_fwd)) == pytest.approx(60.0, abs=1e-9)
    # Turned toward the target's side, in the plane of the incoming forward and the target.
    to_target = target - pos
    normal = np.cross(ref_fwd, to_target)
    assert abs(np.dot(fwd, normal / np.linalg.norm(normal))) < 1e-9
    assert fwd[0] > 0.0


def test_the_cone_is_measured_from_the_incoming_pose():
    # A body turned 90 degrees left: the cone turns with it.
    skel = upper_body()
    pose = skel.rest_pose()
    pose.rotations[0] = quat_from_axis_angle(UP, np.pi / 2)
    _, ref_fwd, _ = head_frame(skel, pose)
    assert np.allclose(ref_fwd, [1.0, 0.0, 0.0])
    out = solve(skel, pose, np.array([0.0, 1.7, 5.0]), max_angle_deg=30.0)
    _, fwd, _ = head_frame(skel, out)
    assert np.degrees(angle_between(fwd, ref_fwd)) == pytest.approx(30.0, abs=1e-9)


def test_a_rest_cone_follows_the_torso_not_the_clip():
    # The incoming pose already turns the neck 60 degrees left; a 30 degree cone from rest
    # still reaches straight ahead of the torso and stops 30 degrees right of it, while a
    # cone from the pose stays within 30 degrees of where the clip looked.
    skel = upper_body()
    pose = skel.rest_pose()
    pose.rotations[skel.index("Neck")] = quat_from_axis_angle(UP, np.radians(60.0))
    ahead = np.array([0.0, 1.72, 5.0])
    right = np.array([-5.0, 1.72, 0.05])
    out = solve(skel, pose, ahead, max_angle_deg=30.0, cone_from="rest")
    pos, fwd, _ = head_frame(skel, out)
    assert angle_between(fwd, ahead - pos) < 1e-9
    out = solve(skel, pose, right, max_angle_deg=30.0, cone_from="rest")
    _, fwd, _ = head_frame(skel, out)
    assert np.degrees(angle_between(fwd, FWD)) == pytest.approx(30.0, abs=1e-9)
    assert fwd[0] < 0.0
    out = solve(skel, pose, ahead, max_angle_deg=30.0, cone_from="pose")
    _, fwd, _ = head_frame(skel, out)
    assert np.degrees(angle_between(fwd, FWD)) == pytest.approx(30.0, abs=1e-6)


def max_up_step(ups):
    return np.degrees(np.max(angle_between(ups[1:], ups[:-1])))


def naive_look_at_up(direction):
    """The head up of a classic look-at matrix built from the aim and world up."""
    f = direction / np.linalg.norm(direction, axis=-1, keepdims=True)
    right = np.cross(UP, f)
    right /= np.linalg.norm(right, axis=-1, keepdims=True)
    return np.cross(f, right)


def over_the_head_path(head, n=721):
    # From in front, up over the head and down behind it, a little to one side.
    a = np.linspace(0.0, np.radians(165.0), n)
    return head + np.stack([np.full(n, 0.02), 2.0 * np.sin(a), 2.0 * np.cos(a)], axis=1)


def around_the_head_path(head, n=721):
    # A full circle around the head, 30 degrees above it, passing behind.
    a = np.linspace(0.0, 2 * np.pi, n)
    return head + 2.0 * np.stack([np.sin(a) * np.cos(0.5), np.full(n, np.sin(0.5)), np.cos(a) * np.cos(0.5)], axis=1)


@pytest.mark.parametrize("path", [over_the_head_path, around_the_head_path])
@pytest.mark.parametrize("max_angle_deg", [80.0, 179.0])
def test_up_never_flips_as_the_target_sweeps_over_and_behind(path, max_angle_deg):
    skel = upper_body()
    rest = skel.rest_pose()
    head, _, _ = head_frame(skel, rest)
    targets = path(head)
    # One solve per target (each from the incoming pose), as a live drag would do.
    ups = np.array([head_frame(skel, solve(skel, rest, t, max_angle_deg=max_angle_deg))[2] for t in targets])
    # The target direction moves at most ~0.5 degree a sample; the up vector may follow it,
    # but a roll flip would swing it by tens of degrees in one sample.
    assert max_up_step(ups) < 3.0
    assert np.all(np.isfinite(ups))


def test_the_flip_check_catches_a_look_at_matrix():
    # The same path through a classic look-at matrix flips: the check above can fail.
    skel = upper_body()
    head, _, _ = head_frame(skel, skel.rest_pose())
    targets = over_the_head_path(head)
    assert max_up_step(naive_look_at_up(targets - head)) > 10.0


def test_frames_of_a_batch_match_single_solves():
    skel = upper_body()
    rng = np.random.default_rng(4)
    frames = 6
    pose = skel.rest_pose()
    rots = np.tile(pose.rotations, (frames, 1, 1))
    rots[:, 0] = quat_from_axis_angle(UP, rng.uniform(-1, 1, frames))
    batch = Pose(rots, np.tile(pose.translations, (frames, 1, 1)))
    targets = rng.uniform(-2, 2, size=(frames, 3)) + [0, 1.7, 0]
    out = solve(skel, batch, targets, max_twist_deg=5.0)
    for f in range(frames):
        one = solve(skel, Pose(rots[f], pose.translations), targets[f], max_twist_deg=5.0)
        assert np.allclose(out.rotations[f], one.rotations, atol=1e-12)


def test_weights_share_the_turn():
    skel = upper_body()
    rest = skel.rest_pose()
    far = np.array([1.0, 0.4, 1.0]) * 1e8  # far away: moving the head's pivot changes nothing
    out = solve(skel, rest, far, weights=[0.4, 0.6], max_angle_deg=180.0)
    total = angle_between(far, FWD)
    neck, head = skel.index("Neck"), skel.index("Head")
    assert quat_angle(out.rotations[neck]) == pytest.approx(0.4 * total, abs=1e-6)
    assert quat_angle(out.rotations[head]) == pytest.approx(0.6 * total, abs=1e-6)
    # Untouched joints stay untouched, bit for bit.
    for j in ("Hips", "Spine", "Jaw"):
        assert np.array_equal(out.rotations[skel.index(j)], rest.rotations[skel.index(j)])


def test_weights_are_normalised_and_zero_weight_joints_do_not_move():
    skel = upper_body()
    rest = skel.rest_pose()
    target = np.array([1.0, 2.0, 1.0])
    a = solve(skel, rest, target, weights=[2.0, 3.0])
    b = solve(skel, rest, target, weights=[0.4, 0.6])
    assert np.allclose(a.rotations, b.rotations, atol=1e-12)
    only_head = solve(skel, rest, target, weights=[0.0, 1.0])
    assert np.array_equal(only_head.rotations[skel.index("Neck")], rest.rotations[skel.index("Neck")])
    pos, fwd, _ = head_frame(skel, only_head)
    assert angle_between(fwd, target - pos) < 1e-9


def test_three_joints_and_a_custom_forward_axis_with_rest_rotations():
    # A rig whose head looks down its local +X and carries rest rotations (as glTF rigs do).
    rest_rot = np.tile([0.0, 0.0, 0.0, 1.0], (5, 1))
    rest_rot[2] = quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), 0.3)
    rest_rot[3] = quat_from_axis_angle(UP, -np.pi / 2)
    skel = upper_body(rest_rot)
    target = np.array([0.7, 2.4, 1.5])
    out = solve(skel, skel.rest_pose(), target, joints=["Spine", "Neck", "Head"], weights=[0.2, 0.3, 0.5],
                forward_axis=(1.0, 0.0, 0.0), max_angle_deg=120.0)
    pos, fwd, _ = head_frame(skel, out, fwd=np.array([1.0, 0.0, 0.0]))
    assert angle_between(fwd, target - pos) < 1e-9


def test_splitting_the_turn_adds_no_roll():
    # Every joint's swing stays in the plane of the incoming forward and the target, even
    # for a near target whose direction changes as the neck moves the head.
    skel = upper_body()
    rest = skel.rest_pose()
    head, ref_fwd, ref_up = head_frame(skel, rest)
    target = head + np.array([0.25, 0.2, 0.1])
    out = solve(skel, rest, target, weights=[0.8, 0.2], max_angle_deg=180.0)
    _, fwd, up = head_frame(skel, out)
    pure_swing_up = quat_rotate(quat_between(ref_fwd, fwd), ref_up)
    assert np.allclose(up, pure_swing_up, atol=1e-12)


@pytest.mark.parametrize("max_twist_deg", [0.0, 5.0])
def test_twist_limit_levels_the_head(max_twist_deg):
    skel = upper_body()
    rest = skel.rest_pose()
    head, _, ref_up = head_frame(skel, rest)
    target = head + np.array([1.0, 1.0, 1.0])  # up and to the left: a pure swing tilts the head
    free = solve(skel, rest, target)
    _, fwd, up = head_frame(skel, free)
    assert abs(np.degrees(head_roll(ref_up, fwd, up))) > 10.0
    held = solve(skel, rest, target, max_twist_deg=max_twist_deg)
    pos, fwd2, up2 = head_frame(skel, held)
    assert abs(np.degrees(head_roll(ref_up, fwd2, up2))) == pytest.approx(max_twist_deg, abs=1e-9)
    # Levelling the head does not spoil the aim.
    assert angle_between(fwd2, target - pos) < 1e-9
    if max_twist_deg == 0.0:
        # A level head's side axis is horizontal, as a turret's is.
        assert abs(np.cross(up2, fwd2)[1]) < 1e-9


def test_blend_scales_the_aim_and_zero_is_the_input():
    skel = upper_body()
    rest = skel.rest_pose()
    _, ref_fwd, _ = head_frame(skel, rest)
    far = np.array([1e8, 0.0, 0.0])
    half = solve(skel, rest, far, blend=0.5, max_angle_deg=180.0)
    _, fwd, _ = head_frame(skel, half)
    assert np.degrees(angle_between(fwd, ref_fwd)) == pytest.approx(45.0, abs=1e-4)
    none = solve(skel, rest, far, blend=0.0)
    assert np.array_equal(none.rotations, rest.rotations)


def test_the_input_pose_is_not_modified():
    skel = upper_body()
    rest = skel.rest_pose()
    before = rest.copy()
    solve(skel, rest, np.array([1.0, 2.0, 1.0]))
    assert np.array_equal(rest.rotations, before.rotations)


def test_target_on_the_head_keeps_the_pose_finite():
    skel = upper_body()
    head, _, _ = head_frame(skel, skel.rest_pose())
    out = solve(skel, skel.rest_pose(), head)
    assert np.all(np.isfinite(out.rotations))


def test_clamp_to_cone():
    axis = np.array([0.0, 0.0, 1.0])
    d = clamp_to_cone(np.array([1.0, 0.0, -1.0]), axis, np.radians(45.0))
    assert np.allclose(d, [np.sqrt(0.5), 0.0, np.sqrt(0.5)])
    inside = clamp_to_cone(np.array([0.1, 0.2, 3.0]), axis, np.radians(45.0))
    assert np.allclose(inside, np.array([0.1, 0.2, 3.0]) / np.linalg.norm([0.1, 0.2, 3.0]))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(joints=["Head", "Neck"]), "not an ancestor"),
        (dict(joints=["Neck", "Head"], weights=[1.0]), "2 joints need 2 weights"),
        (dict(weights=[0.0, 0.0]), "weights"),
        (dict(weights=[-1.0, 2.0]), "weights"),
        (dict(max_angle_deg=200.0), "max_angle_deg"),
        (dict(forward_axis=(0.0, 0.0, 0.0)), "forward_axis"),
        (dict(up_axis=(0.0, 0.0, 2.0)), "parallel"),
        (dict(blend=1.5), "blend"),
        (dict(max_twist_deg=-1.0), "max_twist_deg"),
        (dict(cone_from="parent"), "cone_from"),
        (dict(target=np.array([np.nan, 0.0, 0.0])), "target"),
    ],
)
def test_bad_input_is_named(kwargs, match):
    skel = upper_body()
    target = kwargs.pop("target", np.array([0.0, 2.0, 1.0]))
    with pytest.raises(ValueError, match=match):
        solve(skel, skel.rest_pose(), target, **kwargs)


def test_unknown_joint_is_named():
    skel = upper_body()
    with pytest.raises(KeyError, match="Noggin"):
        solve(skel, skel.rest_pose(), np.ones(3), joints=["Neck", "Noggin"])


unit_vec = st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1).map(np.array)


JOINTS = ["A", "B", "D"]  # the look-at joints of _random_case's chain (C is left out)


def _random_case(offsets, axes, angles, posed, forward):
    """A five-joint chain Root-A-B-C-D from hypothesis' draws, an incoming pose that turns the
    look-at joints away from rest (as a clip would), and an up axis off `forward`."""
    rots = quat_from_axis_angle(np.array(axes), np.array(angles))
    skel = Skeleton.from_joints(
        [("Root", None, offsets[0]), ("A", "Root", offsets[1]), ("B", "A", offsets[2]),
         ("C", "B", offsets[3]), ("D", "C", offsets[4])],
        rots,
    )
    up = np.cross(forward, [0.3, 0.9, 0.1])
    if np.linalg.norm(up) < 1e-3:
        up = np.cross(forward, [1.0, 0.0, 0.0])
    pose = skel.rest_pose()
    for j, a in zip(JOINTS, posed):
        pose.rotations[skel.index(j)] = quat_mul(pose.rotations[skel.index(j)], quat_from_axis_angle(np.array(axes[0]), a))
    return skel, pose, up


# A random five-joint neck chain and look-at settings: offsets, turn axes and angles, the
# posed angles, target, weights, forward axis, max angle, max twist.
LOOK_AT_CASES = (
    st.lists(st.tuples(*[st.floats(-0.4, 0.4)] * 3), min_size=5, max_size=5),
    st.lists(unit_vec, min_size=5, max_size=5),
    st.lists(st.floats(-np.pi, np.pi), min_size=5, max_size=5),
    st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3),
    st.tuples(*[st.floats(-5, 5)] * 3).map(np.array),
    st.lists(st.floats(0.0, 1.0), min_size=3, max_size=3).filter(lambda w: sum(w) > 1e-3),
    unit_vec,
    st.floats(0.0, 180.0),
    st.one_of(st.none(), st.floats(0.0, 45.0)),
)


@settings(max_examples=150, deadline=None)
@given(
    *LOOK_AT_CASES,
    st.sampled_from(["rest", "pose"]),
)
def test_properties(offsets, axes, angles, posed, target, weights, forward, max_angle, max_twist, cone_from):
    skel, pose, up = _random_case(offsets, axes, angles, posed, forward)
    fwd_axis = forward / np.linalg.norm(forward)
    joints = JOINTS
    out = solve_look_at(skel, pose, joints, weights, target, forward, up, max_angle,
                        max_twist_deg=max_twist, cone_from=cone_from)
    assert np.all(np.isfinite(out.rotations))
    assert np.allclose(np.linalg.norm(out.rotations, axis=-1), 1.0, atol=1e-12)
    _, cone_axis, _ = head_frame(skel, skel.rest_pose() if cone_from == "rest" else pose, "D", fwd_axis)
    pos, fwd, _ = head_frame(skel, out, "D", fwd_axis)
    assert np.degrees(angle_between(fwd, cone_axis)) <= max_angle + 1e-6
    for j in ("Root", "C"):
        assert np.array_equal(out.rotations[skel.index(j)], pose.rotations[skel.index(j)])
    # The aim is exact when the aiming joint itself has a share: it turns last, on the spot.
    # (A share under the smallest float after normalising is no share: hypothesis found
    # 5e-324 out of 3.)
    if weights[-1] > 1e-9 and np.linalg.norm(target - pos) > 1e-3 and np.degrees(angle_between(target - pos, cone_axis)) < max_angle - 1e-3:
        assert angle_between(fwd, target - pos) < 1e-6


DATA = "/work/shared/data"


@pytest.mark.parametrize("cone_from", ["rest", "pose"])
def test_a_mocap_walk_looks_at_a_point_it_passes(cone_from):
    # CMU 12_01 walks 3.9 m along +z; the point is off to the side, so the head turns to it,
    # follows it, and ends clamped at the cone as the point falls behind.
    from rigedit.io.bvh import read_bvh

    bvh = read_bvh(f"{DATA}/cmu_12_01_walk.bvh")
    skel, clip = bvh.skeleton, bvh.clip
    pose = Pose(clip.rotations, clip.translations)
    target = np.array([1.0, 1.6, 0.5])
    joints, weights = ["Neck", "Neck1", "Head"], [0.3, 0.3, 0.4]
    out = solve_look_at(skel, pose, joints, weights, target, max_angle_deg=70.0, cone_from=cone_from)
    assert np.all(np.isfinite(out.rotations))
    assert np.allclose(np.linalg.norm(out.rotations, axis=-1), 1.0, atol=1e-12)
    if cone_from == "pose":
        _, axis, _ = head_frame(skel, pose)
    else:
        # The neck and head at rest, the torso as the clip has it (full FK, independently).
        rest = pose.copy()
        for j in joints:
            rest.rotations[:, skel.index(j)] = skel.rest_rotations[skel.index(j)]
        _, axis, _ = head_frame(skel, rest)
    pos, fwd, up = head_frame(skel, out)
    cone = np.degrees(angle_between(fwd, axis))
    assert cone.max() <= 70.0 + 1e-9
    inside = np.degrees(angle_between(target - pos, axis)) < 70.0
    assert inside.any() and (~inside).any()
    assert np.all(angle_between(fwd[inside], target - pos[inside]) < 1e-9)
    assert np.allclose(cone[~inside], 70.0)
    # Frame to frame the solved head turns smoothly: no step much beyond what the walk and
    # the moving aim give it (at 120 fps those are ~1 degree), so no roll flip. Frame 0 is
    # the file's reference T-pose, from which the clip itself jumps, so steps start at 1.
    _, _, clip_up = head_frame(skel, pose)
    assert np.degrees(angle_between(clip_up[2:], clip_up[1:-1])).max() < 1.5
    assert np.degrees(angle_between(up[2:], up[1:-1])).max() < 3.0
    # Joints outside the look-at keep the clip's rotations exactly.
    others = [i for i, n in enumerate(skel.names) if n not in joints]
    assert np.array_equal(out.rotations[:, others], clip.rotations[:, others])


# --- blend, twist limit and what the kernel reports (the rig's and the bake's look-at) ------


@settings(max_examples=200, deadline=None)
@given(*LOOK_AT_CASES, st.floats(0.0, 1.0), st.sampled_from(["rest", "pose"]))
def test_blend_and_twist_properties(offsets, axes, angles, posed, target, weights, forward, max_angle, max_twist, blend, cone_from):
    skel, pose, up = _random_case(offsets, axes, angles, posed, forward)
    fwd_axis, up_axis = forward / np.linalg.norm(forward), up / np.linalg.norm(up)
    args = (skel, pose, JOINTS, weights, target, forward, up, max_angle)
    out = solve_look_at(*args, max_twist_deg=max_twist, blend=blend, cone_from=cone_from)
    free = solve_look_at(*args, blend=blend, cone_from=cone_from)
    assert np.all(np.isfinite(out.rotations))
    assert np.allclose(np.linalg.norm(out.rotations, axis=-1), 1.0, atol=1e-12)
    pos, fwd, up_now = head_frame(skel, out, "D", fwd_axis, up_axis)
    free_pos, free_fwd, _ = head_frame(skel, free, "D", fwd_axis, up_axis)
    _, ref_fwd, ref_up = head_frame(skel, pose, "D", fwd_axis, up_axis)
    # Blend 0 is the incoming pose exactly, whatever the settings.
    none = solve_look_at(*args, max_twist_deg=max_twist, blend=0.0, cone_from=cone_from)
    assert np.array_equal(none.rotations, pose.rotations) and np.array_equal(none.translations, pose.translations)
    # A joint with no share keeps its pose bit for bit (the head too, unless its roll is held).
    for j, w in zip(JOINTS, weights):
        if w == 0.0 and not (j == "D" and max_twist is not None):
            assert np.array_equal(out.rotations[skel.index(j)], pose.rotations[skel.index(j)])
    if max_twist is not None:
        # Holding the roll turns the head about its own forward: the aim is the free one's...
        assert np.allclose(pos, free_pos, atol=1e-9)
        assert angle_between(fwd, free_fwd) < 1e-7
        # ...and the roll away from level is within the limit (level needs fwd off ref_up).
        if angle_between(fwd, ref_up) > 1e-3 and np.pi - angle_between(fwd, ref_up) > 1e-3:
            assert abs(head_roll(ref_up, fwd, up_now)) <= np.radians(max_twist) + 1e-7
    if weights[0] == 0.0 and weights[1] == 0.0 and weights[2] > 0.0:
        # The head alone turns, about its own position: the aim angle is scaled by the blend
        # from the incoming forward toward the full aim, in one plane, with no roll.
        full = solve_look_at(*args, cone_from=cone_from)
        _, full_fwd, _ = head_frame(skel, full, "D", fwd_axis, up_axis)
        assert angle_between(free_fwd, ref_fwd) == pytest.approx(blend * angle_between(full_fwd, ref_fwd), abs=1e-7)
        assume(np.linalg.norm(np.cross(ref_fwd, full_fwd)) > 1e-6)
        assert abs(np.dot(free_fwd, np.cross(ref_fwd, full_fwd) / np.linalg.norm(np.cross(ref_fwd, full_fwd)))) < 1e-7
        _, _, free_up = head_frame(skel, free, "D", fwd_axis, up_axis)
        assert np.allclose(free_up, quat_rotate(quat_between(ref_fwd, free_fwd), ref_up), atol=1e-7)


@settings(max_examples=100, deadline=None)
@given(*LOOK_AT_CASES)
def test_the_reported_head_and_forward_are_the_solved_pose(offsets, axes, angles, posed, target, weights, forward, max_angle, max_twist):
    # The kernel's head place and forward are those of the pose it returns, measured here by FK.
    from rigedit.core.ik.look_at import aim_frames

    skel, pose, up = _random_case(offsets, axes, angles, posed, forward)
    idx = [skel.index(j) for j in JOINTS]
    fwd_axis, up_axis = forward / np.linalg.norm(forward), up / np.linalg.norm(up)
    shares = np.asarray(weights) / np.sum(weights)
    twist = None if max_twist is None else np.radians(max_twist)
    rot, trans = pose.rotations[None], pose.translations[None]
    local, heads, fwds = aim_frames(skel, rot, trans, idx, shares, target[None], fwd_axis, up_axis, np.radians(max_angle), twist)
    out = pose.copy()
    out.rotations[idx] = local[0]
    pos, fwd, _ = head_frame(skel, out, "D", fwd_axis)
    assert np.allclose(heads[0], pos, atol=1e-9)
    assert angle_between(fwds[0], fwd) < 1e-9
