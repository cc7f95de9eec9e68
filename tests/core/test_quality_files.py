"""The quality measures on the real files in /work/shared/data: finite numbers everywhere,
contacts found on walks, and faults put into a real walk (seeded, at random places) raising
the measure they should."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from rigedit.core.quality import measure_clip
from rigedit.core.quality.body import body_of
from rigedit.lint_cli import load_clip

from tests.core.quality_clips import arm_into_chest, glide, move_root, random_frames

DATA = Path("/work/shared/data")
FILES = sorted(p.name for p in DATA.iterdir() if p.suffix in (".bvh", ".glb", ".gltf"))
WALKS = ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh"]


def _numbers(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


@pytest.fixture(scope="module")
def loaded():
    return {name: load_clip(str(DATA / name)) for name in FILES}


@pytest.mark.parametrize("name", FILES)
def test_every_number_is_finite(loaded, name):
    l = loaded[name]
    q = measure_clip(l.skeleton, l.clip, euler=l.source.bvh_angles)
    s = q.summary()
    assert all(math.isfinite(v) for v in _numbers(s)), s
    assert all(math.isfinite(v) for v in _numbers(q.tracks()))
    assert s["height_m"] > 0
    for key in ("foot_skate_share", "ground_penetration_share", "self_penetration_frame_share"):
        assert s[key] is None or 0.0 <= s[key] <= 1.0


@pytest.mark.parametrize("name", WALKS)
def test_walks_have_contacts_on_both_feet(loaded, name):
    l = loaded[name]
    s = measure_clip(l.skeleton, l.clip).summary()
    assert 1.2 < s["height_m"] < 2.0  # an adult, whatever the file's units
    for side in ("left", "right"):
        c = s["contacts"][side]
        assert c["grounded_share"] > 0.1 and c["locked_spans"] >= 1, (side, c)
    assert s["foot_contact_share"] > 0.5


@pytest.mark.parametrize("name", WALKS)
@pytest.mark.parametrize("seed", range(2))
def test_a_foot_sliding_in_a_plant_raises_skate_and_slide(loaded, name, seed):
    l = loaded[name]
    rng = np.random.default_rng(seed)
    q = measure_clip(l.skeleton, l.clip)
    clean = q.summary()
    fps = l.clip.frame_rate
    plants = [(side, a, b) for side, c in q.contacts.items() for a, b in c.spans if b - a >= 0.1 * fps]
    side, a, b = plants[int(rng.integers(len(plants)))]
    angle = rng.uniform(0, 2 * np.pi)
    # The figure slides at 1 m/s from two frames into the plant to its end: the plant has
    # started (still) and the planted foot skids under it.
    skid = glide(l.clip.n_frames, [(a + 2, b)], 1.0, fps=fps, direction=(np.cos(angle), 0.0, np.sin(angle)))
    s = measure_clip(l.skeleton, move_root(l.clip, skid)).summary()
    skidded_mm = 1000 * 1.0 * (b - a - 2) / fps
    assert s["contacts"][side]["slide_mm"] > clean["contacts"][side]["slide_mm"] + 0.5 * skidded_mm
    assert s["slide_mm"] > clean["slide_mm"]
    assert s["foot_skate_share"] > clean["foot_skate_share"]


@pytest.mark.parametrize("seed", range(2))
def test_a_walk_skating_on_random_spans_skates_more(loaded, seed):
    l = loaded["cmu_12_01_walk.bvh"]
    rng = np.random.default_rng(seed)
    n = l.clip.n_frames
    starts = random_frames(rng, n - 40, 3, gap=60, margin=5)
    spans = [(a, a + 30) for a in starts]
    angle = rng.uniform(0, 2 * np.pi)
    skid = glide(n, spans, 1.0, fps=l.clip.frame_rate, direction=(np.cos(angle), 0.0, np.sin(angle)))
    clean = measure_clip(l.skeleton, l.clip).summary()
    s = measure_clip(l.skeleton, move_root(l.clip, skid)).summary()
    assert s["foot_skate_share"] > clean["foot_skate_share"] + 0.5 * 90 / n


@pytest.mark.parametrize("name", WALKS)
def test_a_hand_pushed_into_the_chest_raises_self_penetration(loaded, name):
    l = loaded[name]
    rng = np.random.default_rng(len(name))
    body = body_of(l.skeleton, l.clip)
    frames = random_frames(rng, l.clip.n_frames, 12, margin=2)
    side = str(rng.choice(["left", "right"]))
    chest = body.spine[len(body.spine) // 2]
    clean = measure_clip(l.skeleton, l.clip).summary()
    pushed = measure_clip(l.skeleton, arm_into_chest(l.skeleton, l.clip, frames, body.arms[side], chest)).summary()
    assert clean["self_penetration_frame_share"] == 0.0
    moving = l.clip.n_frames - body.first
    assert pushed["self_penetration_frame_share"] == pytest.approx(len(frames) / moving)


@pytest.mark.parametrize("name", ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "lafan1_push1_subject2.bvh",
                                  "pybvh_bvh_test1.bvh", "threejs_Xbot.glb", "CesiumMan.glb"])
def test_feet_and_hands_are_on_the_sides_their_names_say(loaded, name):
    # Names are only the test's check: the roles come from the pose (LaFAN1's rest pose lies
    # flat, and read there its sides come out swapped).
    l = loaded[name]
    body = body_of(l.skeleton, l.clip)
    names = l.skeleton.names
    for side, mark in (("left", ("left", "_l")), ("right", ("right", "_r"))):
        for joint in (body.feet[side][0], body.arms[side][-1]):
            assert any(m in names[joint].lower() for m in mark), (side, names[joint])
