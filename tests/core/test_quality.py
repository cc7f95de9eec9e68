"""Each quality measure (rigedit/core/quality) on made-up clips whose answer is known by
construction, at random places (seeded), and the same shares at any scale of the figure."""
from __future__ import annotations

import numpy as np
import pytest

from rigedit.core.lint.of_rig import rig_chains
from rigedit.core.quality import measure_clip
from rigedit.core.quality.body import body_of
from rigedit.core.quality.contacts import LOCKED_SPEED
from rigedit.core.quality.skate import REFERENCE_HEIGHT, SKATE_DISTANCE, STEP_S

import rigedit
from tests.core.quality_clips import (FPS, bend_spine, glide, hand_into_chest, humanoid, move_root, random_frames,
                                      scaled, standing)

N = 150


@pytest.fixture(scope="module")
def skeleton():
    return humanoid()


def test_the_humanoid_reads_as_a_standing_figure(skeleton):
    body = body_of(skeleton, standing(skeleton, 10))
    assert body.height == pytest.approx(1.75, abs=1e-6)
    names = skeleton.names
    assert [names[j] for j in body.feet["left"]] == ["LeftFoot", "LeftToeBase", "LeftToe_End"]
    assert [names[j] for j in body.balls["left"]] == ["LeftFoot", "LeftToeBase"]
    assert names[body.spine[0]] == "Hips" and names[body.spine[-1]] == "Neck"


def test_standing_still_is_clean(skeleton):
    s = measure_clip(skeleton, standing(skeleton, N)).summary()
    assert s["foot_skate_share"] == 0.0
    assert s["grounded_share"] == 1.0 and s["locked_share"] == 1.0
    assert s["slide_mm"] == pytest.approx(0.0, abs=1e-6)
    assert s["ground_penetration_share"] == 0.0 and s["self_penetration_frame_share"] == 0.0
    assert s["jitter_spike_count"] == 0 and s["fault_share_sum"] == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_foot_skate_counts_the_frames_a_low_foot_moves_fast(skeleton, seed):
    rng = np.random.default_rng(seed)
    starts = random_frames(rng, N - 30, 3, gap=30)
    spans = [(a, a + int(rng.integers(8, 20))) for a in starts]
    # 1.5 m/s: 7.5 cm over 1/20 s, three times the 2.5 cm limit; the feet stay on the ground.
    s = measure_clip(skeleton, move_root(standing(skeleton, N), glide(N, spans, 1.5))).summary()
    moving = sum(b - a for a, b in spans)
    counted = N - int(np.ceil(STEP_S * FPS))  # frames whose 1/20 s step ends inside the clip
    # A span's edges count when the step overlaps the move by enough: up to two frames each way.
    assert (moving - 2 * len(spans)) / counted <= s["foot_skate_share"] <= (moving + 2 * len(spans)) / counted
    assert s["foot_contact_share"] == 1.0


@pytest.mark.parametrize("seed", range(2))
def test_a_foot_turning_on_its_ball_is_no_skate_however_fast_its_toe_sweeps(skeleton, seed):
    """The toes spun about the vertical through their base (the ball), fast, on a random span:
    the toe's tip sweeps over the ground several times the skate distance per step, the ankle
    and the ball stay put, so no frame skates (the literature's foot joints are the ankle and
    the ball). The same spin about the ankle moves the ball too: then every frame of it does."""
    from tests.core.quality_clips import set_world_rotation
    from rigedit.core.skeleton import Pose
    from rigedit.core.transforms import quat_from_axis_angle

    rng = np.random.default_rng(seed)
    a = int(rng.integers(10, N - 60))
    frames = range(a, a + 40)
    rate = 20.0  # rad/s: about 1 rad over a step
    up = np.array([0.0, 1.0, 0.0])
    for pivot, skates in (("LeftToeBase", False), ("LeftFoot", True)):
        j = skeleton.index(pivot)
        clip = set_world_rotation(skeleton, standing(skeleton, N), frames, j,
                                  lambda p, f=iter(frames): quat_from_axis_angle(up, rate * (next(f) - a) / FPS))
        pos = skeleton.fk(Pose(clip.rotations, clip.translations))[0]
        tip = pos[:, skeleton.index("LeftToe_End"), [0, 2]]
        step = round(STEP_S * FPS)
        assert np.linalg.norm(tip[a + 20 + step] - tip[a + 20]) > 2 * SKATE_DISTANCE  # the tip sweeps
        share = measure_clip(skeleton, clip).summary()["foot_skate_share"]
        counted = N - int(np.ceil(STEP_S * FPS))
        if skates:
            assert (len(frames) - 4) / counted <= share <= (len(frames) + 2) / counted
        else:
            assert share == 0.0


