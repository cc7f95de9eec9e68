"""The clip doctor knows motion: smooth fast turns are no jumps, professional takes lint
with no error, and faults injected at random frames and joints (seeded) are found whole and
repaired without a new finding."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rigedit.core.clip import Clip
from rigedit.core.lint import lint_clip
from rigedit.core.lint.fix import fix_clip
from rigedit.core.lint.slides import flat_frames
from rigedit.core.skeleton import Pose
from rigedit.core.transforms import quat_from_axis_angle, quat_mul
from rigedit.io.bvh import read_bvh
from rigedit.io.export import bvh_angles
from rigedit.io.gltf import read_gltf

from .lint_faults import BANDAI, CMU, DATA, drift_root, flip_thigh, wrap_euler
from .test_lint import _sideways

LAFAN = DATA / "lafan1_push1_subject2.bvh"
TAKES = sorted(p for p in Path(DATA).iterdir() if p.suffix in (".bvh", ".glb", ".gltf"))
WALKS = [CMU, BANDAI, LAFAN]
SEEDS = range(6)


def load(path: Path):
    return read_bvh(path) if path.suffix == ".bvh" else read_gltf(path)


@pytest.fixture(scope="module", params=WALKS, ids=lambda p: p.stem[:12])
def walk(request):
    imp = load(request.param)
    if request.param == LAFAN:  # its first 20 s: a walk, then the push
        c = imp.clip
        imp.clip = Clip(c.rotations[:600].copy(), c.translations[:600].copy(), c.frame_time, c.source)
    return imp, lint_clip(imp.skeleton, imp.clip)


@pytest.mark.parametrize("path", TAKES, ids=lambda p: p.name)
def test_every_professional_take_lints_with_no_error(path):
    imp = load(path)
    if imp.clip is None or imp.clip.n_frames < 3:
        pytest.skip("no clip")
    report = lint_clip(imp.skeleton, imp.clip, euler=bvh_angles(path) if path.suffix == ".bvh" else None)
    assert not [f for f in report.findings if f.severity == "error"], [f.detail for f in report.findings if f.severity == "error"]
    assert len([f for f in report.findings if f.severity == "warning"]) <= 4


def _turned(clip, joint, start, degrees_per_frame, axis):
    """The joint turned on from `start` by the given degrees a frame about its own `axis`, and
    held at the sum after (a knee opening fast and smoothly)."""
    out = Clip(clip.rotations.copy(), clip.translations.copy(), clip.frame_time, clip.source)
    total = np.concatenate([np.zeros(1), np.cumsum(degrees_per_frame)])
    for k in range(start, clip.n_frames):
        angle = total[min(k - start, len(total) - 1)]
        out.rotations[k, joint] = quat_mul(out.rotations[k, joint], quat_from_axis_angle(axis, np.radians(angle)))
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("steps", [[5, 10, 12, 10, 6, 3], [4, 8, 11, 12, 10, 7]], ids=["knee", "elbow"])
def test_a_fast_smooth_turn_is_no_jump(walk, seed, steps):
    # A knee opening 114 -> 160 degrees at 5, 10, 12, 10, 6, 3 degrees a frame; an elbow
    # 112 -> 164 in six frames: fast, but each step close to the ones beside it.
    imp, clean = walk
    rng = np.random.default_rng(seed)
    limb = clean.motion.limbs[rng.integers(len(clean.motion.limbs))]
    start = int(rng.integers(clean.motion.first + 5, imp.clip.n_frames - 20))
    axis = np.array([1.0, 0.0, 0.0])
    clip = _turned(imp.clip, limb.mid, start, steps, axis)
    found = [f for f in lint_clip(imp.skeleton, clip).findings if f.kind == "discontinuity" and f.severity != "info"]
    assert found == [], [f.detail for f in found]


def _limb(report, rng, legs_only=False):
    limbs = [l for l in report.motion.limbs if l.leg or not legs_only]
    return limbs[rng.integers(len(limbs))]


def _check_fixed(imp, report, kind, chain, a, b):
    fixed = fix_clip(report)
    assert fixed.introduced == [] and fixed.refused == []
    left = [f for f in fixed.after.findings if f.kind == kind and f.chain == chain and f.frame_start <= b and f.frame_end >= a]
    assert left == [], [f.detail for f in left]
    again = lint_clip(imp.skeleton, fixed.clip)
    assert not [f for f in again.findings if f.severity == "error"]
    return fixed


@pytest.mark.parametrize("seed", SEEDS)
def test_a_flipped_limb_is_found_whole_and_repaired(walk, seed):
    # A thigh or upper arm turned 180 degrees about its root-end line for 1 to 6 frames
    # anywhere: straight or bent, the whole span is one pole flip, and the repair leaves
    # nothing behind and nothing new.
    imp, clean = walk
    rng = np.random.default_rng(100 + seed)
    limb = _limb(clean, rng)
    n = int(rng.integers(1, 7))
    a = int(rng.integers(clean.motion.first + 3, imp.clip.n_frames - n - 3))
    frames = list(range(a, a + n))
    clip = flip_thigh(imp.skeleton, imp.clip, limb.root, limb.mid, limb.end, frames)
    report = lint_clip(imp.skeleton, clip)
    flips = [f for f in report.findings if f.kind == "pole_flip" and f.chain == limb.chain]
    assert [(f.frame_start, f.frame_end) for f in flips] == [(frames[0], frames[-1])]
    assert not [f for f in report.findings if f.kind == "discontinuity" and f.severity != "info"]
    fixed = _check_fixed(imp, report, "pole_flip", limb.chain, frames[0], frames[-1])
    # The end stays where it was; the rest of the limb is back within a few cm of the clean take.
    sk = imp.skeleton
    p0 = sk.fk(Pose(imp.clip.rotations, imp.clip.translations))[0][frames]
    p1 = sk.fk(Pose(fixed.clip.rotations, fixed.clip.translations))[0][frames]
    assert np.abs(p1[:, limb.end] - p0[:, limb.end]).max() < 1e-6
    assert np.abs(p1[:, limb.mid] - p0[:, limb.mid]).max() < 0.05 * clean.motion.leg_length


@pytest.mark.parametrize("seed", SEEDS)
def test_a_popped_joint_is_found_and_repaired(walk, seed):
    # Any joint but the root turned 60-120 degrees for 1 to 3 frames: found as a span, all
    # of it, on that joint (a limb's upper bone: as a pole flip of its limb).
    imp, clean = walk
    sk = imp.skeleton
    rng = np.random.default_rng(200 + seed)
    movers = [j for j in range(1, len(sk)) if np.any(sk.parents == j)]
    j = int(movers[rng.integers(len(movers))])
    n = int(rng.integers(1, 4))
    a = int(rng.integers(clean.motion.first + 3, imp.clip.n_frames - n - 3))
    axis = rng.normal(size=3)
    turn = quat_from_axis_angle(axis / np.linalg.norm(axis), np.radians(rng.uniform(60.0, 120.0)))
    clip = Clip(imp.clip.rotations.copy(), imp.clip.translations.copy(), imp.clip.frame_time)
    clip.rotations[a : a + n, j] = quat_mul(clip.rotations[a : a + n, j], turn)
    report = lint_clip(sk, clip)
    hits = [f for f in report.findings if f.frame_start == a and f.frame_end == a + n - 1 and f.severity == "error"
            and (f.joint == sk.names[j] or any(l.root == j and l.chain == f.chain for l in report.motion.limbs))]
    assert len(hits) == 1, [(f.kind, f.joint, f.frame_start, f.frame_end) for f in report.findings]
    _check_fixed(imp, report, hits[0].kind, hits[0].chain, a, a + n - 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_sliding_foot_is_found_and_never_made_worse(walk, seed):
    # The figure pushed sideways by 0.07 leg lengths at 0.3 leg lengths a second (5.6 cm at
    # 24 cm/s on a 0.8 m leg, as mocap's slides are) while a foot is planted flat: the foot
    # skates. The repair locks the foot; where that would stretch the leg straight (a new knee
    # pop) it is refused and the clip left as it was, never worse.
    imp, clean = walk
    m = clean.motion
    rng = np.random.default_rng(300 + seed)
    legs = [l for l in m.limbs if l.leg]
    leg = legs[rng.integers(len(legs))]
    frames = int(np.ceil(0.07 / 0.3 * m.fps))
    spans = []
    for a, b in clean.contacts[leg.chain]:
        flat = [a + k for k, ok in enumerate(flat_frames(m, leg, a, b)) if ok]
        if a > m.first + 2 and flat[-1] - flat[0] >= frames + 3:
            spans.append((flat[0], flat[-1]))
    a, b = spans[rng.integers(len(spans))]
    start = a + int(rng.integers(1, b - a - frames - 1))
    end = start + frames
    clip = drift_root(imp.clip, start, end, 0.07 * m.leg_length, _sideways(clean))
    report = lint_clip(imp.skeleton, clip)
    found = [f for f in report.findings if f.kind == "foot_slide" and f.chain == leg.chain and f.frame_start <= end and f.frame_end >= start]
    assert len(found) == 1
    fixed = fix_clip(report)
    assert fixed.introduced == []
    if fixed.refused:
        assert fixed.refused == found and not fixed.changed.any()
    else:
        assert not [f for f in fixed.after.findings if f.kind == "foot_slide" and f.chain == leg.chain and f.frame_start <= end and f.frame_end >= start]


@pytest.mark.parametrize("seed", SEEDS)
def test_an_euler_wrap_is_found(seed):
    imp = read_bvh(BANDAI)
    euler = bvh_angles(BANDAI)
    rng = np.random.default_rng(400 + seed)
    clean = lint_clip(imp.skeleton, imp.clip, euler=euler)
    wrapped = {f.joint for f in clean.findings if f.cause == "euler_wrap"}  # Bandai keeps angles in +-180
    names = sorted(set(euler) - wrapped)
    joint = names[rng.integers(len(names))]
    a = int(rng.integers(5, imp.clip.n_frames - 12))
    frames = range(a, a + int(rng.integers(1, 8)))
    report = lint_clip(imp.skeleton, imp.clip, euler=wrap_euler(euler, joint, int(rng.integers(3)), frames))
    found = [f for f in report.findings if f.cause == "euler_wrap" and f.joint == joint]
    assert len(found) == 1 and found[0].severity == "warning"
    assert (found[0].frame_start, found[0].frame_end) == (frames[0] - 1, frames[-1] + 1)
