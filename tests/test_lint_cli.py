"""`rigedit lint` on the command line: the JSON schema, the table, exit statuses, bad input."""
from __future__ import annotations

import json

import pytest

from rigedit.cli import main
from rigedit.io.bvh import read_bvh, write_bvh
from rigedit.io.export import bvh_angles

from tests.core.lint_faults import BANDAI, CMU, wrap_euler

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