def test_a_slow_glide_or_a_lifted_foot_is_no_skate(skeleton):
    slow = 0.3 * SKATE_DISTANCE / STEP_S  # well under the limit
    clip = move_root(standing(skeleton, N), glide(N, [(20, 120)], slow))
    assert measure_clip(skeleton, clip).summary()["foot_skate_share"] == 0.0
    lifted = glide(N, [(20, 120)], 1.5)
    lifted[15:125, 1] = 0.3  # 30 cm up while it moves: a jump, not a skate
    assert measure_clip(skeleton, move_root(standing(skeleton, N), lifted)).summary()["foot_skate_share"] == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_slide_over_locked_spans_is_the_distance_a_slow_glide_covers(skeleton, seed):
    rng = np.random.default_rng(seed)
    a = int(rng.integers(10, 50))
    b = a + int(rng.integers(30, 80))
    speed = 0.4 * LOCKED_SPEED * 1.75  # m/s: slow enough that the feet stay locked
    s = measure_clip(skeleton, move_root(standing(skeleton, N), glide(N, [(a, b)], speed))).summary()
    travelled = speed * (b - a) / FPS
    assert s["locked_share"] == 1.0
    for side in ("left", "right"):
        assert s["contacts"][side]["slide_mm"] == pytest.approx(1000 * travelled, rel=1e-6)
    assert s["slide_mm"] == pytest.approx(2000 * travelled, rel=1e-6)


def test_a_fast_slide_unlocks_the_feet_for_its_frames_and_all_of_it_counts(skeleton):
    clip = move_root(standing(skeleton, N), glide(N, [(40, 80)], 1.0))
    s = measure_clip(skeleton, clip).summary()
    assert s["grounded_share"] == 1.0
    assert 1 - 46 / N <= s["locked_share"] <= 1 - 38 / N  # the 40 moving frames, give or take the speed window
    # The plant started still and never lifted: the whole 40 frames' travel is its slide.
    assert s["slide_mm"] == pytest.approx(2 * 1000 * 1.0 * 40 / FPS, rel=1e-6)
    assert s["locked_spans"] == 2


@pytest.mark.parametrize("seed", range(3))
def test_ground_penetration_is_the_frames_and_depth_put_below(skeleton, seed):
    rng = np.random.default_rng(seed)
    frames = random_frames(rng, N, int(rng.integers(3, 20)))
    depth = float(rng.uniform(0.01, 0.05))
    offsets = np.zeros((N, 3))
    offsets[frames, 1] = -depth
    s = measure_clip(skeleton, move_root(standing(skeleton, N), offsets)).summary()
    assert s["ground_penetration_share"] == pytest.approx(len(frames) / N)
    assert s["ground_penetration_max_height"] == pytest.approx(depth / 1.75, abs=1e-6)
    assert s["ground_penetration_max_mm"] == pytest.approx(1000 * depth, abs=1e-3)
    assert s["ground_penetration_frame"] in frames


@pytest.mark.parametrize("seed", range(3))
def test_a_hand_through_the_chest_is_self_penetration_on_those_frames(skeleton, seed):
    rng = np.random.default_rng(seed)
    frames = random_frames(rng, N, int(rng.integers(3, 25)))
    clip = hand_into_chest(skeleton, standing(skeleton, N), frames, side=str(rng.choice(["Left", "Right"])))
    q = measure_clip(skeleton, clip)
    s = q.summary()
    assert s["self_penetration_frame_share"] == pytest.approx(len(frames) / N)
    assert sorted(np.nonzero(q.self_pen.depth > 0)[0].tolist()) == frames
    assert s["self_penetration_parts"]["forearm"] == pytest.approx(len(frames) / N)
    assert 0 < s["self_penetration_point_share"] < s["self_penetration_frame_share"]
    assert s["self_penetration_max_height"] > 0.02  # through the middle, not grazing


