"""The lint's verdicts do not depend on the figure's size, where it faces, or the frame rate:
its thresholds are in leg lengths and per second (rigedit/core/lint/motion.py)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.clip import Clip
from rigedit.core.lint import lint_clip
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_from_axis_angle, quat_mul, quat_rotate
from rigedit.io.bvh import read_bvh

from .lint_faults import BANDAI, drift_root, flip_thigh, snap_straight
from .test_lint import _sideways, bent_frames


@pytest.fixture(scope="module")
def faulty():
    imp = read_bvh(BANDAI)
    sk = imp.skeleton
    clean = lint_clip(sk, imp.clip)
    left, flip = bent_frames(clean, "left_leg", 4)
    right, pop = bent_frames(clean, "right_leg", 2, around=3)
    a, b = clean.contacts["left_leg"][1]
    clip = flip_thigh(sk, imp.clip, left.root, left.mid, left.end, flip)
    clip = snap_straight(sk, clip, right.root, right.mid, right.end, pop)
    clip = drift_root(clip, a + (b - a) // 8, a + 5 * (b - a) // 8, 0.06, _sideways(clean))
    report = lint_clip(sk, clip)
    assert {f.kind for f in report.findings} >= {"pole_flip", "knee_pop", "foot_slide"}
    return sk, clip, report


def _verdicts(report):
    return [(f.kind, f.chain, f.joint, f.frame_start, f.frame_end, f.severity) for f in report.findings]


@settings(max_examples=12, deadline=None)
@given(scale=st.floats(0.05, 20.0), yaw=st.floats(-np.pi, np.pi))
def test_same_findings_at_any_size_and_heading(faulty, scale, yaw):
    sk, clip, report = faulty
    big = Skeleton(sk.names, sk.parents, sk.offsets * scale, sk.rest_rotations)
    turn = quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), yaw)
    rot, trans = clip.rotations.copy(), clip.translations * scale
    roots = sk.parents < 0
    rot[:, roots] = quat_mul(turn, rot[:, roots])
    trans[:, roots] = quat_rotate(turn, trans[:, roots])
    assert _verdicts(lint_clip(big, Clip(rot, trans, clip.frame_time))) == _verdicts(report)


def test_contacts_hold_at_any_frame_rate():
    """A 120 fps walk sampled at 60 and 30 fps has the same contacts, to a frame of the coarser
    rate at each end."""
    imp = read_bvh(BANDAI.with_name("cmu_12_01_walk.bvh"))
    full = lint_clip(imp.skeleton, imp.clip).contacts
    for k in (2, 4):
        clip = Clip(imp.clip.rotations[::k], imp.clip.translations[::k], imp.clip.frame_time * k)
        coarse = lint_clip(imp.skeleton, clip)
        assert coarse.findings[0].cause == "reference_frame" and len(coarse.findings) == 1
        for leg, spans in full.items():
            got = [(a * k, b * k) for a, b in coarse.contacts[leg]]
            assert len(got) == len(spans)
            for (a, b), (c, d) in zip(spans, got):
                assert abs(a - c) <= 2 * k and abs(b - d) <= 2 * k
