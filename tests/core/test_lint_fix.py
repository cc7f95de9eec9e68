"""rigedit.core.lint.fix: the injected faults are repaired, and nothing else is touched."""
from __future__ import annotations

import numpy as np
import pytest

from rigedit.core.lint import lint_clip
from rigedit.core.lint.fix import EASE_S, fix_clip
from rigedit.core.lint.slides import flat_frames
from rigedit.core.skeleton import Pose
from rigedit.io.bvh import read_bvh

from .lint_faults import BANDAI, CMU, drift_root, flip_thigh, snap_straight
from .test_lint import _leg, _overlapping, _sideways, bent_frames

LIMB_KINDS = ("pole_flip", "knee_pop", "foot_slide")


@pytest.fixture(scope="module", params=[CMU, BANDAI], ids=["cmu", "bandai"])
def faulty(request):
    """A walk with a pole flip (left leg), a knee pop (right leg) and a foot slide (left leg),
    each at its own frames, and the lint of it."""
    imp = read_bvh(request.param)
    sk = imp.skeleton
    clean = lint_clip(sk, imp.clip)
    left, flip = bent_frames(clean, "left_leg", 4)
    right, pop = bent_frames(clean, "right_leg", 2, around=3)
    a, b = clean.contacts["left_leg"][1]
    slide = (a + (b - a) // 8, a + 5 * (b - a) // 8)
    assert slide[0] > flip[-1] + 5 and slide[0] > pop[-1] + 5
    clip = flip_thigh(sk, imp.clip, left.root, left.mid, left.end, flip)
    clip = snap_straight(sk, clip, right.root, right.mid, right.end, pop)
    clip = drift_root(clip, *slide, 0.06, _sideways(clean))
    report = lint_clip(sk, clip)
    return imp, clean, clip, report, {"flip": flip, "pop": pop, "slide": slide, "contact": (a, b)}


def test_injected_faults_are_found_then_repaired(faulty):
    imp, _, clip, report, at = faulty
    wanted = [("pole_flip", "left_leg", at["flip"]), ("knee_pop", "right_leg", at["pop"]), ("foot_slide", "left_leg", at["slide"])]
    for kind, chain, frames in wanted:
        assert _overlapping(report.findings, kind, chain, frames[0], frames[-1]), kind
    fixed = fix_clip(report)
    assert not [f for f in fixed.after.findings if f.kind in LIMB_KINDS]
    assert fixed.introduced == []
    assert {f.kind for f in fixed.repaired} >= set(LIMB_KINDS)
    # A second lint of the repair, from scratch, agrees.
    again = lint_clip(imp.skeleton, fixed.clip)
    assert not [f for f in again.findings if f.kind in LIMB_KINDS]


def test_other_frames_are_unchanged(faulty):
    imp, _, clip, report, at = faulty
    fixed = fix_clip(report)
    ease = int(round(EASE_S * clip.frame_rate))
    allowed = np.zeros(clip.n_frames, dtype=bool)
    for f in report.findings:
        if f.kind in ("pole_flip", "knee_pop"):
            allowed[f.frame_start : f.frame_end + 1] = True
        elif f.kind == "foot_slide":
            a, b = max((a, b) for a, b in report.contacts[f.chain] if a <= f.frame_start)
            limb = _leg(report, f.chain)
            end = a + int(np.nonzero(flat_frames(report.motion, limb, a, b))[0][-1])
            allowed[f.frame_start : max(end, f.frame_end) + ease + 1] = True
    assert not (fixed.changed & ~allowed).any()
    keep = ~fixed.changed
    assert keep.sum() > 0.5 * clip.n_frames
    np.testing.assert_allclose(fixed.clip.rotations[keep], clip.rotations[keep], rtol=0, atol=1e-9)
    np.testing.assert_allclose(fixed.clip.translations, clip.translations, rtol=0, atol=1e-9)


def test_a_repaired_flip_is_the_clean_pose(faulty):
    imp, clean, clip, report, at = faulty
    fixed = fix_clip(report)
    sk = imp.skeleton
    before = sk.fk(Pose(imp.clip.rotations, imp.clip.translations))[0][at["flip"]]
    after = sk.fk(Pose(fixed.clip.rotations, fixed.clip.translations))[0][at["flip"]]
    # The flip turned the leg about the hip-ankle line; the repair turns it back onto the
    # plane the neighbouring frames have (within a centimetre of the clean clip's knee).
    leg = _leg(clean)
    assert np.abs(after[:, leg.mid] - before[:, leg.mid]).max() < 0.01
    assert np.abs(after[:, leg.end] - before[:, leg.end]).max() < 1e-9


def test_a_locked_foot_stays_put(faulty):
    imp, clean, clip, report, at = faulty
    fixed = fix_clip(report)
    leg = _leg(clean)
    a, b = at["contact"]
    s = at["slide"][0]
    flat = a + int(np.nonzero(flat_frames(report.motion, leg, a, b))[0][-1])
    feet = imp.skeleton.fk(Pose(fixed.clip.rotations, fixed.clip.translations))[0][s : flat + 1, leg.end]
    drift = np.linalg.norm((feet - feet[0])[:, [0, 2]], axis=-1)
    assert drift.max() < 0.005  # the 6 cm slide is gone to under 5 mm
