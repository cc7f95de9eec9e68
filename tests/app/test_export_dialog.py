"""File > Export's dialog (issue 25): the proposed name's suffix follows the format filter the
user picks (glTF picked, `..._baked.glb` proposed and written, not `..._baked.bvh`), a typed
name gets the chosen format's suffix, and the status bar says where the file went. The real
file dialog, driven with key events while it runs."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QFileDialog, QLineEdit

from rigedit.app import settings
from rigedit.app.export_dialog import follow_filter
from rigedit.io.bvh import read_bvh
from rigedit.io.gltf import read_gltf

WALK = Path("/work/shared/data/cmu_12_01_walk.bvh")


@pytest.fixture
def walk_window(make_window, tmp_path, errors):
    """A window with the BVH walk imported (so Export proposes BVH, the file's own layout),
    its export dialog starting in tmp_path."""
    window = make_window()
    assert window.importer.import_file(WALK, ask=False), errors
    settings.set_last_folder("export", tmp_path)
    return window


def run_export_dialog(qtbot, window, act) -> dict:
    """Ctrl+E, then `act(dialog, name_field, type_combo)` once the dialog is up (its exec()
    runs the event loop meanwhile); returns what the dialog showed first. A failure inside
    closes the dialog and is raised here."""
    seen, failed = {}, []
    poll = QTimer()
    poll.setInterval(20)

    def in_dialog():
        dialog = QApplication.activeModalWidget()
        if not (isinstance(dialog, QFileDialog) and dialog.isVisible()):
            return
        poll.stop()
        try:
            assert dialog.objectName() == "exportDialog"
            name, combo = dialog.findChild(QLineEdit, "fileNameEdit"), dialog.findChild(QComboBox, "fileTypeCombo")
            seen.update(name=name.text(), filter=combo.currentText())
            act(dialog, name, combo)
        except BaseException as e:  # noqa: BLE001 - handed to the test below
            failed.append(e)
            dialog.reject()

    poll.timeout.connect(in_dialog)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    poll.start()
    QTest.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    poll.stop()
    if failed:
        raise failed[0]
    assert seen, "no export dialog came up"
    assert QApplication.activeModalWidget() is None  # the dialog is done
    return seen


def pick_filter(combo: QComboBox, starts: str) -> None:
    """Choose the filter with the keyboard, as a user stepping through the list."""
    combo.setFocus()
    want = next(i for i in range(combo.count()) if combo.itemText(i).startswith(starts))
    while combo.currentIndex() != want:
        QTest.keyClick(combo, Qt.Key.Key_Up if combo.currentIndex() > want else Qt.Key.Key_Down)


def test_picking_gltf_names_and_writes_a_glb_and_says_where(qtbot, walk_window, tmp_path, errors):
    window = walk_window
    renamed = {}

    def act(dialog, name, combo):
        pick_filter(combo, "glTF")
        renamed["name"] = name.text()
        QTest.keyClick(name, Qt.Key.Key_Return)

    seen = run_export_dialog(qtbot, window, act)
    assert seen == {"name": "cmu_12_01_walk_baked.bvh", "filter": "BVH (*.bvh)"}
    assert renamed["name"] == "cmu_12_01_walk_baked.glb"
    out = tmp_path / "cmu_12_01_walk_baked.glb"
    assert errors == [] and sorted(p.name for p in tmp_path.glob("*_baked.*")) == [out.name]
    assert read_gltf(out).clip.n_frames == window.rig.clip.n_frames
    message = window.statusBar().currentMessage()
    assert str(out.resolve()) in message and "glTF" in message
    # The message is on show: the chain readout steps aside for it (it covered it before).
    assert not window.status.chain.isVisible()
    window.statusBar().clearMessage()
    assert window.status.chain.isVisible()


@pytest.mark.parametrize("typed, chosen, written", [
    ("picked", "BVH", "picked.bvh"),  # no suffix: the format's
    ("picked.glb", "BVH", "picked.bvh"),  # another format's suffix: the chosen format's
    ("take.v2", "glTF", "take.v2.glb"),  # a suffix no format has is part of the name
])
def test_a_typed_name_gets_the_chosen_formats_suffix(qtbot, walk_window, tmp_path, errors, typed, chosen, written):
    def act(dialog, name, combo):
        pick_filter(combo, chosen)
        name.setFocus()
        QTest.keyClick(name, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        QTest.keyClicks(name, typed)
        QTest.keyClick(name, Qt.Key.Key_Return)

    run_export_dialog(qtbot, walk_window, act)
    assert errors == []
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == [written]
    read = read_bvh if written.endswith(".bvh") else read_gltf
    assert read(tmp_path / written).clip.n_frames == walk_window.rig.clip.n_frames


def test_cancel_writes_nothing(qtbot, walk_window, tmp_path):
    before = walk_window.statusBar().currentMessage()
    run_export_dialog(qtbot, walk_window, lambda dialog, name, combo: QTest.keyClick(name, Qt.Key.Key_Escape))
    assert not [p for p in tmp_path.iterdir() if p.is_file()]
    assert walk_window.statusBar().currentMessage() == before


def test_follow_filter_with_any_filter_string():
    filters = ["Motion (*.bvh *.glb)", "Scene (*.usd *.usda)", "All files (*)"]
    assert follow_filter(Path("/a/x.glb"), filters[0], filters) == Path("/a/x.glb")
    assert follow_filter(Path("/a/x.glb"), filters[1], filters) == Path("/a/x.usd")
    assert follow_filter(Path("/a/x.GLB"), filters[2], filters) == Path("/a/x.GLB")
