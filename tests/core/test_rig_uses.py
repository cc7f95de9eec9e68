"""Issue 8 through Rig.solve(): the reach clamp and soft IK on two-bone and FABRIK chains,
and the look_at chain kind (aim, cone, weight 0, no roll over the head)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit  # noqa: F401  (registers the preset reader)
from rigedit.core.chain_uses import LookAtSettings
from rigedit.core.rig import Rig
from rigedit.core.transforms import quat_rotate

from .helpers import chain_skeleton

# Upper 0.5 m + lower 0.4 m, bent a little toward +Z so the bend plane is defined at rest.
LIMB = [(0.0, 0.0, 0.0), (0.0, -0.5, 0.02), (0.0, -0.4, -0.02)]
FULL = 0.9


def limb_rig(solver: str, **kw) -> Rig:
    offsets = LIMB if solver == "two_bone" else [(0, 0, 0), (0, -0.3, 0.01), (0, -0.3, 0.01), (0, -0.3, -0.02)]
    names = [f"j{i}" for i in range(len(offsets))]
    rig = Rig(chain_skeleton(offsets, names))
    extra = {"tolerance": 1e-7, "max_iterations": 500} if solver == "fabrik" else {}
    rig.add_chain("limb", names, solver=solver, **extra, **kw)
    return rig


def full_length(rig: Rig) -> float:
    return float(np.linalg.norm(rig.skeleton.offsets[1:], axis=1).sum())


def bend_deg(rig: Rig) -> float:
    """The largest angle (degrees) between consecutive bones: 0 = perfectly straight."""
    p = np.array([rig.world_position(n) for n in rig.chain("limb").joints])
    b = np.diff(p, axis=0)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    return max(math.degrees(math.acos(np.clip(b[i] @ b[i + 1], -1, 1))) for i in range(len(b) - 1))


def tip(rig: Rig) -> np.ndarray:
    return rig.world_position(rig.chain("limb").joints[-1])


# --- reach clamp ------------------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["two_bone", "fabrik"])
def test_the_default_clamp_keeps_a_limb_bent_however_far_the_target(solver):
    rig = limb_rig(solver)
    assert rig.chain("limb").reach_clamp == 0.999
    length = full_length(rig)
    for far in (1.0, 1.001, 1.5, 10.0):
        rig.chain("limb").target = (0.0, -length * far, 0.05)
        rig.solve()
        rig.solve()
        assert bend_deg(rig) > 1.0, far
        # The tip stops at 99.9 % of full reach, on the line to the target.
        assert np.linalg.norm(tip(rig)) == pytest.approx(0.999 * length, abs=1e-5)


@pytest.mark.parametrize("solver", ["two_bone", "fabrik"])
def test_clamp_1_is_off_and_the_limb_goes_straight(solver):
    rig = limb_rig(solver, reach_clamp=1.0)
    rig.chain("limb").target = (0.0, -5.0, 0.05)
    rig.solve()
    rig.solve()
    assert bend_deg(rig) < 0.05


def test_an_out_of_reach_target_still_reports_out_of_reach_with_the_clamp():
    rig = limb_rig("two_bone")
    rig.chain("limb").target = (0.0, -2.0, 0.0)
    report = rig.solve()["limb"]
    assert not report.reached
    assert report.error == pytest.approx(2.0 - 0.999 * full_length(rig), abs=1e-6)


def test_a_target_inside_the_clamp_is_hit_exactly():
    rig = limb_rig("two_bone")
    rig.chain("limb").target = (0.1, -0.6, 0.2)
    assert rig.solve()["limb"].reached
    np.testing.assert_allclose(tip(rig), (0.1, -0.6, 0.2), atol=1e-6)


@pytest.mark.parametrize(
    "field, value, problem",
    [
        ("reach_clamp", 1.5, "between 0.5 and 1"),
        ("reach_clamp", 0.1, "between 0.5 and 1"),
        ("reach_clamp", float("nan"), "finite"),
        ("softness", -0.1, "between 0 and"),
        ("softness", "a", "must be a number"),
    ],
)
def test_bad_clamp_and_softness_are_refused_naming_chain_and_field(field, value, problem):
    rig = limb_rig("two_bone")
    before = rig.chain("limb").settings()
    with pytest.raises(ValueError) as e:
        setattr(rig.chain("limb"), field, value)
    assert f"chain 'limb': {field}" in str(e.value) and problem in str(e.value)
    assert rig.chain("limb").settings() == before


# --- soft IK ----------------------------------------------------------------------------------


def sweep(rig: Rig, direction, start: float, stop: float, steps: int):
    """Move the target from start to stop (fractions of full length) along `direction`,
    solving each step; returns target positions, tip positions and bend angles (deg)."""
    d = np.asarray(direction, dtype=np.float64)
    d /= np.linalg.norm(d)
    length = full_length(rig)
    targets, tips, bends = [], [], []
    for f in np.linspace(start, stop, steps):
        t = d * f * length
        rig.chain("limb").target = t
        rig.solve()
        rig.solve()  # FABRIK settles over warm-started solves; the two-bone form needs one
        targets.append(t)
        tips.append(tip(rig))
        bends.append(bend_deg(rig))
    return np.array(targets), np.array(tips), np.array(bends)


@settings(max_examples=15, deadline=None)
@given(
    solver=st.sampled_from(["two_bone", "fabrik"]),
    softness=st.floats(0.01, 0.2),
    az=st.floats(-0.6, 0.6),
)
def test_soft_ik_tip_never_jumps_more_than_the_target_moved(solver, softness, az):
    rig = limb_rig(solver, softness=softness)
    direction = (math.sin(az), -1.0, 0.3 * math.cos(az))
    targets, tips, _ = sweep(rig, direction, 0.8, 1.2, 81)
    target_step = np.linalg.norm(np.diff(targets, axis=0), axis=1)
    tip_step = np.linalg.norm(np.diff(tips, axis=0), axis=1)
    # FABRIK stops within its tolerance (1e-7 m) of the eased target, so allow that twice.
    assert np.all(tip_step <= target_step + 2e-6), (tip_step - target_step).max()
    # ... and it does ease: the tip stays short of full reach all the way.
    assert np.linalg.norm(tips[-1]) < full_length(rig)


def test_soft_ik_straightens_the_knee_smoothly_where_plain_ik_snaps():
    def worst_knee_step(**kw):
        _, _, bends = sweep(limb_rig("two_bone", **kw), (0.0, -1.0, 0.1), 0.9, 1.1, 201)
        return np.abs(np.diff(bends)).max()

    snap = worst_knee_step(reach_clamp=1.0)
    soft = worst_knee_step(softness=0.1)
    # Exact IK: the knee angle goes like sqrt(L - d), so the last step before full reach
    # moves it several degrees; soft IK keeps each step a small fraction of that.
    assert snap > 3.0
    assert soft < snap / 4


# --- look_at ----------------------------------------------------------------------------------


def humanoid_with_look(**look) -> Rig:
    rig = Rig.default()
    rig.add_chain("look", ["Neck", "Head"], solver="look_at", look_at=LookAtSettings(weights=(0.4, 0.6), **look))
    rig.solve()
    return rig


def head_axes(rig: Rig):
    pos, quats = rig.skeleton.fk(rig.pose)
    h = rig.skeleton.index("Head")
    return pos[h], quat_rotate(quats[h], np.array([0.0, 0.0, 1.0])), quat_rotate(quats[h], np.array([0.0, 1.0, 0.0]))


def angle_deg(a, b) -> float:
    return math.degrees(math.acos(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b), -1.0, 1.0)))


def test_adding_a_look_at_chain_changes_no_pose():
    rig = Rig.default()
    rig.solve()
    before = rig.world_positions()
    rig.add_chain("look", ["Neck", "Head"], solver="look_at")
    assert rig.solve()["look"].reached
    np.testing.assert_allclose(rig.world_positions(), before, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(yaw=st.floats(-75, 75), pitch=st.floats(-60, 60), dist=st.floats(0.5, 5.0))
def test_look_at_aims_the_head_at_a_target_inside_the_cone(yaw, pitch, dist):
    rig = humanoid_with_look(max_angle_deg=80.0)
    head = rig.world_position("Head")
    y, p = math.radians(yaw), math.radians(pitch)
    # Keep the direction well inside the 80 degree cone around +Z: the neck's share of the
    # turn moves the head, and with it the direction to a near target, by a few degrees.
    if angle_deg(np.array([math.sin(y) * math.cos(p), math.sin(p), math.cos(y) * math.cos(p)]), np.array([0, 0, 1.0])) > 65:
        return
    target = head + dist * np.array([math.sin(y) * math.cos(p), math.sin(p), math.cos(y) * math.cos(p)])
    rig.chain("look").target = target
    report = rig.solve()["look"]
    pos, fwd, _ = head_axes(rig)
    assert angle_deg(fwd, target - pos) < 0.01
    assert report.reached and report.error < 1e-3


def test_look_at_stays_inside_its_cone_for_a_target_behind():
    rig = humanoid_with_look(max_angle_deg=50.0)
    head = rig.world_position("Head")
    rig.chain("look").target = head + np.array([2.0, 0.0, -1.0])
    report = rig.solve()["look"]
    _, fwd, _ = head_axes(rig)
    # The cone is around the rest forward under the torso (+Z here, the torso is at rest).
    assert angle_deg(fwd, np.array([0.0, 0.0, 1.0])) == pytest.approx(50.0, abs=0.05)
    assert not report.reached


def test_look_at_weight_0_gives_the_animated_pose_exactly():
    rig = humanoid_with_look()
    rig.chain("look").target = rig.world_position("Head") + np.array([1.0, 0.5, 1.0])
    rig.solve()
    rig.chain("look").weight = 0.0
    rig.solve()
    other = Rig.default()
    other.solve()
    np.testing.assert_array_equal(rig.pose.rotations, other.pose.rotations)


def test_look_at_half_weight_turns_part_way():
    rig = humanoid_with_look()
    target = rig.world_position("Head") + np.array([1.0, 0.0, 1.0])  # 45 degrees to the left
    rig.chain("look").target = target
    rig.chain("look").weight = 0.5
    rig.solve()
    pos, fwd, _ = head_axes(rig)
    turned = angle_deg(fwd, np.array([0.0, 0.0, 1.0]))
    assert 10.0 < turned < 35.0


@pytest.mark.parametrize("side", [0.0, 0.05])
def test_look_at_never_rolls_as_the_target_passes_over_the_head(side):
    rig = humanoid_with_look(max_angle_deg=170.0)
    head = rig.world_position("Head")
    ups, fwds = [], []
    # Front, over the top, to behind: the pole of a look-at matrix built from world up.
    for a in np.linspace(0.0, 170.0, 341):
        r = math.radians(a)
        rig.chain("look").target = head + 2.0 * np.array([side, math.sin(r), math.cos(r)])
        rig.solve()
        _, fwd, up = head_axes(rig)
        ups.append(up)
        fwds.append(fwd)
    ups, fwds = np.array(ups), np.array(fwds)
    up_steps = [angle_deg(a, b) for a, b in zip(ups, ups[1:])]
    fwd_steps = [angle_deg(a, b) for a, b in zip(fwds, fwds[1:])]
    # The up axis turns with the aim (0.5 degree a step, a few times that where the target
    # passes close to the head's pole) and never spins about it: a flip is a ~180 degree step.
    assert max(up_steps) < 5.0, max(up_steps)
    assert max(fwd_steps) < 1.0
    if side == 0.0:
        # Straight over the top: the head's up stays in the plane the target moves in.
        assert np.abs(ups[:, 0]).max() < 1e-6


def test_look_at_chain_refuses_limits_with_a_clear_message():
    rig = humanoid_with_look()
    from rigedit.core.ik.limits import ConeLimit

    with pytest.raises(ValueError, match="look_at chain takes no joint limits"):
        rig.chain("look").limits = {"Neck": ConeLimit(30.0)}


def test_look_at_bad_settings_are_refused():
    rig = humanoid_with_look()
    with pytest.raises(ValueError, match="chain 'look': look_at weights must give one share per joint"):
        rig.chain("look").look_at = LookAtSettings(weights=(1.0,))
    with pytest.raises(ValueError, match="up_axis must not be parallel"):
        rig.chain("look").look_at = LookAtSettings(up_axis=(0.0, 0.0, 2.0))


# --- ground feet ------------------------------------------------------------------------------


def test_grounded_feet_stay_on_the_height_field_over_the_walk_clip():
    from rigedit.core.rig import BUNDLED_PRESETS

    rig = Rig.load(BUNDLED_PRESETS / "uneven_ground_walk.json")
    field = rig.ground.field
    sk = rig.skeleton
    rest = sk.fk(sk.rest_pose())[0]
    planted_frames = 0
    for f in range(rig.clip.n_frames):
        t = f * rig.clip.frame_time
        rig.time = t
        reports = rig.solve()
        anim = sk.fk(rig.clip.pose_at(t))[0]
        for leg in ("left_leg", "right_leg"):
            assert reports[leg].reached, (t, leg, reports[leg])
            foot = sk.index(rig.chain(leg).joints[-1])
            ankle = rest[foot, 1]
            got = rig.world_position(sk.names[foot])
            # x and z come from the animation, untouched: the foot does not slide.
            assert np.hypot(*(got - anim[foot])[[0, 2]]) < 1e-3
            lift = anim[foot, 1] - ankle
            ground = float(field.height(got[0], got[2]))
            if lift <= 1e-9:  # planted in the clip: on the terrain, within 1 mm
                planted_frames += 1
                assert abs(got[1] - (ground + ankle)) < 1e-3, (t, leg, got, ground)
            else:  # swinging: as far above the terrain as the clip had it above its floor
                assert abs(got[1] - (ground + ankle + lift)) < 1e-3
    assert planted_frames > rig.clip.n_frames  # both feet spend most of the walk planted


def test_the_pelvis_drops_only_as_far_as_the_lower_foot_needs():
    from rigedit.core.ground import HeightField
    from rigedit.core.rig import BUNDLED_PRESETS

    rig = Rig.load(BUNDLED_PRESETS / "uneven_ground_walk.json")
    # A 20 cm ledge under the right foot (x < 0), the floor under the left: the body rides
    # the 10 cm between them, so the left foot needs the pelvis lower.
    heights = np.zeros((2, 2))
    heights[:, 0] = 0.2
    rig.ground = HeightField(heights, 0.1, (-0.05, -50.0))
    sk = rig.skeleton
    dropped = 0
    for t in np.linspace(0.0, rig.clip.duration, 41):
        rig.time = float(t)
        reports = rig.solve()
        assert all(r.reached for r in reports.values())
        clip_hips = sk.fk(rig.clip.pose_at(float(t)))[0][0]
        drop = clip_hips[1] + 0.1 - rig.world_position("Hips")[1]
        assert drop >= -1e-12
        stretch = []
        for leg in ("left_leg", "right_leg"):
            ch = rig.chain(leg)
            hip = rig.world_position(ch.joints[0])
            length = np.linalg.norm(sk.offsets[[sk.index(j) for j in ch.joints[1:]]], axis=1).sum()
            stretch.append(np.linalg.norm(rig.shown_target(leg) - hip) / length)
        # Never further than the reach clamp; and a pelvis that dropped went only as far as
        # the most stretched leg needed, which then sits exactly at the clamp.
        assert max(stretch) <= 0.999 + 1e-9
        if drop > 1e-9:
            dropped += 1
            assert max(stretch) == pytest.approx(0.999, abs=1e-9)
    assert dropped > 10


def test_ground_feet_off_leaves_the_clip_pose():
    from rigedit.core.rig import BUNDLED_PRESETS

    rig = Rig.load(BUNDLED_PRESETS / "uneven_ground_walk.json")
    for leg in ("left_leg", "right_leg"):
        rig.chain(leg).ground_feet = False
        rig.chain(leg).weight = 0.0
    rig.time = 2.0
    rig.solve()
    np.testing.assert_allclose(rig.world_position("Hips"), rig.skeleton.fk(rig.clip.pose_at(2.0))[0][0], atol=1e-12)


# --- creature gait ----------------------------------------------------------------------------


def test_creature_walking_its_path_keeps_planted_feet_still_and_a_side_on_the_ground():
    from rigedit.core.rig import BUNDLED_PRESETS
    from rigedit.core.rig_gait import advance_gait

    rig = Rig.load(BUNDLED_PRESETS / "creature_gait.json")
    legs = list(rig.gait.legs)
    tips = [rig.chain(leg).joints[-1] for leg in legs]
    left = [k for k, leg in enumerate(legs) if "_L" in leg]
    right = [k for k, leg in enumerate(legs) if "_R" in leg]
    rig.time = 0.0
    rig.advance_gait()
    rig.solve()
    dt = 1.0 / 30.0
    last = np.array([rig.world_position(t) for t in tips])
    was_planted = rig.running_gait.gait.planted.copy()
    steps = np.zeros(len(legs), dtype=int)
    body_start = rig.world_position("Body")
    while rig.time < rig.clip.duration - 1e-9:
        reports = advance_gait(rig, dt)
        planted = rig.running_gait.gait.planted.copy()
        now = np.array([rig.world_position(t) for t in tips])
        for k, leg in enumerate(legs):
            # Each leg is solved by its FABRIK chain with its limits, to within a millimetre.
            assert reports[leg].error < 1e-3, (rig.time, leg, reports[leg])
            if was_planted[k] and planted[k]:
                # Planted before and after this frame: the foot has not moved.
                assert np.linalg.norm(now[k] - last[k]) < 1e-3, (rig.time, leg, now[k] - last[k])
            steps[k] += was_planted[k] and not planted[k]
        # Never every leg of one side in the air.
        assert planted[left].any() and planted[right].any(), (rig.time, planted)
        last, was_planted = now, planted
    assert np.linalg.norm(rig.world_position("Body") - body_start) > 1.5  # it went somewhere
    assert (steps >= 3).all(), steps  # and every leg stepped along the way


def test_the_gait_follows_a_body_moved_by_hand_headless():
    from rigedit.core.rig import BUNDLED_PRESETS

    rig = Rig.load(BUNDLED_PRESETS / "creature_gait.json")
    rig.clip = None  # no path: the rest pose, body at the origin
    rig.advance_gait()
    before = np.array([rig.chain(leg).target for leg in rig.gait.legs])
    rig.advance_gait(1.0 / 30.0)  # the body has not moved: nothing steps
    np.testing.assert_array_equal(np.array([rig.chain(leg).target for leg in rig.gait.legs]), before)


def test_removing_a_leg_chain_drops_the_gait_and_bad_gaits_are_refused():
    from rigedit.core.rig import BUNDLED_PRESETS
    from rigedit.core.rig_gait import GaitSettings

    rig = Rig.load(BUNDLED_PRESETS / "creature_gait.json")
    with pytest.raises(ValueError, match="gait leg 'tail' is not a chain"):
        rig.gait = GaitSettings(("leg_L1", "tail"))
    with pytest.raises(ValueError, match="step_time must be a positive number"):
        rig.gait = GaitSettings(("leg_L1", "leg_R1"), step_time=0.0)
    rig.remove_chain("leg_L1")
    assert rig.gait is None


# --- bake -------------------------------------------------------------------------------------


def test_bake_of_the_look_at_scene_equals_rig_solve_frame_by_frame():
    from rigedit.core.bake import bake
    from rigedit.core.rig import BUNDLED_PRESETS

    rig = Rig.load(BUNDLED_PRESETS / "look_at.json")
    rig.chain("left_arm").softness = 0.05  # a soft limb in the same bake
    rig.chain("left_arm").target = (0.9, 1.4, 0.1)  # out past full reach
    result = bake(rig)
    tl = rig.timeline
    for f in range(0, result.clip.n_frames, 10):
        t = f * result.clip.frame_time
        tl.apply(rig, t)
        rig.reset()
        rig.solve()
        got = result.clip.rotations[f]
        dots = np.abs(np.sum(got * rig.pose.rotations, axis=-1))
        assert np.all(dots > 1 - 1e-9), (t, dots.min())
    assert result.reached["look"].all()


def test_a_planted_foot_turns_with_the_ground_normal():
    from rigedit.core.rig import BUNDLED_PRESETS
    from rigedit.core.transforms import quat_conj, quat_mul

    rig = Rig.load(BUNDLED_PRESETS / "uneven_ground_walk.json")
    sk, field = rig.skeleton, rig.ground.field
    rest = sk.fk(sk.rest_pose())[0]
    checked = 0
    for f in range(0, rig.clip.n_frames, 3):
        t = f * rig.clip.frame_time
        rig.time = t
        rig.solve()
        anim_pos, anim_q = sk.fk(rig.clip.pose_at(t))
        pos, q = sk.fk(rig.pose)
        for leg in ("left_leg", "right_leg"):
            foot = sk.index(rig.chain(leg).joints[-1])
            if anim_pos[foot, 1] - rest[foot, 1] > 1e-9:
                continue  # swinging: the tilt fades out as the foot lifts
            # What the solve turned the animated foot by takes "up" onto the ground's normal
            # (the slope and steps tilt under 30 degrees, the ankle's limit).
            turn = quat_mul(q[foot], quat_conj(anim_q[foot]))
            up = quat_rotate(turn, np.array([0.0, 1.0, 0.0]))
            normal = field.normal(pos[foot, 0], pos[foot, 2])
            assert np.degrees(np.arccos(np.clip(up @ normal, -1, 1))) < 0.01, (t, leg)
            checked += 1
    assert checked > 30


@pytest.mark.parametrize("stem", ["uneven_ground_walk", "creature_gait"])
def test_bake_of_a_grounded_or_gait_scene_keeps_what_the_play_shows(stem):
    from rigedit.core.bake import bake
    from rigedit.core.rig import BUNDLED_PRESETS

    rig = Rig.load(BUNDLED_PRESETS / f"{stem}.json")
    result = bake(rig)
    assert result.clip.n_frames == rig.clip.n_frames
    sk = rig.skeleton
    # Frame by frame the baked clip's feet are where playing the scene (its timeline: the
    # walk's plant keys) puts them.
    play = Rig.load(BUNDLED_PRESETS / f"{stem}.json")
    for f in range(result.clip.n_frames):
        play.timeline.apply(play, f * rig.clip.frame_time)
        play.advance_gait()
        play.solve()
        if f % 15 == 0:
            baked = sk.fk(result.clip.frame(f))[0]
            np.testing.assert_allclose(baked, play.world_positions(), atol=1e-6)
