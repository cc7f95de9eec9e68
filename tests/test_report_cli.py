"""`rigedit report` end to end: the HTML (a sortable table, plots, plotly.js inlined once, no
network), --json's keys and numbers, the batch runners, --compare, and bad input."""
from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pytest

from rigedit.cli import main
from rigedit.core.quality import METRICS

DATA = Path("/work/shared/data")
SMALL = {"pybvh.bvh": "pybvh_bvh_test1.bvh", "takes/walk.bvh": "dataset-1_walk-right_normal_001.bvh",
         "simple.glb": "RiggedSimple.glb"}
HUMANOID = Path(__file__).resolve().parents[1] / "resources" / "presets" / "humanoid.json"
KEYS = {"clip", "file", "frames", "fps", "height_m", "first_frame", "ground", "foot_skate_share", "foot_contact_share",
        "grounded_share", "locked_share", "locked_spans", "slide_mm", "slide_per_height", "contacts",
        "ground_penetration_share", "ground_penetration_max_height", "ground_penetration_max_mm",
        "ground_penetration_frame", "self_penetration_frame_share", "self_penetration_point_share",
        "self_penetration_max_height", "self_penetration_frame", "self_penetration_parts", "self_penetration_joint",
        "jitter_mean_jerk_height_per_s3", "jitter_spike_count", "jitter_spike_frames", "jitter_threshold_height_per_s3",
        "jitter_spike_joints",
        "limit_max_deg", "limit_seconds", "limit_share", "limit_joints", "lint_findings", "lint_findings_total",
        "lint_errors", "fault_share_sum", "notes", "mesh_penetration_vertex_share", "mesh_penetration_frame_share",
        "mesh_penetration_max_height", "mesh_penetration_frame", "mesh_limb_vertices", "mesh_penetration_joint"}
BROKEN = "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Zrotation Xrotation\n"


def _library(root: Path, broken: bool = False) -> Path:
    folder = root / "clips"
    for rel, name in SMALL.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / name, folder / rel)
    if broken:
        (folder / "broken.bvh").write_text(BROKEN)
    return folder


def _finite(value) -> bool:
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return not isinstance(value, float) or math.isfinite(value)


def _offline(page: str) -> None:
    assert not re.search(r"""<script[^>]*\ssrc\s*=\s*["']?(https?:)?//""", page, re.I)
    assert not re.search(r"""<link[^>]*href\s*=\s*["']?(https?:)?//""", page, re.I)
    assert page.count("* plotly.js v") == 1  # the library inlined once, whatever the number of plots


def test_a_library_report_and_its_json(tmp_path, capsys):
    clips = _library(tmp_path)
    out, js = tmp_path / "r.html", tmp_path / "r.json"
    assert main(["report", str(clips), "-o", str(out), "--json", str(js), "--workers", "1"]) == 0
    page = out.read_text(encoding="utf-8")
    _offline(page)
    assert 'id="library"' in page and 'class="sortable"' in page
    assert page.count('class="plotly-graph-div"') == 1 + len(SMALL)  # the histograms, then each clip's plots
    data = json.loads(js.read_text())
    rows = data["clips"]
    assert sorted(r["clip"] for r in rows) == sorted(SMALL)
    for r in rows:
        assert set(r) == KEYS and _finite(r)
        assert f'href="#clip-' in page and r["clip"] in page
    faults = [r["fault_share_sum"] for r in rows]
    assert faults == sorted(faults, reverse=True)  # worst first
    walk = next(r for r in rows if r["clip"] == "takes/walk.bvh")
    assert walk["locked_spans"] > 0 and set(walk["contacts"]) == {"left", "right"}
    simple = next(r for r in rows if r["clip"] == "simple.glb")
    assert simple["foot_skate_share"] is None and simple["notes"]
    assert "wrote" in capsys.readouterr().out


def test_local_workers_give_the_numbers_of_one_process(tmp_path):
    clips = _library(tmp_path)
    for n in ("1", "2"):
        assert main(["report", str(clips), "-o", str(tmp_path / f"{n}.html"), "--json", str(tmp_path / f"{n}.json"),
                     "--workers", n, "-q"]) == 0
    a, b = (json.loads((tmp_path / f"{n}.json").read_text())["clips"] for n in ("1", "2"))
    assert [r["clip"] for r in a] == [r["clip"] for r in b]
    for ra, rb in zip(a, b):
        for key, _, _ in METRICS:
            assert (ra[key] is None) == (rb[key] is None)
            if ra[key] is not None:
                assert rb[key] == pytest.approx(ra[key], rel=1e-9, abs=1e-12), key


