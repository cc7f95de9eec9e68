"""rigedit.core.lint on the shared walks, clean and with injected faults."""
from __future__ import annotations

import numpy as np
import pytest

from rigedit.core.lint import Finding, lint_clip
from rigedit.core.lint.pole_flip import bend_angle
from rigedit.io.bvh import read_bvh
from rigedit.io.export import bvh_angles

from .lint_faults import BANDAI, CMU, drift_root, flip_thigh, snap_straight, wrap_euler


@pytest.fixture(scope="module", params=[CMU, BANDAI], ids=["cmu", "bandai"])
def walk(request):
    imp = read_bvh(request.param)
    report = lint_clip(imp.skeleton, imp.clip, euler=bvh_angles(request.param))
    return imp, report, bvh_angles(request.param)


def _leg(report, chain="left_leg"):
    return next(l for l in report.motion.limbs if l.chain == chain)


def _overlapping(findings, kind, chain, a, b):
    return [f for f in findings if f.kind == kind and f.chain == chain and f.frame_start <= b and f.frame_end >= a]


def test_clean_walks_have_no_limb_findings(walk):
    _, report, _ = walk
    assert not [f for f in report.findings if f.kind in ("pole_flip", "knee_pop", "foot_slide")]
    # Only discontinuities the files really have: CMU's reference frame 0, Bandai's +-180 wraps.
    assert all(f.severity == "info" for f in report.findings)


def test_cmu_reference_frame_is_reported_once():
    imp = read_bvh(CMU)
    report = lint_clip(imp.skeleton, imp.clip)
    assert report.motion.first == 1
    first = [f for f in report.findings if f.frame_start == 0]
    assert len(first) == 1 and first[0].kind == "discontinuity" and "reference" in first[0].detail


def bent_frames(report, chain, count, lo=25.0, around=0):
    """`count` consecutive motion frames of the chain's limb bent by more than `lo` degrees
    (and `around` frames either side of them)."""
    leg = _leg(report, chain)
    angle = bend_angle(report.motion, leg)
    ok = angle > lo
    for f in range(report.motion.first + 10, len(angle) - count - 10):
        if ok[f - around : f + count + around].all():
            return leg, list(range(f, f + count))
    raise AssertionError("no bent frames")


def test_pole_flip_found(walk):
    imp, clean, _ = walk
    leg, frames = bent_frames(clean, "left_leg", 4)
    clip = flip_thigh(imp.skeleton, imp.clip, leg.root, leg.mid, leg.end, frames)
    found = _overlapping(lint_clip(imp.skeleton, clip).findings, "pole_flip", "left_leg", frames[0], frames[-1])
    assert len(found) == 1
    assert (found[0].frame_start, found[0].frame_end) == (frames[0], frames[-1])
    assert found[0].joint == imp.skeleton.names[leg.mid]


def test_a_slow_swing_is_not_a_flip(walk):
    """The knee swung round to 150 degrees off its side and back, 30 degrees a frame: motion."""
    imp, clean, _ = walk
    leg, frames = bent_frames(clean, "left_leg", 9)
    turns = np.radians([30, 60, 90, 120, 150, 120, 90, 60, 30])
    clip = flip_thigh(imp.skeleton, imp.clip, leg.root, leg.mid, leg.end, frames, turns)
    assert not [f for f in lint_clip(imp.skeleton, clip).findings if f.kind == "pole_flip"]
    # The same frames flipped at once are a flip.
    clip = flip_thigh(imp.skeleton, imp.clip, leg.root, leg.mid, leg.end, frames[3:6])
    assert [f.kind for f in lint_clip(imp.skeleton, clip).findings if f.kind == "pole_flip"] == ["pole_flip"]


def test_knee_pop_found(walk):
    imp, clean, _ = walk
    leg, frames = bent_frames(clean, "right_leg", 2, lo=25.0, around=3)
    clip = snap_straight(imp.skeleton, imp.clip, leg.root, leg.mid, leg.end, frames)
    found = _overlapping(lint_clip(imp.skeleton, clip).findings, "knee_pop", "right_leg", frames[0], frames[-1])
    assert len(found) == 1
    assert found[0].frame_start <= frames[0] and found[0].frame_end >= frames[-1]
    assert found[0].frame_end - found[0].frame_start <= 3


def _sideways(report):
    root = report.motion.pos[report.motion.first :, 0]
    walk_dir = root[-1] - root[0]
    walk_dir[1] = 0.0
    if np.linalg.norm(walk_dir) < 0.1:  # walking in place: any horizontal direction
        return np.array([1.0, 0.0, 0.0])
    return np.cross(walk_dir / np.linalg.norm(walk_dir), [0.0, 1.0, 0.0])


