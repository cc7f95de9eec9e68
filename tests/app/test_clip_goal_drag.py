"""Issue 14 in the editor: an imported clip plays as recorded; a hand dragged at a frame is an
offset keyed there (one undo command, marked on the timeline); the status line measures the
blended pose."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from rigedit.app.viewport import Handle

from .helpers import drag, screen, wait_solved
from .test_import import WALK, importer, walk_window  # noqa: F401 (fixtures)

ARM = "left_arm"
FIGURE_EPS = 1e-6  # docs/ARCHITECTURE.md, Contracts: the pose equals the clip at weight 1 to 1e-6 of the figure


def clip_positions(rig):
    return rig.skeleton.fk_matrices(rig.animated_pose())[0]


def assert_shows_the_clip(rig):
    expected = clip_positions(rig)
    size = float(np.ptp(expected, axis=0).max())
    np.testing.assert_allclose(rig.world_positions(), expected, rtol=0, atol=FIGURE_EPS * size)


def settle(qtbot, window, check):
    wait_solved(qtbot, window)
    qtbot.waitUntil(check, timeout=10_000)


def test_dragging_a_hand_at_a_frame_of_an_imported_clip_keys_an_eased_offset(walk_window, qtbot, errors):  # noqa: F811
    window = walk_window
    assert importer(window).import_file(WALK, ask=False)
    assert errors == []
    panel = window.timeline_dock.widget()
    rig = window.rig
    frame = 200
    panel.go_to_frame(frame)
    wait_solved(qtbot, window)
    t = rig.time
    assert t > 1.0
    assert_shows_the_clip(rig)  # before issue 14 the goals stayed on frame 0 and the body tore

    arm = rig.chain(ARM)
    hand = arm.joints[-1]
    start = np.asarray(arm.target).copy()
    vp = window.viewport
    press = screen(window, start)
    assert vp.handle_at(press) == Handle(ARM, "target")
    drag(vp, press, screen(window, start + [0.0, 0.06, 0.04]))  # a few centimetres: within reach
    goal = np.asarray(arm.target).copy()
    assert np.linalg.norm(goal - start) > 0.02
    assert window.undo_stack.count() == 1  # the whole drag, one command
    times = [k.time for k in arm.offset_keys]
    assert len(times) == 3 and times[1] == pytest.approx(t)  # keyed at the frame, eased in and out
    assert times[0] < t < times[2]
    settle(qtbot, window, lambda: np.linalg.norm(rig.world_position(hand) - goal) < 1e-6)
    # The timeline marks the keys on the chain's row.
    np.testing.assert_allclose(sorted(panel.plot.target_marks.getData()[0]), times)

    # Away from the ramps the clip plays as recorded, and the goal is back on the animated hand.
    panel.go_to_frame(frame - 100)
    settle(qtbot, window, lambda: abs(rig.time - (frame - 100) / rig.clip.frame_rate) < 1e-9)
    wait_solved(qtbot, window)
    assert_shows_the_clip(rig)

    window.undo_stack.undo()
    assert arm.offset_keys == ()
    panel.go_to_frame(frame)
    wait_solved(qtbot, window)
    np.testing.assert_allclose(arm.target, start, atol=1e-9)
    assert_shows_the_clip(rig)


def test_a_pole_following_the_clip_is_not_dragged(walk_window, qtbot, errors):  # noqa: F811
    window = walk_window
    assert importer(window).import_file(WALK, ask=False)
    wait_solved(qtbot, window)
    pole = np.asarray(window.rig.chain("left_leg").pole)
    vp = window.viewport
    press = screen(window, pole)
    if vp.handle_at(press) != Handle("left_leg", "pole"):
        pytest.skip("the pole handle is hidden behind another at this camera")
    drag(vp, press, QPointF(press.x() + 40, press.y()))
    assert window.undo_stack.count() == 0


def test_status_reports_the_blended_pose_error(qtbot, window):
    doc = window.document
    doc.select(ARM)
    ch = window.rig.chain(ARM)
    moved = np.asarray(ch.target) + [0.0, 0.08, 0.08]  # within reach
    doc.edit_chain(ARM, "t", {"target": tuple(moved), "weight": 0.457})
    wait_solved(qtbot, window)
    assert doc.reports[ARM].reached  # the IK alone reaches; the blend does not
    hand = window.rig.world_position(ch.joints[-1])
    miss = np.linalg.norm(hand - moved)
    assert miss > 0.02  # visibly off
    # The readout trails the poses by its 66 ms timer, and a label may first show the new
    # weight over the pose before this one: wait for it to catch up with the pose shown.
    def shown() -> float:
        text = window.status.chain.text()
        return float(text.split("error ")[1].split(" mm")[0]) if "weight 0.457" in text else math.nan

    qtbot.waitUntil(lambda: shown() == pytest.approx(miss * 1000, rel=1e-2))  # three significant digits
    text = window.status.chain.text()
    assert not text.endswith("reached") and "off target" in text
    doc.edit_chain(ARM, "t", {"weight": 1.0})
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: window.status.chain.text().endswith("· reached"))


def test_weight_keys_and_their_undo_leave_a_following_goal_alone(walk_window, qtbot, errors):  # noqa: F811
    window = walk_window
    assert importer(window).import_file(WALK, ask=False)
    panel = window.timeline_dock.widget()
    window.document.select(ARM)
    panel.go_to_frame(120)
    wait_solved(qtbot, window)
    assert panel.add_key(window.rig.time, 0.5)
    panel.go_to_frame(60)
    window.undo_stack.undo()  # puts the chain's live settings back: a goal on the clip has none to put
    window.undo_stack.redo()
    window.undo_stack.undo()
    assert window.rig.chain(ARM).offset_keys == ()
    wait_solved(qtbot, window)
    assert_shows_the_clip(window.rig)


def test_key_target_on_a_following_chain_keys_its_offset(walk_window, qtbot, errors):  # noqa: F811
    window = walk_window
    assert importer(window).import_file(WALK, ask=False)
    panel = window.timeline_dock.widget()
    window.document.select(ARM)
    panel.go_to_frame(150)
    wait_solved(qtbot, window)
    assert panel.key_target()
    arm = window.rig.chain(ARM)
    assert [k.time for k in arm.offset_keys][1] == pytest.approx(window.rig.time)
    assert len(window.rig.timeline.curve(ARM, "target")) == 0
    for frame in (40, 150, 260):  # scrubbing keys nothing more, and the clip still plays as recorded
        panel.go_to_frame(frame)
        wait_solved(qtbot, window)
        assert_shows_the_clip(window.rig)
    assert len(arm.offset_keys) == 3
    window.undo_stack.undo()
    assert arm.offset_keys == ()


def test_the_follow_clip_box_turns_following_off_where_the_goal_is_and_undo_turns_it_back(walk_window, qtbot, errors):  # noqa: F811
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtWidgets import QCheckBox

    window = walk_window
    assert importer(window).import_file(WALK, ask=False)
    window.document.select(ARM)
    panel = window.timeline_dock.widget()
    panel.go_to_frame(120)
    wait_solved(qtbot, window)
    rig = window.rig
    box = window.findChild(QCheckBox, "followClip")
    assert box.isVisible() and box.isChecked()
    here = np.asarray(rig.chain(ARM).target).copy()
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert not rig.chain(ARM).follow_clip and window.undo_stack.count() == 1
    np.testing.assert_allclose(rig.chain(ARM).target, here, atol=1e-12)  # the goal stays put
    panel.go_to_frame(300)
    wait_solved(qtbot, window)
    np.testing.assert_allclose(rig.chain(ARM).target, here, atol=1e-12)  # and no longer rides the clip
    window.undo_stack.undo()
    assert rig.chain(ARM).follow_clip and box.isChecked()
    settle(qtbot, window, lambda: np.linalg.norm(np.asarray(rig.chain(ARM).target) - here) > 1e-3)
    assert_shows_the_clip(rig)
    assert errors == []


def test_the_follow_clip_box_is_hidden_without_a_clip(qtbot, window):
    from PySide6.QtWidgets import QCheckBox

    assert window.rig.clip is None
    assert not window.findChild(QCheckBox, "followClip").isVisible()