def test_a_broken_file_is_named_and_the_others_are_reported(tmp_path, capsys):
    clips = _library(tmp_path, broken=True)
    out, js = tmp_path / "r.html", tmp_path / "r.json"
    assert main(["report", str(clips), "-o", str(out), "--json", str(js), "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "broken.bvh" in err and "Traceback" not in err
    data = json.loads(js.read_text())
    assert len(data["clips"]) == len(SMALL)
    assert [e["clip"] for e in data["errors"]] == ["broken.bvh"] and "broken.bvh" in data["errors"][0]["error"]
    assert "Not measured" in out.read_text(encoding="utf-8")


def test_nothing_measurable_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "broken.bvh"
    bad.write_text(BROKEN)
    out = tmp_path / "r.html"
    assert main(["report", str(bad), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and "not written" in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("argv, says", [
    (["missing.bvh"], "missing.bvh: no such file or folder"),
    ([str(DATA / "SOURCES.md")], "not a clip"),
    ([str(DATA / "pybvh_bvh_test1.bvh"), "--rig", "nope.json"], "nope.json"),
])
def test_bad_input_is_one_clear_line(tmp_path, capsys, argv, says):
    out = tmp_path / "r.html"
    assert main(["report", *argv, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
    assert not out.exists()


def test_outputs_are_kept_without_force(tmp_path, capsys):
    out, js = tmp_path / "r.html", tmp_path / "r.json"
    out.write_text("mine")
    clip = str(DATA / "pybvh_bvh_test1.bvh")
    assert main(["report", clip, "-o", str(out)]) == 1
    assert "already exists (--force overwrites it)" in capsys.readouterr().err
    assert out.read_text() == "mine"
    js.write_text("mine too")
    assert main(["report", clip, "-o", str(tmp_path / "other.html"), "--json", str(js)]) == 1
    assert js.read_text() == "mine too" and not (tmp_path / "other.html").exists()
    assert main(["report", clip, "-o", str(out), "--json", str(js), "--force"]) == 0
    assert "plotly" in out.read_text(encoding="utf-8") and json.loads(js.read_text())["clips"]
    assert main(["report", clip, "-o", str(tmp_path / "r.txt")]) == 1
    assert ".html" in capsys.readouterr().err


def test_compare_a_source_with_its_lint_fix(tmp_path, capsys):
    src = DATA / "dataset-1_kick_normal_001.bvh"  # lint finds foot slides on it
    fixed = tmp_path / "kick_fixed.bvh"
    assert main(["lint", str(src), "--fix", "-o", str(fixed)]) == 0
    out, js = tmp_path / "c.html", tmp_path / "c.json"
    assert main(["report", "--compare", str(src), str(fixed), "-o", str(out), "--json", str(js), "--workers", "1"]) == 0
    page = out.read_text(encoding="utf-8")
    _offline(page)
    assert "change (B - A)" in page and 'id="changes"' in page
    (pair,) = json.loads(js.read_text())["pairs"]
    for key, _, _ in METRICS:
        a, b, d = pair["a"][key], pair["b"][key], pair["change"][key]
        assert d == (None if a is None or b is None else pytest.approx(b - a, abs=1e-6)), key
    assert pair["b"]["lint_findings_total"] < pair["a"]["lint_findings_total"]


def test_compare_folders_by_name_and_a_retarget_with_the_rigs_limits(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    shutil.copy(DATA / "dataset-1_walk-right_normal_001.bvh", a / "walk.bvh")
    shutil.copy(DATA / "pybvh_bvh_test1.bvh", a / "lonely.bvh")
    assert main(["retarget", str(a / "walk.bvh"), "--onto", "humanoid", "-o", str(b / "walk.bvh")]) == 0
    js = tmp_path / "c.json"
    assert main(["report", "--compare", str(a), str(b), "-o", str(tmp_path / "c.html"), "--json", str(js),
                 "--rig", str(HUMANOID), "--workers", "1"]) == 1  # the source is not on the humanoid's skeleton
    capsys.readouterr()
    assert main(["report", "--compare", str(a), str(b), "-o", str(tmp_path / "c.html"), "--json", str(js),
                 "--workers", "1", "--force"]) == 0
    data = json.loads(js.read_text())
    assert [p["clip"] for p in data["pairs"]] == ["walk"]
    assert any("lonely.bvh" in u for u in data["unmatched"])
    # The retarget on the bundled humanoid, with its limits: measured in degrees and seconds.
    out = tmp_path / "limits.json"
    assert main(["report", str(b / "walk.bvh"), "-o", str(tmp_path / "l.html"), "--json", str(out), "--rig", str(HUMANOID)]) == 0
    (row,) = json.loads(out.read_text())["clips"]
    assert row["limit_max_deg"] is not None and row["limit_seconds"] is not None and math.isfinite(row["limit_max_deg"])


def test_compare_needs_two_of_a_kind(tmp_path, capsys):
    clip = str(DATA / "pybvh_bvh_test1.bvh")
    assert main(["report", "--compare", clip, str(DATA), "-o", str(tmp_path / "c.html")]) == 1
    assert "not a file with a folder" in capsys.readouterr().err
    assert main(["report", "--compare", clip, "nowhere.bvh", "-o", str(tmp_path / "c.html")]) == 1
    assert "nowhere.bvh: no such file or folder" in capsys.readouterr().err
    assert main(["report", "-o", str(tmp_path / "c.html")]) == 2  # neither INPUT nor --compare
