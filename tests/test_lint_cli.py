"""`rigedit lint` on the command line: the JSON schema, the table, exit statuses, bad input."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rigedit.cli import main
from rigedit.core.lint import lint_clip
from rigedit.core.skeleton import Pose
from rigedit.io.bvh import read_bvh, write_bvh
from rigedit.io.export import bvh_angles

from tests.core.lint_faults import BANDAI, CMU, DATA, drift_root, flip_thigh, snap_straight, wrap_euler
from tests.core.test_lint import _sideways, bent_frames

CESIUM = DATA / "CesiumMan.glb"

FIELDS = {"kind", "chain", "joint", "frame_start", "frame_end", "severity", "detail"}


def _json(capsys, *argv):
    code = main(["lint", *map(str, argv), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_json_schema(capsys):
    code, out = _json(capsys, CMU)
    assert code == 0
    assert set(out) == {"findings"}
    for f in out["findings"]:
        assert set(f) == FIELDS
        assert isinstance(f["frame_start"], int) and isinstance(f["frame_end"], int)
        assert f["kind"] in ("pole_flip", "knee_pop", "foot_slide", "limit", "discontinuity")
        assert f["severity"] in ("info", "warning", "error")


def test_findings_still_exit_zero(tmp_path, capsys):
    imp = read_bvh(BANDAI)
    euler = wrap_euler(bvh_angles(BANDAI), "LowerLeg_L", 1, range(40, 44))
    path = tmp_path / "wrapped.bvh"
    write_bvh(path, imp.skeleton, imp.clip, imp.layout, reference_angles=euler)
    code, out = _json(capsys, path)
    assert code == 0
    found = [f for f in out["findings"] if f["joint"] == "LowerLeg_L"]
    assert [(f["kind"], f["frame_start"], f["frame_end"], f["severity"]) for f in found] == [("discontinuity", 39, 44, "warning")]


def test_table(capsys):
    assert main(["lint", str(CMU)]) == 0
    out = capsys.readouterr().out
    assert "reference pose" in out and "discontinuity" in out


@pytest.mark.parametrize("text", ["garbage\n", "HIERARCHY\nROOT Hips\n{\n"])
def test_unreadable_input_names_the_file(tmp_path, capsys, text):
    bad = tmp_path / "broken.bvh"
    bad.write_text(text)
    assert main(["lint", str(bad)]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and "Traceback" not in err


def test_missing_and_unknown_files(tmp_path, capsys):
    assert main(["lint", str(tmp_path / "nope.bvh")]) == 1
    assert "nope.bvh" in capsys.readouterr().err
    other = tmp_path / "clip.txt"
    other.write_text("x")
    assert main(["lint", str(other)]) == 1
    assert "clip.txt" in capsys.readouterr().err


def test_fix_needs_an_output(capsys):
    assert main(["lint", str(CMU), "--fix"]) != 0


def _spans(text: str) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in part.split("-")) if "-" in part else (int(part), int(part)) for part in text.split(", ") if part != "none"]


def _changed_mask(text: str, n: int) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    for a, b in _spans(text):
        mask[a : b + 1] = True
    return mask


@pytest.mark.parametrize("source", [CMU, BANDAI], ids=["cmu", "bandai"])
def test_fix_bvh(tmp_path, capsys, source):
    """A BVH walk with a pole flip, a knee pop, a slide and an Euler wrap: --fix writes a BVH
    whose lint has none of them, and whose other frames read back as the input's."""
    imp = read_bvh(source)
    sk = imp.skeleton
    clean = lint_clip(sk, imp.clip)
    left, flip = bent_frames(clean, "left_leg", 4)
    right, pop = bent_frames(clean, "right_leg", 2, around=3)
    a, b = clean.contacts["left_leg"][1]
    clip = flip_thigh(sk, imp.clip, left.root, left.mid, left.end, flip)
    clip = snap_straight(sk, clip, right.root, right.mid, right.end, pop)
    clip = drift_root(clip, a + (b - a) // 8, a + 5 * (b - a) // 8, 0.06, _sideways(clean))
    knee = sk.names[left.mid]
    wrapped = wrap_euler(bvh_angles(source), knee, 1, range(b + 20, b + 24))
    bad, out = tmp_path / "faulty.bvh", tmp_path / "fixed.bvh"
    write_bvh(bad, sk, clip, imp.layout, reference_angles=wrapped)

    code, report = _json(capsys, bad, "--fix", "-o", out)
    assert code == 0 and out.exists()
    kinds = {f["kind"] for f in report["findings"]}
    assert {"pole_flip", "knee_pop", "foot_slide", "discontinuity"} <= kinds
    repaired = report["fix"]["repaired"]
    assert {"pole_flip", "knee_pop", "foot_slide"} <= {f["kind"] for f in repaired}
    assert any(f["kind"] == "discontinuity" and f["joint"] == knee for f in repaired)
    assert report["fix"]["introduced"] == []

    code, again = _json(capsys, out)
    assert code == 0
    assert not [f for f in again["findings"] if f["kind"] in ("pole_flip", "knee_pop", "foot_slide")]
    assert not [f for f in again["findings"] if f["kind"] == "discontinuity" and f["severity"] != "info"]

    before, after = read_bvh(bad), read_bvh(out)
    keep = ~_changed_mask(report["fix"]["frames_changed"], clip.n_frames)
    p0 = sk.fk(Pose(before.clip.rotations, before.clip.translations))[0]
    p1 = sk.fk(Pose(after.clip.rotations, after.clip.translations))[0]
    # The files hold 10 significant digits: positions agree far under a micrometre.
    np.testing.assert_allclose(p1[keep], p0[keep], rtol=0, atol=1e-6)
    assert np.abs(p1[~keep] - p0[~keep]).max() > 1e-3  # and the repair did change its frames


def test_fix_gltf(tmp_path, capsys):
    from rigedit.io.export import read_gltf_source
    from rigedit.io.export_gltf import write_gltf

    imp, gltf = read_gltf_source(CESIUM)
    sk = imp.skeleton
    clean = lint_clip(sk, imp.clip)
    assert clean.findings == []
    left, flip = bent_frames(clean, "left_leg", 3, lo=60.0)
    clip = flip_thigh(sk, imp.clip, left.root, left.mid, left.end, flip)
    bad, out = tmp_path / "faulty.glb", tmp_path / "fixed.glb"
    write_gltf(bad, sk, clip, source=gltf)
    code, report = _json(capsys, bad, "--fix", "-o", out)
    assert code == 0
    flips = [(f["chain"], f["frame_start"], f["frame_end"]) for f in report["findings"] if f["kind"] == "pole_flip"]
    assert flips == [("left_leg", flip[0], flip[-1])]
    # The thigh's rotation jumps into the flip and out of it: that is the same fault, one finding.
    assert not [f for f in report["findings"] if f["kind"] == "discontinuity"]
    assert len(report["fix"]["repaired"]) == 1 and report["fix"]["remaining"] == []
    code, again = _json(capsys, out)
    assert again["findings"] == []
    p0 = sk.fk(Pose(imp.clip.rotations, imp.clip.translations))[0]
    back = read_gltf_source(out)[0]
    p1 = sk.fk(Pose(back.clip.rotations, back.clip.translations))[0]
    # float32 in the file: the figure to a few micrometres, everywhere, the repaired frames too
    # (the repair is the clean walk's knee on its side again).
    keep = np.ones(clip.n_frames, dtype=bool)
    keep[flip] = False
    np.testing.assert_allclose(p1[keep], p0[keep], rtol=0, atol=1e-5)
    assert np.abs(p1[flip] - p0[flip]).max() < 0.01


def test_fix_output_in_the_input_format(tmp_path, capsys):
    assert main(["lint", str(CMU), "--fix", "-o", str(tmp_path / "out.glb")]) == 1
    assert "out.glb" in capsys.readouterr().err


def test_rig_limits(tmp_path, capsys):
    """--rig brings the preset's chains and limits: a 40 degree cone on the left knee is
    exceeded on every stride, in the frames where the knee bends past it."""
    from rigedit.core.ik.limits import ConeLimit
    from rigedit.core.lint.findings import runs
    from rigedit.core.lint.limits import LIMIT_TOLERANCE_DEG
    from rigedit.core.lint.pole_flip import bend_angle
    from rigedit.io.preset import load_preset, save_preset

    preset = tmp_path / "walk.json"
    assert main(["import", str(BANDAI), "-o", str(preset)]) == 0
    rig = load_preset(preset)
    rig.chain("left_leg").limits = {"LowerLeg_L": ConeLimit(max_deg=40.0)}
    save_preset(rig, preset)
    capsys.readouterr()
    code, out = _json(capsys, BANDAI, "--rig", preset)
    assert code == 0
    found = [(f["chain"], f["joint"], f["frame_start"], f["frame_end"]) for f in out["findings"] if f["kind"] == "limit"]
    imp = read_bvh(BANDAI)
    report = lint_clip(imp.skeleton, imp.clip)
    knee = next(l for l in report.motion.limbs if l.chain == "left_leg")
    past = bend_angle(report.motion, knee) > 40.0 + LIMIT_TOLERANCE_DEG
    assert found and found == [("left_leg", "LowerLeg_L", a, b) for a, b in runs(past)]


def test_rig_that_does_not_fit(tmp_path, capsys):
    preset = tmp_path / "cmu.json"
    assert main(["import", str(CMU), "-o", str(preset)]) == 0
    capsys.readouterr()
    assert main(["lint", str(BANDAI), "--rig", str(preset)]) == 1
    assert str(preset) in capsys.readouterr().err
