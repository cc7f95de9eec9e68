"""File > Retarget onto This Rig…: a walk from another skeleton becomes the open rig's clip,
shown in the viewport, as one undo command; a clip without legs is refused by name."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QComboBox, QDialogButtonBox, QFileDialog

from rigedit.app.retarget_dialog import RetargetOptionsDialog, widget_name

from rigedit.app import capture
from rigedit.core.skeleton import Pose

from .helpers import wait_solved

DATA = Path("/work/shared/data")
WALK = DATA / "cmu_12_01_walk.bvh"


def test_menu_entry_sits_between_import_and_export(window):
    texts = [a.text() for a in window.file_menu.actions()]
    assert texts.index(window.action_import.text()) < texts.index(window.action_retarget.text()) < texts.index(window.action_export.text())


def test_retarget_from_the_menu_is_the_rigs_clip_and_one_undo(window, qtbot, monkeypatch, errors):
    rig = window.rig
    assert rig.clip is None
    before = {n: rig.chain(n).settings() for n in rig.chain_names}
    hand_before = rig.world_position("LeftHand").copy()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(WALK), "")))
    answer_options(monkeypatch, qtbot, [])
    window.action_retarget.trigger()
    assert errors == []
    assert window.rig is rig  # the open rig, not a new one
    assert rig.clip is not None and rig.clip.n_frames == 524
    assert window.undo_stack.count() == 1
    assert all(rig.chain(n).follow_clip for n in rig.chain_names)
    result = window.retargeter.last_result
    assert result.max_slide <= 0.005

    # Scrub to a frame mid-stride: the window's solved pose is the retargeted clip there.
    frame = 300
    window.document.set_time(frame * rig.clip.frame_time)
    wait_solved(qtbot, window)
    want, _ = rig.skeleton.fk(Pose(result.clip.rotations[frame], result.clip.translations[frame]))
    for joint in ("LeftFoot", "RightFoot", "LeftHand", "Head"):
        np.testing.assert_allclose(window.rig.world_position(joint), want[rig.skeleton.index(joint)], atol=2e-3)
    assert capture.wait_for_pose(window)
    img = capture.grab_window(window)
    assert capture.distinct_colours(img, capture.viewport_rect(window)) >= capture.MIN_COLOURS
    # The foot drawn where the clip puts it: on screen, inside the viewport.
    p = window.viewport.world_to_screen(want[rig.skeleton.index("LeftFoot")])
    assert 0 <= p.x() <= window.viewport.width() and 0 <= p.y() <= window.viewport.height()

    window.undo_stack.undo()
    assert rig.clip is None
    assert {n: rig.chain(n).settings() for n in rig.chain_names} == before
    window.document.set_time(0.0)
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position("LeftHand"), hand_before, atol=1e-6)
    window.undo_stack.redo()
    assert rig.clip is not None and rig.clip.n_frames == 524 and all(rig.chain(n).follow_clip for n in rig.chain_names)


def answer_options(monkeypatch, qtbot, clicks: list[str], root: str | None = None,
                   choices: dict[str, str] | None = None) -> list:
    """The options dialog, when it opens, gets a mouse click on each named box, each list box
    (by option name: `choices`, and `root` for the root motion) set to its value by the
    keyboard, then a click on OK; the dialogs shown are put in the list returned."""
    shown = []
    picks = dict(choices or {}, **({} if root is None else {"root": root}))

    def run(dialog):
        dialog.show()
        qtbot.waitExposed(dialog)
        shown.append(dialog)
        for name in clicks:
            box = dialog.findChild(object, name)
            qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
        for option, value in picks.items():
            pick_choice(qtbot, dialog.findChild(QComboBox, widget_name(option)), value)
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
        return dialog.result()

    monkeypatch.setattr(RetargetOptionsDialog, "exec", run)
    return shown


def pick_choice(qtbot, box, value) -> None:
    """Open the list box with the mouse and move to `value` with the arrow keys."""
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    steps = box.findData(value) - box.currentIndex()
    assert box.findData(value) >= 0, value
    for _ in range(abs(steps)):
        qtbot.keyClick(box.view(), Qt.Key.Key_Down if steps > 0 else Qt.Key.Key_Up)
    qtbot.keyClick(box.view(), Qt.Key.Key_Return)


def test_the_dialogs_options_reach_the_retarget_and_are_offered_again(window, qtbot, monkeypatch, errors):
    """Root motion in place, feet not locked, hands not kept off: the clip made is the core's
    with those options, and the next dialog opens on them."""
    from rigedit.core.retarget import RetargetOptions, retarget_clip
    from rigedit.lint_cli import load_clip

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(WALK), "")))
    shown = answer_options(monkeypatch, qtbot, ["retargetLockFeet", "retargetArmSpace"], root="in_place")
    window.action_retarget.trigger()
    assert errors == []
    want = RetargetOptions(root="in_place", lock_feet=False, ground=True, arm_space=False)
    assert window.retargeter.options == want
    result = window.retargeter.last_result
    assert result.options == want
    src = load_clip(str(WALK))
    core = retarget_clip(src.skeleton, src.clip, window.rig.skeleton, **want.as_dict())
    np.testing.assert_allclose(result.clip.translations, core.clip.translations, atol=1e-9)
    # In place: the hips travel no further than their sway (the source walks metres).
    hips = window.rig.skeleton.fk(Pose(result.clip.rotations, result.clip.translations))[0][:, 0]
    assert np.ptp(hips[:, [0, 2]], axis=0).max() < 0.3
    assert len(shown) == 1
    again = answer_options(monkeypatch, qtbot, [])
    window.action_retarget.trigger()
    assert len(again) == 1 and again[0].options() == want  # opened on the last choice, OK'd as it was


def test_a_clip_without_legs_is_refused_and_the_rig_kept(window, errors):
    rig = window.rig
    assert not window.retargeter.retarget_file(DATA / "RiggedSimple.glb")
    assert len(errors) == 1
    _, text = errors[0]
    assert "RiggedSimple.glb" in text and "no left and right legs" in text
    assert rig.clip is None and window.undo_stack.count() == 0


def test_undo_gives_a_scene_its_own_clip_back(make_window, errors):
    """The walk scene's clip is saved inside its preset; after a retarget and its undo it
    still is (a retargeted clip, like an import, is saved beside the preset)."""
    from rigedit.core.rig import BUNDLED_PRESETS, Rig

    window = make_window(Rig.load(BUNDLED_PRESETS / "uneven_ground_walk.json"))
    rig = window.rig
    own = rig.clip
    assert rig.clip_in_preset
    assert window.retargeter.retarget_file(WALK), errors
    assert rig.clip is not own and not rig.clip_in_preset
    window.undo_stack.undo()
    assert rig.clip is own and rig.clip_in_preset