@pytest.mark.parametrize("seed", range(3))
def test_jerk_spikes_are_found_at_the_frames_noise_was_put_in(skeleton, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(N) / FPS
    sway = np.stack([0.05 * np.sin(2 * np.pi * 0.5 * t), np.zeros(N), 0.3 * t], axis=1)  # smooth, with some jerk
    clean = move_root(standing(skeleton, N), sway)
    frames = random_frames(rng, N, int(rng.integers(2, 6)), gap=8, margin=4)
    noise = sway.copy()
    for f in frames:
        d = rng.normal(size=3)
        noise[f] += 0.02 * d / np.linalg.norm(d)
    q0, q = measure_clip(skeleton, clean), measure_clip(skeleton, move_root(standing(skeleton, N), noise))
    assert q0.jitter.spikes == []
    spikes = q.jitter.spikes
    assert all(any(abs(s - f) <= 2 for s in spikes) for f in frames), (frames, spikes)
    assert all(any(abs(s - f) <= 2 for f in frames) for s in spikes), (frames, spikes)
    assert q.jitter.mean_jerk > q0.jitter.mean_jerk


@pytest.mark.parametrize("seed", range(2))
def test_limits_give_the_angle_and_time_past_them(skeleton, seed):
    rng = np.random.default_rng(seed)
    rig = rigedit.Rig.default()
    chains, limits = rig_chains(rig)
    frames = random_frames(rng, N, int(rng.integers(3, 15)))
    past = float(rng.uniform(5.0, 25.0))
    clip = bend_spine(skeleton, standing(skeleton, N), frames, 20.0 + past)  # Spine1's cone is 20 degrees
    s = measure_clip(skeleton, clip, chains, limits=limits).summary()
    assert s["limit_max_deg"] == pytest.approx(past, abs=0.05)
    assert s["limit_seconds"] == pytest.approx(len(frames) / FPS)
    assert s["limit_joints"][0]["joint"] == "Spine1"
    clean = measure_clip(skeleton, standing(skeleton, N), chains, limits=limits).summary()
    assert clean["limit_max_deg"] == 0.0 and clean["limit_seconds"] == 0.0
    assert measure_clip(skeleton, clip).summary()["limit_max_deg"] is None  # without limits, not measured


def test_lint_findings_are_counted_by_kind_and_severity(skeleton):
    rig = rigedit.Rig.default()
    chains, limits = rig_chains(rig)
    clip = bend_spine(skeleton, standing(skeleton, N), range(30, 50), 45.0)
    q = measure_clip(skeleton, clip, chains, limits=limits)
    s = q.summary()
    assert s["lint_findings_total"] == len(q.lint.findings) > 0
    assert sum(sum(v.values()) for v in s["lint_findings"].values()) == s["lint_findings_total"]
    assert s["lint_findings"]["limit"]


def _faulty(skeleton, rng):
    frames = random_frames(rng, N, 10)
    clip = hand_into_chest(skeleton, standing(skeleton, N), frames[:5])
    offsets = glide(N, [(20, 40), (90, 110)], 1.2)
    offsets[frames[5:], 1] -= 0.02
    offsets[frames[7], 0] += 0.03
    return move_root(clip, offsets)


@pytest.mark.parametrize("k", [100.0, 0.01])
def test_shares_do_not_depend_on_the_figures_scale(skeleton, k):
    clip = _faulty(skeleton, np.random.default_rng(7))
    a = measure_clip(skeleton, clip).summary()
    sk, big = scaled(skeleton, clip, k)
    b = measure_clip(sk, big).summary()
    assert b["height_m"] == pytest.approx(k * a["height_m"], rel=1e-6)
    for key in ("foot_skate_share", "foot_contact_share", "grounded_share", "locked_share", "locked_spans",
                "ground_penetration_share", "ground_penetration_max_height", "self_penetration_frame_share",
                "self_penetration_point_share", "self_penetration_max_height", "jitter_spike_count", "slide_per_height"):
        assert b[key] == pytest.approx(a[key], rel=1e-5, abs=1e-6), key
    assert b["jitter_mean_jerk_height_per_s3"] == pytest.approx(a["jitter_mean_jerk_height_per_s3"], rel=1e-5)
    assert b["slide_mm"] == pytest.approx(k * a["slide_mm"], rel=1e-5, abs=1e-6)
    assert a["foot_skate_share"] > 0 and a["ground_penetration_share"] > 0 and a["self_penetration_frame_share"] > 0


@pytest.mark.parametrize("frames", [1, 2, 3, 4])
def test_a_clip_too_short_for_a_measure_gives_zeros_not_nan(skeleton, frames):
    q = measure_clip(skeleton, standing(skeleton, frames))
    s = q.summary()
    q.tracks()
    assert s["foot_skate_share"] == 0.0 and s["jitter_spike_count"] == 0 and s["fault_share_sum"] == 0.0
    assert s["jitter_mean_jerk_height_per_s3"] == pytest.approx(0.0, abs=1e-6)  # round-off of a still figure


def test_a_clip_of_another_skeleton_is_refused(skeleton):
    other = standing(skeleton, 5)
    other.rotations = other.rotations[:, :-1]
    other.translations = other.translations[:, :-1]
    with pytest.raises(ValueError, match="joints"):
        measure_clip(skeleton, other)


@pytest.mark.parametrize("seed", range(2))
def test_the_mean_jerk_is_the_bodys_so_fingers_carried_by_the_hands_do_not_change_it(skeleton, seed):
    """A retarget onto a character with fingers must read the same mean jerk as its source
    when every joint both have moves alike: the fingers ride on the hands."""
    from rigedit.core.clip import Clip
    from rigedit.core.skeleton import Skeleton
    from rigedit.core.transforms import quat_from_axis_angle, quat_mul

    rng = np.random.default_rng(seed)
    t = np.arange(N) / FPS
    clip = move_root(standing(skeleton, N), np.stack(
        [0.05 * np.sin(2 * np.pi * rng.uniform(0.3, 1.0) * t), np.zeros(N), 0.4 * t], axis=1))
    for hand in ("LeftHand", "RightHand"):  # the hands wave, so the fingers' jerk is their own
        j = skeleton.index(hand)
        angle = 0.6 * np.sin(2 * np.pi * rng.uniform(1.0, 2.0) * t)
        clip.rotations[:, j] = quat_mul(clip.rotations[:, j], quat_from_axis_angle(
            np.broadcast_to(np.array([1.0, 0.0, 0.0]), (N, 3)), angle))
    names, parents, offsets = list(skeleton.names), list(skeleton.parents), list(skeleton.offsets)
    rest = list(skeleton.rest_rotations)
    for hand in ("LeftHand", "RightHand"):
        for k in range(int(rng.integers(10, 20))):
            names.append(f"{hand}Finger{k}")
            parents.append(skeleton.index(hand))
            offsets.append(rng.normal(scale=0.05, size=3))
            rest.append(np.array([0.0, 0.0, 0.0, 1.0]))
    fingered = Skeleton(names, np.array(parents), np.array(offsets), np.array(rest))
    extra = len(names) - len(skeleton)
    rot = np.concatenate([clip.rotations, np.broadcast_to(np.array([0.0, 0.0, 0.0, 1.0]), (N, extra, 4))], axis=1)
    trans = np.concatenate([clip.translations, np.broadcast_to(np.array(offsets[len(skeleton):]), (N, extra, 3))], axis=1)
    plain = measure_clip(skeleton, clip).jitter.mean_jerk
    with_fingers = measure_clip(fingered, Clip(rot, trans, clip.frame_time)).jitter.mean_jerk
    assert plain > 1.0  # the motion has jerk to compare
    assert with_fingers == pytest.approx(plain, rel=1e-9)
