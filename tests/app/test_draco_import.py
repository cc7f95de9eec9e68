"""File > Import of a Draco-compressed glTF character: the editor shows its mesh and the status
line counts its vertices; without DracoPy the bones show and the status line says what to install."""
from __future__ import annotations

import sys

from rigedit.app import launch
from tests.io.draco_files import draco_copy

from .test_mesh_view import CESIUM, frame, drawn, hide_floor, imported


def test_a_draco_character_opens_with_its_mesh(make_window, qtbot, tmp_path):
    copy = draco_copy(CESIUM, tmp_path / "cesium_draco.glb")
    w = imported(make_window, qtbot, copy)
    assert w.document.mesh is not None and len(w.document.mesh) == 3273
    assert "mesh of 3273 vertices" in w.importer.last_summary
    assert "mesh of 3273 vertices" in w.statusBar().currentMessage()
    assert w.viewport.mesh_view.item.visible()
    hide_floor(w)
    assert drawn(frame(w)).mean() > 0.01  # the character covers part of the view


def test_without_dracopy_the_status_line_names_the_extra(make_window, qtbot, tmp_path, monkeypatch):
    copy = draco_copy(CESIUM, tmp_path / "cesium_draco.glb")
    monkeypatch.setitem(sys.modules, "DracoPy", None)
    w = imported(make_window, qtbot, copy)
    assert w.document.mesh is None
    message = w.statusBar().currentMessage()
    assert "mesh not shown: cesium_draco.glb compresses its meshes with Draco" in message
    assert "pip install 'rigedit[draco]'" in message
    assert w.viewport.skeleton.joints.visible()


def test_a_screenshot_run_says_on_the_command_line_why_the_mesh_is_missing(qapp, tmp_path, monkeypatch, capsys):
    copy = draco_copy(CESIUM, tmp_path / "cesium_draco.glb")
    monkeypatch.setitem(sys.modules, "DracoPy", None)
    assert launch.main(["--screenshot", str(tmp_path / "s.png"), "--size", "640x480", str(copy)]) == 0
    err = capsys.readouterr().err
    assert "mesh not shown: cesium_draco.glb" in err and "pip install 'rigedit[draco]'" in err
