"""USD in the editor, through the format table: File > Import (its file dialog offers USD),
the launcher, Open Recent, File > Export's default, Retarget, and a bad file's error dialog."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog

from rigedit.app import launch, settings
from rigedit.app.import_dialog import ChainProposalDialog
from rigedit.io.export import export_rig, load_for_export
from rigedit.io.figure import figure_size, world_positions

from .test_export_dialog import run_export_dialog
from .test_import import importer, walk_window  # noqa: F401 - fixtures

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'rigedit[usd]')")

DATA = Path("/work/shared/data")
RTOL = 1e-6  # of the figure's size


@pytest.fixture(scope="module")
def walk_usd(tmp_path_factory):
    """The CMU walk exported to USD by rigedit, and the rig it was exported from."""
    rig, source = load_for_export(DATA / "cmu_12_01_walk.bvh")
    out = tmp_path_factory.mktemp("usd") / "walk.usdc"
    export_rig(rig, out, source)
    return out, rig


def _same_motion(got, want) -> None:
    assert got.skeleton.names == want.skeleton.names
    tol = RTOL * figure_size(want.skeleton, want.clip)
    assert got.clip.n_frames == want.clip.n_frames
    np.testing.assert_allclose(world_positions(got.skeleton, got.clip), world_positions(want.skeleton, want.clip), rtol=0, atol=tol)


def _click_ok_when_the_dialog_shows(seen: dict) -> None:
    def run():
        d = next((w for w in QApplication.topLevelWidgets() if isinstance(w, ChainProposalDialog) and w.isVisible()), None)
        if d is None:
            QTimer.singleShot(50, run)
            return
        seen["head"] = d.windowTitle()
        QTest.mouseClick(d.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)

    QTimer.singleShot(100, run)


def _choose(qtbot, window, menu, action) -> None:
    """Open `menu` from the menu bar and click `action` in it, with the mouse."""
    bar = window.menuBar()
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, bar.actionGeometry(menu.menuAction()).center())
    qtbot.waitUntil(menu.isVisible, timeout=3000)
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, menu.actionGeometry(action).center())


def test_file_import_offers_usd_and_imports_it(walk_window, walk_usd, monkeypatch, qtbot, errors):
    path, source = walk_usd
    filters = []

    def pick(parent, caption, start, filter_):
        filters.append(filter_)
        return str(path), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", pick)
    importer(walk_window)
    _click_ok_when_the_dialog_shows({})
    _choose(qtbot, walk_window, walk_window.file_menu, walk_window.action_import)
    assert errors == []
    first = filters[0].split(";;")[0]
    assert all(f"*{s}" in first for s in (".usd", ".usda", ".usdc", ".bvh", ".glb"))
    assert "USD (*.usd *.usda *.usdc)" in filters[0].split(";;")
    rig = walk_window.rig
    assert rig.name == "walk" and len(rig.chain_names) == 6
    _same_motion(rig, source)
    assert "/cmu_12_01_walk/Skeleton" in walk_window.statusBar().currentMessage()


def test_open_recent_imports_the_usd_again_and_export_offers_usd(qtbot, walk_window, walk_usd, tmp_path, errors):
    path, source = walk_usd
    assert importer(walk_window).import_file(path, ask=False)
    assert settings.recent_files()[0] == str(path.resolve())
    walk_window.files.new_from(walk_window.files.bundled()[0])
    walk_window.document.mark_saved()
    walk_window.refresh_recent_menu()
    act = next(a for a in walk_window.recent_menu.actions() if a.data() == str(path.resolve()))
    _click_ok_when_the_dialog_shows({})
    act.trigger()
    assert errors == []
    _same_motion(walk_window.rig, source)

    # Export proposes USD, the file's own format: the real dialog, run by Ctrl+E.
    settings.set_last_folder("export", tmp_path)

    def act(dialog, name, combo):
        name.setText(str(tmp_path / "again"))
        dialog.accept()

    seen = run_export_dialog(qtbot, walk_window, act)
    assert seen["name"].endswith(".usd") and seen["filter"].startswith("USD")
    assert (tmp_path / "again.usd").exists() and errors == []


def test_a_bad_usd_is_named_in_the_error_dialog_and_the_rig_stays(walk_window, tmp_path, errors):
    from pxr import Usd, UsdGeom

    empty = tmp_path / "empty.usda"
    stage = Usd.Stage.CreateNew(str(empty))
    UsdGeom.Xform.Define(stage, "/World")
    stage.GetRootLayer().Save()
    before = walk_window.rig
    assert not importer(walk_window).import_file(empty, ask=False)
    (title, text), = errors
    assert title == "Cannot import" and str(empty) in text and "no UsdSkel Skeleton" in text
    assert walk_window.rig is before


def test_retarget_onto_the_open_rig_reads_usd(walk_window, walk_usd, errors):
    from rigedit.app.retarget_action import install_retarget_action

    path, _ = walk_usd
    ctl = getattr(walk_window, "retargeter", None) or install_retarget_action(walk_window)
    assert ctl.retarget_file(path)
    assert errors == [] and walk_window.rig.clip.n_frames == 524


def test_the_launcher_imports_a_usd_on_the_command_line(qapp, walk_usd, tmp_path, capsys):
    path, _ = walk_usd
    out = tmp_path / "walk.png"
    assert launch.main(["--screenshot", str(out), str(path), "--size", "900x600"]) == 0
    assert out.exists()
    capsys.readouterr()
    with pytest.raises(SystemExit):
        launch.parse([str(path), "--animation", "1"])  # one motion: nothing to pick
    assert "--animation picks the animation of a .glb or .gltf FILE" in capsys.readouterr().err
