"""Retargeting (rigedit/core/retarget): the shared walks onto the bundled humanoid keep their
feet planted, the humanoid's bone lengths, the walk's speed scaled by the leg ratio and the
knees' side; a glTF walk comes across; a clip onto its own skeleton comes back unchanged."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rigedit.core.retarget import RetargetError, retarget_clip
from rigedit.core.retarget.feet import contacts_of
from rigedit.core.retarget.limbs import OWN_BEND_DEG
from rigedit.core.retarget.roles import LEGS, find_roles
from rigedit.core.skeleton import Pose
from rigedit.core.transforms import quat_conj, quat_rotate

from .retarget_cases import (
    WALKS,
    biped,
    humanoid,
    knee_side,
    positions,
    random_clip,
    retargeted,
    same_rotation,
    source,
)

SLIDE = 0.005  # the contract: a foot moves at most 5 mm over the ground during a contact
LEG = ("LeftUpLeg", "LeftLeg", "LeftFoot"), ("RightUpLeg", "RightLeg", "RightFoot")


def _xz_stray(points: np.ndarray, contacts) -> list[float]:
    return [float(np.linalg.norm(points[a:b + 1][:, [0, 2]] - points[a, [0, 2]], axis=-1).max()) for a, b in contacts]


@pytest.mark.parametrize("name", WALKS)
def test_feet_stay_within_5_mm_during_the_source_contacts(name):
    r = retargeted(name)
    pos = positions(humanoid(), r.clip)
    sk = humanoid()
    for role, (_, _, ankle) in zip(LEGS, LEG):
        contacts = r.contacts[role]
        assert len(contacts) >= 3, f"{name} {role}: a walk of several steps plants each foot several times"
        strays = _xz_stray(pos[:, sk.index(ankle)], contacts)
        assert max(strays) <= SLIDE, f"{name} {role}: {np.round(np.array(strays) * 1000, 2)} mm"


@pytest.mark.parametrize("name", WALKS)
def test_feet_stay_within_5_mm_during_contacts_found_on_the_output(name):
    """Contacts detected again on the result (lint's detection on the humanoid's legs), not
    only the source's: the hold covers what a lint of the output calls planted."""
    r = retargeted(name)
    sk = humanoid()
    t = find_roles(sk, None, "humanoid")
    found = contacts_of(sk, r.clip, {role: t.limbs[role] for role in LEGS})
    pos = positions(sk, r.clip)
    for role in LEGS:
        assert len(found[role]) >= 3
        strays = _xz_stray(pos[:, t.limbs[role][-1]], found[role])
        assert max(strays) <= SLIDE, f"{name} {role}: {np.round(np.array(strays) * 1000, 2)} mm"


@pytest.mark.parametrize("name", WALKS)
def test_without_the_lock_the_feet_slide(name):
    """The lock is what keeps the feet: proportions differ, so the carried goals alone slide
    (the walks' scaled ankles drift by centimetres in a contact)."""
    src = source(name)
    r = retarget_clip(src.skeleton, src.clip, humanoid(), lock_feet=False)
    assert r.max_slide > 2 * SLIDE


@pytest.mark.parametrize("name", WALKS)
def test_the_target_skeletons_bone_lengths_are_kept(name):
    r = retargeted(name)
    sk = humanoid()
    pos = positions(sk, r.clip)
    rest = np.linalg.norm(sk.offsets, axis=1)
    for j in range(1, len(sk)):
        got = np.linalg.norm(pos[:, j] - pos[:, sk.parents[j]], axis=1)
        np.testing.assert_allclose(got, rest[j], rtol=1e-9, atol=1e-12, err_msg=sk.names[j])


def _leg_length(sk, pos, joints) -> float:
    a, b, c = (sk.index(n) for n in joints)
    return float(np.linalg.norm(pos[b] - pos[a]) + np.linalg.norm(pos[c] - pos[b]))


