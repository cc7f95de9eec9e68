"""Open, save, broken files, unsaved-change prompts, recent files, autosave and recovery."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
import rigedit
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from rigedit.app import dialogs, recovery, settings

from .helpers import wait_solved


@pytest.fixture
def dialog_texts(monkeypatch):
    """Record error dialogs instead of showing them (a modal box would wait for a click)."""
    shown = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text, reassurance="": shown.append((title, text)))
    return shown


def test_save_then_open_reads_the_rig_back_exactly(qtbot, window, tmp_path):
    window.document.edit_chain("left_arm", "t", {"target": (0.31, 1.27, 0.22)})
    window.document.edit_chain("right_arm", "w", {"weight": 0.75, "tolerance": 0.002})
    path = tmp_path / "posed.json"
    assert window.save_preset(path)
    assert not window.isWindowModified() and window.document.path == path
    expected = {n: window.rig.chain(n).settings() for n in window.rig.chain_names}
    window.document.edit_chain("left_arm", "t", {"target": (0.0, 0.5, 0.0)})
    window.document.mark_saved()
    assert window.open_preset(path)
    assert {n: window.rig.chain(n).settings() for n in window.rig.chain_names} == expected
    assert window.undo_stack.count() == 0
    assert path.name in window.windowTitle()
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position("LeftHand"), (0.31, 1.27, 0.22), atol=1e-6)


def _broken_preset(tmp_path: Path) -> Path:
    doc = json.loads((Path(rigedit.core.rig.BUNDLED_PRESETS) / "humanoid.json").read_text())
    doc["chains"][1]["weight"] = 1.5
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_broken_file_shows_file_field_and_problem_and_keeps_the_rig(qtbot, window, tmp_path, dialog_texts):
    rig_before = window.rig
    settings_before = {n: rig_before.chain(n).settings() for n in rig_before.chain_names}
    path = _broken_preset(tmp_path)
    assert not window.open_preset(path)
    ((title, text),) = dialog_texts
    assert "broken.json" in text  # the file
    assert "chains[1].weight" in text  # the field
    assert "between 0 and 1" in text and "1.5" in text  # the problem
    assert window.rig is rig_before
    assert {n: window.rig.chain(n).settings() for n in window.rig.chain_names} == settings_before


def test_the_real_error_dialog_shows_the_message(qtbot, window, tmp_path):
    """The dialog itself, found while it is open, then closed like a user would."""
    path = _broken_preset(tmp_path)
    seen = []

    def close_box():
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            seen.append((box.objectName(), box.text()))
            box.accept()
        else:
            QTimer.singleShot(50, close_box)

    QTimer.singleShot(50, close_box)
    assert not window.open_preset(path)
    assert seen and seen[0][0] == "errorDialog"
    assert "chains[1].weight" in seen[0][1]


def test_a_missing_or_non_json_file_is_a_dialog_not_a_crash(window, tmp_path, dialog_texts):
    assert not window.open_preset(tmp_path / "nope.json")
    bad = tmp_path / "text.json"
    bad.write_text("{ not json")
    assert not window.open_preset(bad)
    assert len(dialog_texts) == 2
    assert "nope.json" in dialog_texts[0][1] and "text.json" in dialog_texts[1][1]
    assert "JSON" in dialog_texts[1][1]


def test_a_failed_save_says_why_and_loses_nothing(window, tmp_path, dialog_texts):
    good = tmp_path / "good.json"
    assert window.save_preset(good)
    before = good.read_text()
    window.document.edit_chain("left_arm", "t", {"target": (0.2, 1.2, 0.2)})
    # A "folder" that is a plain file: no one, not even root, can save under it.
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("x")
    assert not window.save_preset(not_a_folder / "rig.json")
    assert dialog_texts and "rig.json" in dialog_texts[0][1]
    assert window.isWindowModified()  # still unsaved: nothing was lost
    assert window.document.path == good
    assert good.read_text() == before


def test_saving_into_a_missing_folder_fails_with_a_dialog(window, tmp_path, dialog_texts):
    window.document.edit_chain("left_arm", "t", {"target": (0.2, 1.2, 0.2)})
    assert not window.save_preset(tmp_path / "no" / "such" / "folder" / "rig.json")
    assert dialog_texts and "rig.json" in dialog_texts[0][1]
    assert window.isWindowModified()


def test_title_marks_unsaved_changes(window, tmp_path):
    assert not window.isWindowModified()
    assert "[*]" in window.windowTitle()
    window.document.edit_chain("left_arm", "t", {"target": (0.2, 1.2, 0.2)})
    assert window.isWindowModified()
    window.undo_stack.undo()
    assert not window.isWindowModified()


@pytest.mark.parametrize("answer, closes, saved", [
    (dialogs.Button.Cancel, False, False),
    (dialogs.Button.Discard, True, False),
    (dialogs.Button.Save, True, True),
])
def test_closing_with_unsaved_changes_asks_first(make_window, tmp_path, monkeypatch, answer, closes, saved):
    w = make_window()
    path = tmp_path / "rig.json"
    assert w.save_preset(path)
    w.document.edit_chain("left_arm", "t", {"target": (0.2, 1.25, 0.2)})
    asked = []
    monkeypatch.setattr(dialogs, "ask_save_changes", lambda parent, name: asked.append(name) or answer)
    w.close()
    assert asked == ["rig.json"]
    assert w.isVisible() is (not closes)
    assert w.solver.is_running() is (not closes)
    on_disk = rigedit.Rig.load(path).chain("left_arm").target
    assert np.allclose(on_disk, (0.2, 1.25, 0.2)) is saved


def test_open_and_save_keep_a_recent_files_list(window, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    window.save_preset(a)
    window.save_preset(b)
    window.open_preset(a)
    assert settings.recent_files()[:2] == [str(a.resolve()), str(b.resolve())]
    window.refresh_recent_menu()
    texts = [act.text() for act in window.recent_menu.actions()]
    assert any("a.json" in t for t in texts) and any("b.json" in t for t in texts)


def test_new_from_a_bundled_rig_is_untitled(window):
    actions = window.findChild(type(window.recent_menu), "newMenu").actions()
    names = [a.text() for a in actions]
    assert "Creature" in names and "Humanoid" in names
    creature = next(a for a in actions if a.text() == "Creature")
    creature.trigger()
    assert "leg_L1" in window.rig.chain_names
    assert window.document.path is None and not window.isWindowModified()


def test_autosave_writes_a_recovery_file_only_when_there_are_changes(window, tmp_path):
    path = tmp_path / "rig.json"
    window.save_preset(path)
    assert window.files.autosave() is None
    window.document.edit_chain("left_arm", "t", {"target": (0.2, 1.25, 0.2)})
    rec = window.files.autosave()
    assert rec is not None and rec.exists()
    assert np.allclose(rigedit.Rig.load(rec).chain("left_arm").target, (0.2, 1.25, 0.2))
    assert recovery.pending_recovery(path) == rec
    window.save_preset(path)  # a save makes the recovery file pointless
    assert recovery.pending_recovery(path) is None


def test_on_start_a_newer_recovery_file_is_offered_and_restored(make_window, tmp_path, monkeypatch):
    path = tmp_path / "rig.json"
    rig = rigedit.Rig.default()
    rig.save(path)
    changed = rig.copy()
    changed.chain("left_arm").target = (0.1, 1.4, 0.3)
    rec = recovery.write_recovery(changed, path)
    past = time.time() - 100
    os.utime(path, (past, past))  # the file is older than the recovery
    asked = []
    monkeypatch.setattr(dialogs, "ask_restore", lambda parent, name, when: asked.append(name) or True)
    w = make_window(rigedit.Rig.load(path), path)
    assert w.offer_recovery()
    assert asked == ["rig.json"]
    np.testing.assert_array_equal(w.rig.chain("left_arm").target, (0.1, 1.4, 0.3))
    assert w.isWindowModified() and w.document.path == path
    assert rec.exists()  # kept until the user saves or discards


def test_a_recovery_file_older_than_the_rig_file_is_not_offered(tmp_path, config_dir):
    path = tmp_path / "rig.json"
    rig = rigedit.Rig.default()
    rec = recovery.write_recovery(rig, path)
    past = time.time() - 100
    os.utime(rec, (past, past))
    rig.save(path)
    assert recovery.pending_recovery(path) is None
    assert recovery.recovery_path(path).parent.parent == config_dir  # never the user's folder


def test_declining_recovery_discards_it(make_window, tmp_path, monkeypatch):
    monkeypatch.setattr(dialogs, "ask_restore", lambda *a: False)
    recovery.write_recovery(rigedit.Rig.default(), None)
    w = make_window()
    assert not w.offer_recovery()
    assert recovery.pending_recovery(None) is None


def test_the_window_layout_is_kept_between_sessions(qtbot, config_dir):
    from rigedit.app import MainWindow

    first = MainWindow()
    first.resize(760, 540)  # inside the 800x600 test screen: restoreGeometry keeps windows on screen
    first.show()
    qtbot.waitExposed(first)
    first.properties.hide()
    first.close()  # unmodified: no prompt; saves the layout
    assert (config_dir / "rigedit.ini").exists()
    second = MainWindow()
    second.show()
    qtbot.waitExposed(second)
    try:
        assert (second.width(), second.height()) == (760, 540)
        assert not second.properties.isVisible()
    finally:
        second.close()
    assert not first.solver.is_running() and not second.solver.is_running()
