"""`rigedit walk.bvh` imports as File > Import does."""
from __future__ import annotations

from PySide6.QtGui import QImage

from rigedit.app import capture, launch
from rigedit.app.properties_dock import NO_CHAINS_HINT

WALK = "/work/shared/data/cmu_12_01_walk.bvh"
CHAINLESS = "/work/shared/data/threejs_SimpleSkinning.gltf"  # three bones in a row: no chain is proposed


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


def test_a_rig_without_chains_screenshots(qapp, tmp_path, capsys):
    """A skinned file for which no chain is proposed is a clip player: its screenshot waits for
    the solver's pose (no chain reports come with it) and is written."""
    out = tmp_path / "skinning.png"
    assert launch.main(["--screenshot", str(out), CHAINLESS, "--size", "900x600"]) == 0
    assert out.exists() and str(out.resolve()) in capsys.readouterr().out
    img = QImage(str(out))
    assert capture.distinct_colours(img) >= capture.MIN_COLOURS


def test_the_viewport_draws_a_rig_without_chains(make_window, qtbot):
    window = make_window()
    assert window.importer.import_file(CHAINLESS, ask=False)
    assert window.rig.chain_names == [] and capture.wait_for_pose(window, timeout=10)
    img = capture.grab_window(window)
    assert capture.distinct_colours(img, capture.viewport_rect(window)) >= capture.MIN_COLOURS
    # The property dock's fields are greyed out and its Joints line says what to do instead.
    panel = window.properties.panel
    assert not panel.solver.isEnabled() and panel.joints_label.text() == NO_CHAINS_HINT
