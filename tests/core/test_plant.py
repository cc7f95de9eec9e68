"""Plant and release keys (rigedit.core.plant): contacts found in the clip, weight ramps at
their edges, and the grounded walk scene playing its keys."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit  # noqa: F401  (registers the preset reader)
from rigedit.core.clip import Clip
from rigedit.core.plant import PlantSettings, find_contacts, key_plants, plant_curve, plant_tracks
from rigedit.core.rig import BUNDLED_PRESETS, Rig
from rigedit.core.skeleton import Skeleton
from rigedit.core.timeline import Timeline

# The shared data sits beside the clone (CI) or at /work/shared (developers' machines).
DATA = next((d for d in (Path(__file__).resolve().parents[3] / "shared" / "data", Path("/work/shared/data")) if d.is_dir()),
            Path("/work/shared/data"))
FPS = 30.0
HIP_Y = 0.97
LEG = ((0.0, -0.05, 0.0), (0.0, -0.42, 0.0), (0.0, -0.42, 0.0))  # up-leg, knee, ankle offsets
ANKLE = HIP_Y + sum(o[1] for o in LEG)  # 0.08 m: the rest pose stands on y = 0


def legs_rig(schedules: dict[str, list[tuple[str, int]]]) -> tuple[Rig, dict[str, list[tuple[int, int]]]]:
    """A hips joint with a leg per schedule, and a clip in which each ankle does exactly what
    its schedule says: ("plant", n) holds it still on the floor for n frames, ("swing", n)
    carries it 0.5 m forward along a 10 cm arc over n frames (the frames strictly between
    two plants). The leg's up-leg offset is what moves (the clip keys every local offset),
    so the ankle's world path is set directly. Returns the rig and each leg's contacts
    (first, last planted frame)."""
    joints = [("Hips", None, (0.0, HIP_Y, 0.0))]
    for side, x in zip(schedules, (0.1, -0.1, 0.3, -0.3)):
        joints += [(f"{side}_up", "Hips", (x,) + LEG[0][1:]), (f"{side}_knee", f"{side}_up", LEG[1]),
                   (f"{side}_ankle", f"{side}_knee", LEG[2])]
    sk = Skeleton.from_joints(joints)
    n = max(sum(k for _, k in s) for s in schedules.values())
    trans = np.broadcast_to(sk.offsets, (n,) + sk.offsets.shape).copy()
    trans[:, 0, 2] = 0.8 * np.arange(n) / FPS  # the hips walk on regardless
    contacts = {}
    for side, schedule in schedules.items():
        up = sk.index(f"{side}_up")
        ankle_z, frame, path, found = 0.0, 0, [], []
        for kind, k in schedule:
            if kind == "plant":
                found.append((frame, frame + k - 1))
                path += [(0.0, ankle_z)] * k
            else:
                u = np.arange(1, k + 1) / (k + 1)
                path += [(0.1 * np.sin(np.pi * v), ankle_z + 0.5 * v) for v in u]
                ankle_z += 0.5
            frame += k
        path += [path[-1]] * (n - len(path))
        lift, z = np.array(path).T
        # ankle world = hips + up offset + knee + ankle offsets
        trans[:, up, 1] = ANKLE + lift - HIP_Y - LEG[1][1] - LEG[2][1]
        trans[:, up, 2] = z - trans[:, 0, 2]
        contacts[side] = found
    rot = np.broadcast_to(sk.rest_rotations, (n,) + sk.rest_rotations.shape).copy()
    rig = Rig(sk, clip=Clip(rot, trans, 1.0 / FPS))
    for side in schedules:
        rig.add_chain(side, [f"{side}_up", f"{side}_knee", f"{side}_ankle"])
        rig.chain(side).ground_feet = True
    rig.timeline = Timeline(FPS, 0.0, (n - 1) / FPS)
    return rig, contacts


def weights_per_frame(curve, n):
    return np.array([curve.at(f / FPS) for f in range(n)])


RAMP = round(0.15 * FPS)  # 4.5 frames: half a frame rounds up to 5 (0.167 s)


# A walk-like schedule: plants of at least two frames (a foot is seen still between two
# frames), swings long enough for both ramps.
schedule = st.lists(
    st.tuples(st.integers(2, 25), st.integers(2 * 5 + 1, 20)), min_size=1, max_size=4
).map(lambda pairs: [step for p, s in pairs for step in (("plant", p), ("swing", s))] + [("plant", 6)])


@settings(max_examples=60, deadline=None)
@given(st.integers(6, 20), schedule, st.sampled_from([0.1, 0.15, 0.2]))
def test_ramps_meet_the_contact_edges_and_weight_is_1_while_planted(lead, steps, ease):
    rig, known = legs_rig({"left": [("swing", lead)] + steps})
    assert find_contacts(rig, "left") == known["left"]
    n = rig.clip.n_frames
    ramp = max(1, int(np.floor(ease * FPS + 0.5 + 1e-9)))
    tracks = plant_tracks(rig, ["left"], PlantSettings(ease_s=ease))
    curve = tracks["left"].weight
    w = weights_per_frame(curve, n)
    keys = curve.keys
    # Ramps: each 0 -> 1 or 1 -> 0 pair of neighbouring keys, 0.1 - 0.2 s long.
    ramps = [(a, b) for a, b in zip(keys, keys[1:]) if a.value != b.value]
    assert ramps
    for a, b in ramps:
        assert 0.1 - 1e-9 <= b.time - a.time <= 0.2 + 1e-9
    ins = [b.time for a, b in ramps if b.value == 1.0]
    outs = [a.time for a, b in ramps if a.value == 1.0]
    for first, last in known["left"]:
        assert np.all(w[first:last + 1] == 1.0), (first, last)
        if first > 0:  # eased in, reaching 1 at the plant (within a frame)
            assert min(abs(t * FPS - first) for t in ins) <= 1 + 1e-6
        if last < n - 1:  # eased out, starting at the release
            assert min(abs(t * FPS - last) for t in outs) <= 1 + 1e-6
    # No jump bigger than a step of the ease (smoothstep's steepest slope is 1.5 / ramp).
    assert np.max(np.abs(np.diff(w))) <= 1.5 / ramp + 1e-9
    # Mid-swing the leg plays the clip: weight 0 half-way through every swing that has room.
    for (_, last), (first, _) in zip(known["left"], known["left"][1:]):
        if first - last > 2 * ramp:
            assert w[(first + last) // 2] == 0.0
    assert w[0] == 0.0  # the clip opens mid-swing


def test_a_lift_too_short_for_two_ramps_keeps_full_weight():
    rig, known = legs_rig({"left": [("swing", 8), ("plant", 10), ("swing", 6), ("plant", 10), ("swing", 14), ("plant", 5)]})
    assert len(find_contacts(rig, "left")) == 3
    w = weights_per_frame(plant_tracks(rig, ["left"])["left"].weight, rig.clip.n_frames)
    (_, l0), (f1, l1), (f2, _) = known["left"]
    assert np.all(w[l0:f1 + 1] == 1.0)  # the 6-frame lift (under 2 x 5) is bridged
    assert w[(l1 + f2) // 2] == 0.0  # the 14-frame one eases out and back in
    # Planted from the first frame: no ramp before it; planted to the last: none after.
    rig, _ = legs_rig({"left": [("plant", 3), ("swing", 12), ("plant", 2)]})
    w = weights_per_frame(plant_tracks(rig, ["left"])["left"].weight, rig.clip.n_frames)
    assert w[0] == 1.0 and w[-1] == 1.0 and w[9] == 0.0


def test_key_plants_writes_every_ground_feet_leg_and_returns_the_undo():
    rig, known = legs_rig({"left": [("plant", 10), ("swing", 15), ("plant", 20)],
                           "right": [("swing", 12), ("plant", 20), ("swing", 13)]})
    rig.timeline.key_target("left", 0.5, (0.1, 0.08, 0.3))  # other curves are kept
    before = rig.timeline.copy()
    previous = key_plants(rig)
    assert set(previous) == {"left", "right"}
    for leg in ("left", "right"):
        assert len(rig.timeline.curve(leg)) >= 2
    assert len(rig.timeline.curve("left", "target")) == 1
    for leg, track in previous.items():
        rig.timeline.set_track(leg, track)
    assert rig.timeline == before


@pytest.mark.parametrize(
    "kwargs, problem",
    [
        (dict(ease_s=0.01), "ease_s must be at least 0.05 and at most 1 s, got 0.01"),
        (dict(ease_s=float("nan")), "ease_s must be a finite number"),
        (dict(height_m=-0.1), "height_m must be at least 0"),
        (dict(speed_mps=0.0), "speed_mps must be above 0"),
        (dict(speed_mps="fast"), "speed_mps must be a finite number"),
    ],
)
def test_bad_settings_are_refused_by_name(kwargs, problem):
    with pytest.raises(ValueError, match=problem):
        PlantSettings(**kwargs)


def test_bad_rigs_and_legs_are_refused_with_a_reason():
    rig, _ = legs_rig({"left": [("plant", 10), ("swing", 15), ("plant", 20)]})
    with pytest.raises(KeyError, match="nope"):
        key_plants(rig, ["nope"])
    rig.chain("left").ground_feet = False
    with pytest.raises(ValueError, match="no leg chain has ground feet on"):
        key_plants(rig)
    rig.add_chain("look", ["Hips", "left_up"], solver="look_at")
    with pytest.raises(ValueError, match="'look' is a look_at chain"):
        key_plants(rig, ["look"])
    # A foot that never comes down (it only swings) is named, and nothing is keyed.
    flying, _ = legs_rig({"left": [("swing", 31)], "right": [("plant", 10), ("swing", 12), ("plant", 9)]})
    flying.clip.translations[:, flying.skeleton.index("left_up"), 1] += 0.3
    with pytest.raises(ValueError, match="'left' never plants"):
        key_plants(flying)
    assert flying.timeline.tracks == {}
    rig.clip = None
    with pytest.raises(ValueError, match="no clip"):
        key_plants(rig, ["left"])
    with pytest.raises(ValueError, match="no contacts"):
        plant_curve([], 10, 1 / FPS, 0.15)


@pytest.mark.parametrize(
    "file, legs",
    [
        ("cmu_12_01_walk.bvh", (("LeftUpLeg", "LeftLeg", "LeftFoot"), ("RightUpLeg", "RightLeg", "RightFoot"))),
        ("dataset-1_walk-right_normal_001.bvh", (("UpperLeg_L", "LowerLeg_L", "Foot_L"), ("UpperLeg_R", "LowerLeg_R", "Foot_R"))),
    ],
)
def test_a_mocap_walk_plants_its_feet_in_turn(file, legs):
    from rigedit.io.bvh import read_bvh

    bvh = read_bvh(f"{DATA}/{file}")
    rig = Rig(bvh.skeleton, clip=bvh.clip)
    for name, joints in zip(("left", "right"), legs):
        rig.add_chain(name, list(joints))
        rig.chain(name).ground_feet = True
    rig.timeline = Timeline(bvh.clip.frame_rate, 0.0, bvh.clip.duration)
    key_plants(rig)
    t = np.arange(bvh.clip.n_frames) * bvh.clip.frame_time
    w = {leg: rig.timeline.curve(leg).sample(t) for leg in ("left", "right")}
    # A walk: each foot plants (weight 1) at least twice and swings (weight 0) in between,
    # and the two feet are never both in the air.
    for leg in ("left", "right"):
        full = np.concatenate([[False], w[leg] == 1.0, [False]]).astype(int)
        assert np.count_nonzero(np.diff(full) == 1) >= 2, leg
        assert np.any(w[leg] == 0.0), leg
    assert not np.any((w["left"] == 0.0) & (w["right"] == 0.0))


# --- the uneven ground walk scene, playing its plant keys -------------------------------------


def test_the_walk_scene_carries_plant_keys_and_planted_feet_stay_on_the_ground():
    rig = Rig.load(BUNDLED_PRESETS / "uneven_ground_walk.json")
    assert {"left_leg", "right_leg"} <= set(rig.timeline.tracks)
    expected = plant_tracks(rig, ["left_leg", "right_leg"])
    for leg, track in expected.items():
        assert rig.timeline.track(leg) == track  # the file holds what key_plants finds
    field, sk, tl = rig.ground.field, rig.skeleton, rig.timeline
    rest = sk.fk(sk.rest_pose())[0]
    planted = eased = 0
    for f in range(rig.clip.n_frames):
        t = f * rig.clip.frame_time
        tl.apply(rig, t)
        reports = rig.solve()
        anim = sk.fk(rig.clip.pose_at(t))[0]
        for leg in ("left_leg", "right_leg"):
            foot = sk.index(rig.chain(leg).joints[-1])
            ankle = rest[foot, 1]
            got = rig.world_position(sk.names[foot])
            w = rig.chain(leg).weight
            if anim[foot, 1] - ankle <= 1e-9 and w == 1.0:  # planted in the clip, IK fully on
                planted += 1
                assert reports[leg].reached
                assert abs(got[1] - (float(field.height(got[0], got[2])) + ankle)) < 1e-3, (t, leg)
                assert np.hypot(*(got - anim[foot])[[0, 2]]) < 1e-3
            elif 0.0 < w < 1.0:
                eased += 1
    assert planted > rig.clip.n_frames  # both feet spend most of the walk planted
    assert eased > 0