@pytest.mark.parametrize("name", WALKS)
def test_the_walk_goes_forward_at_the_speed_scaled_by_the_leg_ratio(name):
    """The hips' path over the ground is the source's scaled by the leg ratio. The ratio is
    measured here from the joints' rest positions; the proposer's legs (hip, knee, ankle) are
    those joints on both skeletons, so they agree to round-off (1e-9). The path's only other
    change is the hips lowered where a leg falls short, which is vertical."""
    src = source(name)
    r = retargeted(name)
    sk_s, sk_t = src.skeleton, humanoid()
    rest_s, rest_t = positions(sk_s, src.clip)[0], sk_t.fk(sk_t.rest_pose())[0]
    roles = find_roles(sk_s, src.clip.frame(0), name)
    ls = np.mean([sum(np.linalg.norm(rest_s[b] - rest_s[a]) for a, b in zip(roles.limbs[x], roles.limbs[x][1:])) for x in LEGS])
    ratio = np.mean([_leg_length(sk_t, rest_t, j) for j in LEG]) / ls
    # Source leg lengths from frame 0 and from the rest pose agree: bones are rigid.
    assert r.leg_ratio == pytest.approx(ratio, rel=1e-9)
    hs = positions(sk_s, src.clip)[:, roles.hips]
    pos = positions(sk_t, r.clip)
    ht = pos[:, sk_t.index("Hips")]
    d_s = np.linalg.norm((hs[-1] - hs[0])[[0, 2]])
    d_t = np.linalg.norm((ht[-1] - ht[0])[[0, 2]])
    assert d_s > 2.0  # a walk across the room, not on the spot
    assert d_t / d_s == pytest.approx(ratio, rel=1e-6)
    # Forward: the way the hips face, on average, is the way they go.
    _, q = sk_t.fk(Pose(r.clip.rotations, r.clip.translations))
    facing = quat_rotate(q[:, sk_t.index("Hips")], np.array([0.0, 0.0, 1.0])).mean(axis=0)
    facing[1] = 0.0
    way = (ht[-1] - ht[0]) * [1, 0, 1]
    assert facing @ way / (np.linalg.norm(facing) * np.linalg.norm(way)) > 0.9


@pytest.mark.parametrize("name", WALKS)
def test_knees_bend_forward_as_the_sources_do(name):
    src = source(name)
    r = retargeted(name)
    sk_s, sk_t = src.skeleton, humanoid()
    roles = find_roles(sk_s, src.clip.frame(0), name)
    pos_s, q_s = sk_s.fk(Pose(src.clip.rotations, src.clip.translations))
    pos_t, q_t = sk_t.fk(Pose(r.clip.rotations, r.clip.translations))
    # The source hips' forward: its facing at the reference pose, carried by the hips' turn.
    fwd0 = quat_rotate(quat_conj(roles.quat[roles.hips]), roles.forward)
    fwd_s = quat_rotate(q_s[:, roles.hips], fwd0)
    fwd_t = quat_rotate(q_t[:, sk_t.index("Hips")], np.array([0.0, 0.0, 1.0]))
    for role, names in zip(LEGS, LEG):
        side_s, bend_s = knee_side(pos_s, fwd_s, *roles.limbs[role])
        side_t, _ = knee_side(pos_t, fwd_t, *(sk_t.index(n) for n in names))
        bent = bend_s > np.radians(5.0)
        assert bent.sum() > 0.3 * len(bent)
        assert (side_s[bent] > 0).all()  # the source's knees bend forward...
        assert (side_t[bent] > 0).all(), f"{name} {role}: {np.count_nonzero(side_t[bent] <= 0)} frames bend back"


def test_a_gltf_walk_onto_the_humanoid():
    name = "CesiumMan.glb"
    src = source(name)
    r = retarget_clip(src.skeleton, src.clip, humanoid())
    assert r.clip.n_frames == src.clip.n_frames and r.clip.frame_time == src.clip.frame_time
    assert set(r.chains) == {"spine", "head", "left_leg", "right_leg", "left_arm", "right_arm"}
    sk = humanoid()
    pos = positions(sk, r.clip)
    assert np.isfinite(pos).all()
    # The feet are where CesiumMan's are, scaled about the floor: the ankles' heights follow
    # the source's (a lifted foot is lifted), within the hips' drop and the lift that lets
    # the humanoid's longer toes clear the ground as high as CesiumMan's (feet.above_ground).
    roles = find_roles(src.skeleton, src.clip.frame(0), name)
    s_pos = positions(src.skeleton, src.clip)
    _, s_q = src.skeleton.fk(Pose(src.clip.rotations, src.clip.translations))
    _, t_q = sk.fk(Pose(r.clip.rotations, r.clip.translations))
    fwd_s = quat_rotate(s_q[:, roles.hips], quat_rotate(quat_conj(roles.quat[roles.hips]), roles.forward))
    fwd_t = quat_rotate(t_q[:, sk.index("Hips")], np.array([0.0, 0.0, 1.0]))
    for role, names in zip(LEGS, LEG):
        ys, yt = s_pos[:, roles.limbs[role][-1], 1], pos[:, sk.index(names[2]), 1]
        assert np.corrcoef(ys, yt)[0, 1] > 0.97
        # The humanoid's knees bend the way CesiumMan's do wherever those are bent in a plane
        # of their own (OWN_BEND_DEG); where CesiumMan's are nearly straight and a few degrees
        # back (5 frames), the humanoid's keep bending forward, never back.
        side_s, bend_s = knee_side(s_pos, fwd_s, *roles.limbs[role])
        side_t, bend_t = knee_side(pos, fwd_t, *(sk.index(n) for n in names))
        bent = bend_s > np.radians(OWN_BEND_DEG)
        assert bent.sum() > 0.5 * len(bent)
        assert (np.sign(side_t[bent]) == np.sign(side_s[bent])).all()
        assert (side_t[bend_t > np.radians(5.0)] > 0).all()
    rest = np.linalg.norm(sk.offsets, axis=1)
    for j in range(1, len(sk)):
        np.testing.assert_allclose(np.linalg.norm(pos[:, j] - pos[:, sk.parents[j]], axis=1), rest[j], rtol=1e-9, atol=1e-12)


