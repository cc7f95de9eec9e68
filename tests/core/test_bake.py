"""Baking a rig's IK over the CMU walk: identity at weight 0, a planted foot, frame-by-frame
agreement with Rig.solve, timeline-driven weights and targets, export as BVH."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rigedit.core.autochains import propose_chains
from rigedit.core.bake import BakeCancelled, bake
from rigedit.core.ik.limits import HingeLimit
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Pose
from rigedit.core.timeline import Timeline
from rigedit.io.bvh import read_bvh, write_bvh

DATA = Path("/work/shared/data")


@pytest.fixture(scope="module")
def walk():
    return read_bvh(DATA / "cmu_12_01_walk.bvh")


def make_rig(walk, names=None) -> Rig:
    rig = Rig(walk.skeleton, clip=walk.clip)
    for p in propose_chains(walk.skeleton, walk.clip.frame(0)):
        if names is None or p.name in names:
            rig.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole)
    return rig


def world(skeleton, rotations, translations):
    return skeleton.fk_matrices(Pose(rotations, translations))[0]


def test_weight_zero_gives_the_input_clip_bit_for_bit(walk):
    rig = make_rig(walk)
    assert len(rig.chains) == 6  # spine, head, two arms, two legs
    for ch in rig.chains:
        ch.weight = 0.0
    out = bake(rig).clip
    assert np.array_equal(out.rotations, walk.clip.rotations)
    assert np.array_equal(out.translations, walk.clip.translations)
    assert out.frame_time == walk.clip.frame_time
    assert rig.chain("left_leg").weight == 0.0  # the rig is left as it was


def test_planted_foot_stays_on_its_target(walk):
    rig = make_rig(walk, {"left_leg", "right_leg"})
    sk = walk.skeleton
    foot = sk.index("LeftFoot")
    orig = world(sk, walk.clip.rotations, walk.clip.translations)
    # Plant the left foot where it is at mid-walk; the hips keep walking.
    plant = orig[262, foot].copy()
    rig.chain("left_leg").target = plant
    rig.chain("left_leg").reach_clamp = 1.0  # the exact solver's contract: hit to 1e-9, straight beyond
    rig.chain("right_leg").weight = 0.0
    result = bake(rig)
    got = world(sk, result.clip.rotations, result.clip.translations)
    hip = sk.index("LeftUpLeg")
    reach = np.linalg.norm(orig[:, hip] - plant, axis=1)
    a = np.linalg.norm(sk.offsets[sk.index("LeftLeg")])
    b = np.linalg.norm(sk.offsets[foot])
    inside = (reach < (a + b) * (1 - 1e-9)) & (reach > abs(a - b))
    assert inside.sum() > 40  # a stance of a third of a second or more at 120 fps
    np.testing.assert_allclose(got[inside, foot], np.broadcast_to(plant, (inside.sum(), 3)), atol=1e-9)
    reached = result.reached["left_leg"]
    tol = rig.chain("left_leg").tolerance
    assert reached[inside].all()
    assert not reached[reach > a + b + tol * (1 + 1e-6)].any()
    # Out of reach the leg is straight, pointing at the target.
    out = ~inside
    d_knee = got[out, sk.index("LeftLeg")] - got[out, hip]
    d_target = plant - got[out, hip]
    cos = np.sum(d_knee * d_target, axis=1) / np.linalg.norm(d_knee, axis=1) / np.linalg.norm(d_target, axis=1)
    assert np.all(cos > 1 - 1e-9)
    # The hips still walk, the other leg is untouched, and bone lengths hold.
    np.testing.assert_array_equal(got[:, 0], orig[:, 0])
    right = [sk.index(n) for n in ("RightUpLeg", "RightLeg", "RightFoot", "RightToeBase")]
    np.testing.assert_allclose(got[:, right], orig[:, right], atol=1e-12)
    for j in (sk.index("LeftLeg"), foot):
        p = sk.parents[j]
        np.testing.assert_allclose(np.linalg.norm(got[:, j] - got[:, p], axis=1), np.linalg.norm(sk.offsets[j]), rtol=1e-9)


def rig_solve_frames(rig: Rig, timeline, frames):
    """Rig.solve at each frame from its animated pose: what a bake promises to equal."""
    out = []
    for f in frames:
        t = f * rig.clip.frame_time
        if timeline is not None:
            timeline.apply(rig, t)
        else:
            rig.time = t
        rig.reset()
        rig.solve()
        out.append(rig.pose.rotations)
    return np.array(out)


def assert_same_rotations(a, b, atol=1e-9):
    dots = np.abs(np.sum(a * b, axis=-1))
    assert np.all(dots > 1 - atol), dots.min()


def test_each_frame_equals_rig_solve_with_every_kind_of_chain(walk):
    rig = make_rig(walk)  # spine (FABRIK, frame by frame) + four vectorised two-bone limbs
    rig.chain("spine").target = rig.chain("spine").target + np.array([0.1, 0.0, 0.3])
    rig.chain("left_arm").weight = 0.5
    rig.chain("right_arm").pole = None  # keeps the animated bend plane
    # A hinge on the right knee sends that chain through the rig's own per-chain solve.
    rig.chain("right_leg").limits = {"RightLeg": HingeLimit((1.0, 0.0, 0.0), 0.0, 150.0)}
    frames = [0, 1, 100, 262, 523]
    baked = bake(rig).clip
    want = rig_solve_frames(rig.copy(), None, frames)
    assert_same_rotations(baked.rotations[frames], want)


def test_timeline_weights_and_targets_drive_the_bake(walk):
    rig = make_rig(walk, {"left_leg", "right_leg"})
    tl = Timeline(frame_rate=120.0, start=0.0, end=walk.clip.duration)
    tl.add_key("left_leg", "weight", 1.0, 0.0)
    tl.ease_in("left_leg", 2.0, 0.5)
    tl.ease_out("left_leg", 3.0, 0.5)
    sk = walk.skeleton
    orig = world(sk, walk.clip.rotations, walk.clip.translations)
    start = orig[240, sk.index("LeftFoot")]
    tl.key_target("left_leg", 2.0, start)
    tl.key_target("left_leg", 3.0, start + np.array([0.0, 0.2, 0.1]))
    result = bake(rig, timeline=tl)
    frames = [0, 120, 180, 200, 240, 300, 360, 400, 523]
    want = rig_solve_frames(rig.copy(), tl, frames)
    assert_same_rotations(result.clip.rotations[frames], want)
    # Before the ease-in the left leg is the animation; right leg at full weight throughout.
    left = [sk.index("LeftUpLeg"), sk.index("LeftLeg")]
    assert np.array_equal(result.clip.rotations[:120][:, left], walk.clip.rotations[:120][:, left])
    weights = tl.curve("left_leg").sample(np.arange(walk.clip.n_frames) * walk.clip.frame_time)
    assert np.array_equal(
        result.clip.rotations[weights == 0][:, left], walk.clip.rotations[weights == 0][:, left]
    )


def test_progress_and_cancel(walk):
    rig = make_rig(walk)
    calls = []
    bake(rig, progress=lambda done, total: calls.append((done, total)))
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1]
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))
    before = rig.pose.rotations.copy()
    with pytest.raises(BakeCancelled):
        bake(rig, progress=lambda done, total: done < 3)
    assert np.array_equal(rig.pose.rotations, before)


def test_baked_clip_exports_as_bvh(walk, tmp_path):
    rig = make_rig(walk, {"left_leg", "right_leg", "left_arm", "right_arm"})
    rig.chain("left_arm").target = rig.chain("left_arm").target + np.array([0.0, 0.3, 0.2])
    result = bake(rig)
    out = tmp_path / "baked.bvh"
    write_bvh(out, walk.skeleton, result.clip, walk.layout)
    back = read_bvh(out, scale=walk.scale)
    assert back.layout.channels == walk.layout.channels
    baked = world(walk.skeleton, result.clip.rotations, result.clip.translations)
    again = world(back.skeleton, back.clip.rotations, back.clip.translations)
    np.testing.assert_allclose(again, baked, atol=1e-6 * 2.0)


def test_a_rig_without_a_clip_bakes_the_timeline_range(walk):
    rig = Rig(walk.skeleton)
    p = next(p for p in propose_chains(walk.skeleton) if p.name == "left_arm")
    rig.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole)
    shoulder = rig.world_position("LeftArm")
    a, b = shoulder + 0.8 * (p.target - shoulder), shoulder + 0.6 * (p.target - shoulder) + np.array([0.0, -0.2, 0.1])
    tl = Timeline(frame_rate=10.0, start=0.0, end=1.0)
    tl.key_target("left_arm", 0.0, a)
    tl.key_target("left_arm", 1.0, b)
    result = bake(rig, timeline=tl)
    assert result.clip.n_frames == 11 and result.clip.frame_time == pytest.approx(0.1)
    assert result.reached["left_arm"].all()
    pos = world(walk.skeleton, result.clip.rotations, result.clip.translations)
    hand = walk.skeleton.index("LeftHand")
    np.testing.assert_allclose(pos[0, hand], a, atol=1e-9)
    np.testing.assert_allclose(pos[-1, hand], b, atol=1e-9)


@pytest.mark.parametrize("solver", ["fabrik", "ccd"])
@pytest.mark.parametrize("limited", [True, False])
def test_the_bake_of_each_solver_limited_or_not_is_rig_solve_frame_by_frame(walk, solver, limited):
    """The bake runs Rig.solve's compiled frame over many frames in one call (each cold,
    from its own animated pose): Rig.solve from a reset at each frame gives the same poses
    with a reaching chain of each solver, limited or not, and a limb following the clip."""
    rig = make_rig(walk)
    spine = rig.chain("spine")
    spine.solver = solver
    spine.target = spine.target + np.array([0.05, -0.02, 0.2])
    if limited:
        spine.limits = {spine.joints[1]: HingeLimit((1.0, 0.0, 0.0), -30.0, 60.0)}
    rig.chain("left_leg").follow_clip = True
    rig.chain("right_arm").reach_clamp = 0.9
    # From the first frame on, one after another: a follow-clip pole on a straight frame keeps
    # the side of the frame before (clip_goals.py), in the bake as in the live solve.
    frames = list(range(8))
    baked = bake(rig).clip
    assert_same_rotations(baked.rotations[frames], rig_solve_frames(rig.copy(), None, frames))
