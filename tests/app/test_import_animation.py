"""File > Import of a glTF with several animations: the dialog's Animation box (driven with
real clicks and keys), the remembered folder, Open Recent with imports, and `--animation`."""
from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog

from rigedit.app import dialogs, launch, settings
from rigedit.app.import_dialog import ChainProposalDialog

from ..io.multi_animation import durations, write_multi_animation
from .test_import import importer, walk_window  # noqa: F401 - fixtures

# Key times are float32 in the file (see tests/io/test_gltf_animations.py).
DURATION_ATOL = 1e-5


@pytest.fixture
def multi(tmp_path):
    folder = tmp_path / "clips"
    folder.mkdir()
    return write_multi_animation(folder / "multi.glb")


@pytest.fixture
def errors(monkeypatch):
    shown = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text, *more: shown.append((title, text)))
    return shown


def _dialog() -> ChainProposalDialog:
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, ChainProposalDialog) and w.isVisible())


def _click_ok(d: ChainProposalDialog) -> None:
    ok = d.buttons.button(QDialogButtonBox.StandardButton.Ok)
    QTest.mouseClick(ok, Qt.MouseButton.LeftButton)


def _pick_with_the_mouse_and_keys(qtbot, box, steps_down: int) -> None:
    """Open the box's list with a click, walk down it with the arrow key, take it with Return."""
    QTest.mouseClick(box, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(box.width() // 2, box.height() // 2))
    view = box.view()
    qtbot.waitUntil(view.isVisible, timeout=2000)
    for _ in range(steps_down):
        QTest.keyClick(view, Qt.Key.Key_Down)
    QTest.keyClick(view, Qt.Key.Key_Return)


def _later(fn, seen):
    def run():
        try:
            fn()
        except Exception as e:  # an assertion inside the dialog's loop: report it, and leave the loop
            seen["error"] = e
            _dialog().reject()

    QTimer.singleShot(200, run)


def test_the_dialog_offers_the_animations_and_imports_the_one_picked(walk_window, multi, qtbot, errors):  # noqa: F811
    seen = {}

    def pick_slow():
        d = _dialog()
        box = d.animation_box
        seen["items"] = [box.itemText(i) for i in range(box.count())]
        seen["default"] = box.currentText()
        before = d.head.text()
        _pick_with_the_mouse_and_keys(qtbot, box, 1)
        qtbot.waitUntil(lambda: d.animation() == 1)
        seen["heads"] = (before, d.head.text())
        _click_ok(d)

    _later(pick_slow, seen)
    ok = importer(walk_window).import_file(multi)
    assert "error" not in seen, seen.get("error")
    assert ok
    want = durations()
    assert seen["items"] == [f"Walk  ({want['Walk']:.2f} s)", f"Slow  ({want['Slow']:.2f} s)", f"animations[2]  ({want[None]:.2f} s)"]
    assert seen["default"].startswith("Walk")
    assert "from Walk" in seen["heads"][0] and "from Slow" in seen["heads"][1]
    clip = walk_window.rig.clip
    assert clip.duration == pytest.approx(want["Slow"], abs=DURATION_ATOL)
    assert errors == []


def test_typing_in_the_box_picks_too_and_a_file_with_one_animation_offers_none(walk_window, multi, qtbot, errors):  # noqa: F811
    seen = {}

    def type_unnamed():
        d = _dialog()
        d.animation_box.setFocus()
        QTest.keyClicks(d.animation_box, "anim")  # the unnamed one is listed as animations[2]
        qtbot.waitUntil(lambda: d.animation() == 2)
        _click_ok(d)

    _later(type_unnamed, seen)
    ok = importer(walk_window).import_file(multi)
    assert "error" not in seen, seen.get("error")
    assert ok
    assert walk_window.rig.clip.duration == pytest.approx(durations()[None], abs=DURATION_ATOL)

    def look():
        seen["box"] = _dialog().animation_box
        _click_ok(_dialog())

    _later(look, seen)
    assert importer(walk_window).import_file("/work/shared/data/CesiumMan.glb")
    assert seen["box"] is None
    assert errors == []


def test_an_animation_asked_for_is_preselected(walk_window, multi, qtbot, errors):  # noqa: F811
    seen = {}
    _later(lambda: (seen.update(current=_dialog().animation_box.currentText()), _click_ok(_dialog())), seen)
    assert importer(walk_window).import_file(multi, animation="Slow")
    assert seen["current"].startswith("Slow")
    assert walk_window.rig.clip.duration == pytest.approx(durations()["Slow"], abs=DURATION_ATOL)


def test_the_import_file_dialog_remembers_its_folder(walk_window, multi, qtbot, monkeypatch, errors):  # noqa: F811
    starts = []

    def fake_dialog(parent, caption, start, filter_):
        starts.append(start)
        return str(multi), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", fake_dialog)
    importer(walk_window)  # File > Import is installed
    for _ in range(2):
        _later(lambda: _click_ok(_dialog()), {})
        walk_window.action_import.trigger()
        walk_window.document.mark_saved()
    assert starts[0] == ""
    assert starts[1] == str(multi.parent.resolve())
    assert settings.last_folder("import") == str(multi.parent.resolve())  # kept in the settings file


def test_a_folder_that_is_gone_is_not_offered(config_dir, tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    settings.set_last_folder("import", gone)
    gone.rmdir()
    assert settings.last_folder("import") == ""


def _recent_action(window, path):
    window.refresh_recent_menu()
    return next(a for a in window.recent_menu.actions() if a.data() == str(path.resolve()))


def test_imports_go_into_open_recent_and_open_again_the_same_way(walk_window, multi, qtbot, errors):  # noqa: F811
    assert importer(walk_window).import_file(multi, ask=False, up="+y", animation="Slow")
    preset = multi.parent / "rig.json"
    assert walk_window.save_preset(preset)  # a preset next to it in the list
    assert settings.recent_files()[:2] == [str(preset.resolve()), str(multi.resolve())]
    act = _recent_action(walk_window, multi)
    assert "multi.glb" in act.text() and "Slow" in act.text() and "up +y" in act.text()

    walk_window.files.new_from(walk_window.files.bundled()[0])  # something else open
    walk_window.document.mark_saved()
    seen = {}

    def look_and_accept():
        d = _dialog()
        seen["animation"] = d.animation_box.currentText()
        seen["up"] = d.up_box.currentText()
        _click_ok(d)

    _later(look_and_accept, seen)
    act.trigger()
    assert "error" not in seen, seen.get("error")
    assert seen["animation"].startswith("Slow") and seen["up"] == "+y"
    assert walk_window.rig.name == "multi"
    assert walk_window.rig.clip.duration == pytest.approx(durations()["Slow"], abs=DURATION_ATOL)
    assert settings.recent_files()[0] == str(multi.resolve())
    assert errors == []


def test_a_recent_file_that_is_gone_is_reported_and_removed(walk_window, multi, qtbot, errors):  # noqa: F811
    copy = multi.parent / "copy.glb"
    shutil.copy(multi, copy)
    assert importer(walk_window).import_file(copy, ask=False)
    before = walk_window.rig
    copy.unlink()
    act = _recent_action(walk_window, copy)
    assert act.isEnabled()  # clickable, so that it can say what happened
    act.trigger()
    assert len(errors) == 1 and str(copy.resolve()) in errors[0][1] and "removed from Open Recent" in errors[0][1]
    assert str(copy.resolve()) not in settings.recent_files()
    walk_window.refresh_recent_menu()
    assert all(a.data() != str(copy.resolve()) for a in walk_window.recent_menu.actions())
    assert walk_window.rig is before


def test_animation_on_the_command_line(qapp, multi, monkeypatch, tmp_path, capsys):
    got = {}

    def fake_capture(app, window, args):
        got["duration"] = window.rig.clip.duration
        got["recent"] = settings.recent_files()
        window.document.mark_saved()
        window.close()
        return 0

    monkeypatch.setattr(launch, "_capture", fake_capture)
    assert launch.main([str(multi), "--animation", "Slow", "--screenshot", str(tmp_path / "s.png")]) == 0
    assert got["duration"] == pytest.approx(durations()["Slow"], abs=DURATION_ATOL)
    assert got["recent"] == []  # a screenshot run leaves Open Recent alone

    assert launch.main([str(multi), "--animation", "Run", "--screenshot", str(tmp_path / "s.png")]) == 1
    err = capsys.readouterr().err
    assert "no animation named 'Run'" in err and "'Walk', 'Slow'" in err
    with pytest.raises(SystemExit):
        launch.parse(["rig.json", "--animation", "Walk"])