def test_foot_slide_found(walk):
    imp, clean, _ = walk
    a, b = clean.contacts["left_leg"][1]
    # 6 cm over half the contact: a slow slide (~20 cm/s), as mocap's are; a fast one lifts
    # the foot out of its contact by the speed test.
    start, end = a + (b - a) // 8, a + 5 * (b - a) // 8
    clip = drift_root(imp.clip, start, end, 0.06, _sideways(clean))
    found = _overlapping(lint_clip(imp.skeleton, clip).findings, "foot_slide", "left_leg", start, end)
    assert len(found) == 1
    assert found[0].frame_start <= start + 2 and found[0].frame_end >= end - 2 and found[0].frame_end <= b


def test_euler_wrap_found(walk):
    imp, clean, euler = walk
    joint = imp.skeleton.names[_leg(clean).mid]
    s = clean.motion.first
    frames = range(s + 40, s + 45)
    report = lint_clip(imp.skeleton, imp.clip, euler=wrap_euler(euler, joint, 1, frames))
    found = [f for f in report.findings if f.kind == "discontinuity" and f.joint == joint]
    assert len(found) == 1 and found[0].severity == "warning"
    assert (found[0].frame_start, found[0].frame_end) == (frames[0] - 1, frames[-1] + 1)


def test_rotation_jump_found():
    imp = read_bvh(BANDAI)
    clip = imp.clip
    clip = type(clip)(clip.rotations.copy(), clip.translations.copy(), clip.frame_time)
    j = imp.skeleton.index("LowerArm_L")
    clip.rotations[60:, j] = np.array([0.0, 0.0, np.sin(0.6), np.cos(0.6)])  # a hard cut to a 69 degree bend
    found = [f for f in lint_clip(imp.skeleton, clip).findings if f.kind == "discontinuity" and f.joint == "LowerArm_L"]
    assert [(f.frame_start, f.frame_end) for f in found] == [(59, 60)]


def test_finding_checks_its_fields():
    with pytest.raises(ValueError, match="kind"):
        Finding("wobble", None, None, 0, 1, "info", "")
    with pytest.raises(ValueError, match="span"):
        Finding("limit", None, None, 3, 1, "info", "")


def test_a_fast_gait_straightening_every_stride_is_not_a_pop():
    """A knee that straightens in a sharp V every stride (a gallop sampled at 25 fps) moves as
    fast there as through the rest of its stride: no speed spike, no pop. The same leg
    snapped straight for 2 frames of a slow bend is one."""
    from rigedit.core.clip import Clip
    from rigedit.core.skeleton import Skeleton
    from rigedit.core.transforms import quat_from_axis_angle

    sk = Skeleton.from_joints([("hips", None, (0, 1, 0)), ("thigh", "hips", (0.1, 0, 0)), ("shin", "thigh", (0, -0.45, 0)),
                               ("foot", "shin", (0, -0.45, 0)), ("toe", "foot", (0, -0.05, 0.1))])
    n = 100
    t = np.arange(n)
    vee = 5.0 + 85.0 * np.abs(((t % 8) - 4) / 4.0)  # 90 down to 5 and back in 8 frames
    chains = [("left_leg", ("thigh", "shin", "foot"), "two_bone")]

    def clip_of(knee_deg):
        rot = np.tile([0.0, 0.0, 0.0, 1.0], (n, len(sk), 1))
        rot[:, 2] = quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), np.radians(knee_deg))
        trans = np.broadcast_to(sk.offsets, (n, len(sk), 3)).copy()
        return Clip(rot, trans, 1 / 25)

    assert not [f for f in lint_clip(sk, clip_of(vee), chains).findings if f.kind == "knee_pop"]
    slow = 30.0 + 10.0 * np.sin(t / 10.0)
    slow[50:52] = 0.0
    pops = [f for f in lint_clip(sk, clip_of(slow), chains).findings if f.kind == "knee_pop"]
    assert [(f.frame_start, f.frame_end) for f in pops] == [(50, 51)]


def test_lint_rig_takes_the_rigs_clip_chains_and_limits():
    from rigedit.core.ik.limits import ConeLimit
    from rigedit.core.lint.of_rig import lint_rig
    from rigedit.core.rig import Rig

    imp = read_bvh(CMU)
    rig = Rig(imp.skeleton)
    with pytest.raises(ValueError, match="no clip"):
        lint_rig(rig)
    rig.clip = imp.clip
    rig.add_chain("left_leg", ["LeftUpLeg", "LeftLeg", "LeftFoot"], solver="two_bone")
    rig.chain("left_leg").limits = {"LeftLeg": ConeLimit(max_deg=40.0)}
    report = lint_rig(rig)
    assert report.chains == [("left_leg", ("LeftUpLeg", "LeftLeg", "LeftFoot"), "two_bone")]
    assert {f.chain for f in report.findings if f.kind == "limit"} == {"left_leg"}
    # Only the rig's chain is linted: the other limbs of the proposed set are not.
    assert {f.chain for f in report.findings} <= {None, "left_leg"}