def test_a_skeleton_without_legs_is_refused_by_name():
    from rigedit.core.clip import Clip
    from tests.core.helpers import chain_skeleton

    sk = chain_skeleton([(0, 1, 0), (0, 0.3, 0), (0, 0.3, 0), (0, 0.2, 0)])
    clip = Clip(np.tile([0.0, 0.0, 0.0, 1.0], (3, 4, 1)), np.broadcast_to(sk.offsets, (3, 4, 3)).copy(), 1 / 30)
    with pytest.raises(RetargetError, match="tentacle.bvh: no left and right legs"):
        retarget_clip(sk, clip, humanoid(), source_label="tentacle.bvh")
    with pytest.raises(RetargetError, match="rig.json: no left and right legs"):
        src = source(WALKS[0])
        retarget_clip(src.skeleton, src.clip, sk, target_label="rig.json")


def test_a_clip_for_another_skeleton_is_refused():
    src = source(WALKS[0])
    other = source(WALKS[1])
    with pytest.raises(RetargetError, match="the clip has 27 joints, the skeleton 38"):
        retarget_clip(src.skeleton, other.clip, humanoid())


angles = st.floats(-0.6, 0.6)
STRAIGHT = 1e-7  # a straight limb's round-off through acos (see the own-skeleton test)


@st.composite
def biped_clips(draw):
    sk = biped()
    frames = draw(st.integers(2, 6))
    a = draw(arrays(np.float64, (frames, len(sk)), elements=angles))
    axes = draw(arrays(np.float64, (frames, len(sk), 3), elements=st.floats(-1, 1)))
    axes[np.linalg.norm(axes, axis=-1) < 0.1] = (1.0, 0.0, 0.0)
    # Knees and elbows are hinges bent one way, as a body's are, by more than limbs.OWN_BEND_DEG
    # (a limb nearly straight takes, in part, the side it bent to before: see limbs._bend).
    for joint, axis in (("ShinL", (1, 0, 0)), ("ShinR", (1, 0, 0)), ("ForeArmL", (0, -1, 0)), ("ForeArmR", (0, 1, 0))):
        j = sk.index(joint)
        axes[:, j] = axis
        a[:, j] = draw(arrays(np.float64, frames, elements=st.floats(0.2, 1.5)))
    hips = draw(arrays(np.float64, (frames, 3), elements=st.floats(-2, 2))) + (0, 1.0, 0)
    return sk, random_clip(sk, a, axes, hips)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(biped_clips())
def test_a_clip_onto_its_own_skeleton_comes_back(case):
    """Every moving joint of the biped has a role, so the retarget is the identity: same
    anatomical frames, leg ratio 1, goals where the clip has the hands and feet. The one
    change is a height: the source's planted ankles (its floor) go to the target's rest ankle
    height, and a random clip has no floor of its own; that is one offset for every frame.
    (Feet are not held: a hold changes a clip whose planted feet slide, as these may.)
    The tolerance is 1e-9 for bent limbs; a limb held exactly straight (the rest pose) is
    solved through the two-bone kernel's acos at a cosine of 1, where a rounding of 1e-16
    turns the knee by sqrt(2e-16) ~ 1.5e-8 rad: STRAIGHT below."""
    sk, clip = case
    r = retarget_clip(sk, clip, sk, lock_feet=False, ground=False, arm_space=False)
    assert r.leg_ratio == pytest.approx(1.0, abs=1e-12)
    assert same_rotation(r.clip.rotations, clip.rotations).max() < STRAIGHT
    src, out = positions(sk, clip), positions(sk, r.clip)
    lift = out[0, 0] - src[0, 0]
    np.testing.assert_allclose(lift[[0, 2]], 0.0, atol=1e-9)
    np.testing.assert_allclose(out, src + lift, atol=STRAIGHT)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(biped_clips(), st.floats(0.3, 3.0))
def test_a_scaled_skeleton_gets_the_motion_scaled(case, k):
    """Onto the same biped scaled by k, every joint's motion is the source's scaled by k."""
    sk, clip = case
    r = retarget_clip(sk, clip, biped(k), lock_feet=False, ground=False, arm_space=False)
    assert r.leg_ratio == pytest.approx(k, rel=1e-12)
    src, out = positions(sk, clip), positions(biped(k), r.clip)
    np.testing.assert_allclose(out - out[:1], k * (src - src[:1]), atol=STRAIGHT * max(k, 1.0))


