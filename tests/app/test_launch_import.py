"""`rigedit walk.bvh` imports as File > Import does."""
from __future__ import annotations

from rigedit.app import launch

WALK = "/work/shared/data/cmu_12_01_walk.bvh"


def test_a_bvh_on_the_command_line_is_imported_and_rendered(qapp, tmp_path, capsys):
    out = tmp_path / "walk.png"
    assert launch.main(["--screenshot", str(out), WALK, "--size", "900x600"]) == 0
    assert out.exists() and str(out.resolve()) in capsys.readouterr().out


def test_a_broken_bvh_on_the_command_line_says_which_file_and_line(qapp, tmp_path, capsys):
    bad = tmp_path / "broken.bvh"
    bad.write_text("HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 zero\n  CHANNELS 3 Zrotation Xrotation Yrotation\n}\n"
                   "MOTION\nFrames: 1\nFrame Time: 0.0333\n0 0 0\n")
    assert launch.main(["--screenshot", str(tmp_path / "x.png"), str(bad)]) == 1
    err = capsys.readouterr().err
    assert "broken.bvh" in err and "line 4" in err
    assert not (tmp_path / "x.png").exists()
