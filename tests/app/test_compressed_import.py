"""File > Import of CesiumMan compressed with Draco and with meshopt (tests/data): the editor
draws the same figure as from the original file, on the pixels where its vertices project;
without the meshopt package the bones show and the status line and a --screenshot run's
stderr say what to install."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from rigedit.app import launch
from rigedit.app.menus import set_view_mode
from rigedit.io.gltf import read_gltf
from rigedit.io.gltf_mesh import read_gltf_mesh

from .test_mesh_view import CESIUM, drawn, frame, grown, hide_floor, imported, on_pixels, projected

pytest.importorskip("DracoPy", reason="DracoPy is not installed (pip install 'rigedit[draco]')")
pytest.importorskip("meshopt", reason="meshopt is not installed (pip install 'rigedit[meshopt]')")

HERE = Path(__file__).parent.parent / "data"
VARIANTS = ["CesiumMan_draco.glb", "CesiumMan_meshopt.glb"]


def _silhouette(make_window, qtbot, path):
    w = imported(make_window, qtbot, path)
    set_view_mode(w, "mesh", remember=False)
    hide_floor(w)
    return w, drawn(frame(w))


@pytest.mark.parametrize("name", VARIANTS)
def test_a_compressed_character_is_drawn_as_the_original(name, make_window, qtbot):
    path = HERE / name
    w, mask = _silhouette(make_window, qtbot, path)
    vertices = len(read_gltf_mesh(path, read_gltf(path)).mesh)
    assert w.document.mesh is not None and len(w.document.mesh) == vertices
    assert f"mesh of {vertices} vertices" in w.statusBar().currentMessage()
    verts = projected(w, w.viewport.mesh_view.positions)
    assert on_pixels(grown(mask), verts).mean() > 0.99  # drawn where its vertices are
    _, plain = _silhouette(make_window, qtbot, CESIUM)
    overlap = (mask & plain).sum() / (mask | plain).sum()
    assert overlap > 0.97, overlap  # the same figure, up to a pixel along its outline


@pytest.fixture
def no_meshopt(monkeypatch):
    monkeypatch.setitem(sys.modules, "meshopt", None)  # `import meshopt` now raises ImportError


def test_without_meshopt_the_status_line_names_the_extra(make_window, qtbot, no_meshopt):
    w = make_window()
    w.importer.show_errors = False
    assert not w.importer.import_file(HERE / VARIANTS[1], ask=False)  # its animation is compressed too
    assert "pip install 'rigedit[meshopt]'" in w.importer.last_error
    assert "CesiumMan_meshopt.glb" in w.importer.last_error


def test_a_screenshot_run_says_on_the_command_line_why_it_cannot_open(qapp, tmp_path, capsys, no_meshopt):
    status = launch.main(["--screenshot", str(tmp_path / "s.png"), "--size", "640x480", str(HERE / VARIANTS[1])])
    err = capsys.readouterr().err
    assert status != 0 and not (tmp_path / "s.png").exists()
    assert "CesiumMan_meshopt.glb" in err and "pip install 'rigedit[meshopt]'" in err