def a_pose_biped() -> Skeleton:
    """The biped with its arms 45 degrees down from the T-pose (collar to hand)."""
    from rigedit.core.skeleton import Skeleton
    from rigedit.core.transforms import quat_from_axis_angle

    sk = biped()
    offsets = sk.offsets.copy()
    for side, turn in (("L", -np.pi / 4), ("R", np.pi / 4)):
        q = quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), turn)
        for joint in (f"Arm{side}", f"ForeArm{side}", f"Hand{side}", f"Finger{side}"):
            offsets[sk.index(joint)] = quat_rotate(q, offsets[sk.index(joint)])
    return Skeleton(sk.names, sk.parents, offsets, sk.rest_rotations)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(biped_clips())
def test_a_t_pose_clip_onto_an_a_pose_rig_keeps_the_arms_directions(case):
    """Rest poses are aligned bone by bone: the A-pose rig's upper arms and forearms point
    where the T-pose source's do on every frame (not 45 degrees below them). Arm space is
    off: it moves an arm that would pass through the body (hypothesis found such a clip),
    which is its own tests' business."""
    sk, clip = case
    target = a_pose_biped()
    r = retarget_clip(sk, clip, target, lock_feet=False, arm_space=False)
    src, out = positions(sk, clip), positions(target, r.clip)
    for side in "LR":
        for a, b in ((f"Arm{side}", f"ForeArm{side}"), (f"ForeArm{side}", f"Hand{side}")):
            u = src[:, sk.index(b)] - src[:, sk.index(a)]
            v = out[:, target.index(b)] - out[:, target.index(a)]
            np.testing.assert_allclose(v / np.linalg.norm(v, axis=1, keepdims=True), u / np.linalg.norm(u, axis=1, keepdims=True), atol=STRAIGHT)


@pytest.mark.parametrize("name", WALKS + ("CesiumMan.glb",))
def test_a_lint_of_the_result_finds_no_limits_passed_or_jumps(name):
    """Knees and elbows are written back as hinges about the humanoid's own axes, so its
    preset's hinge limits hold; a limb passing straight eases its bend plane, so the upper
    bones do not jump in twist (the Bandai walk's elbow turned its plane 90 degrees in a
    frame). Lint's slide check agrees with the hold."""
    from rigedit.core.lint import lint_clip
    from rigedit.core.rig import Rig

    rig = Rig.default()
    chains = [(c.name, c.joints, c.solver) for c in rig.chains]
    limits = {c.name: dict(c.limits) for c in rig.chains if c.limits}
    report = lint_clip(rig.skeleton, retargeted(name).clip, chains, limits=limits)
    problems = [(f.kind, f.chain, f.joint, f.frame_start, f.detail) for f in report.findings if f.severity != "info"]
    assert problems == []


@pytest.mark.parametrize("figure", ["mixamo", "sfu"])
def test_mixamo_and_sfu_skeletons_retarget_both_ways(figure):
    """No Mixamo or SFU file is among the shared data, so the CMU walk is first put on a
    Mixamo-style skeleton (centimetres, "mixamorig:" names, fingers) and an SFU one (inches,
    a two-joint spine), built as those files lay them out; from there back onto the
    humanoid, its feet still hold through the contacts found on the result."""
    from tests.core import test_autochains_figures as figures

    src = source(WALKS[0])
    middle = getattr(figures, figure)()
    on_middle = retarget_clip(src.skeleton, src.clip, middle)
    assert {"left_leg", "right_leg", "left_arm", "right_arm", "spine"} <= set(on_middle.chains)
    back = retarget_clip(middle, on_middle.clip, humanoid())
    sk = humanoid()
    t = find_roles(sk, None, "humanoid")
    found = contacts_of(sk, back.clip, {role: t.limbs[role] for role in LEGS})
    pos = positions(sk, back.clip)
    for role in LEGS:
        assert len(found[role]) >= 3, f"{figure} {role}: the walk's steps survive two retargets"
        strays = _xz_stray(pos[:, t.limbs[role][-1]], found[role])
        assert max(strays) <= SLIDE, f"{figure} {role}: {np.round(np.array(strays) * 1000, 2)} mm"
    # The walk keeps going forward: the hips end as far from where they started as the
    # source's do, scaled by the two leg ratios.
    travel = np.linalg.norm(np.diff(pos[[0, -1], sk.index("Hips")][:, [0, 2]], axis=0))
    src_pos = positions(src.skeleton, src.clip)
    src_travel = np.linalg.norm(np.diff(src_pos[[0, -1], 0][:, [0, 2]], axis=0))
    assert travel == pytest.approx(src_travel * on_middle.leg_ratio * back.leg_ratio, rel=0.05)
