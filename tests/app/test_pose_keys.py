"""Pose keys in the editor (issue 25 item 2): I with the viewport focused keys the pose, the
keys play back eased, and the timeline's row of diamonds moves, deletes, re-eases, copies and
pastes them, each one undo step. Real key presses on the focused viewport and real mouse
events on the row."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from .helpers import move_with_buttons, wait_solved

LEFT, RIGHT = Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton
NO_MOD = Qt.KeyboardModifier.NoModifier
CTRL = Qt.KeyboardModifier.ControlModifier
JOINTS = ("Head", "LeftShoulder")  # outside every IK chain: the shown rotation is the layer's


def axis_angle(axis, degrees) -> np.ndarray:
    a = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    h = np.radians(degrees) / 2
    return np.array([*(a * np.sin(h)), np.cos(h)])


def slerp(q0, q1, u) -> np.ndarray:
    """The shortest-arc slerp, written out here (not the core's) to check the playback against."""
    q0, q1 = np.asarray(q0, float), np.asarray(q1, float)
    d = float(np.dot(q0, q1))
    if d < 0:
        q1, d = -q1, -d
    theta = np.arccos(min(d, 1.0))
    if theta < 1e-12:
        return q0
    return (np.sin((1 - u) * theta) * q0 + np.sin(u * theta) * q1) / np.sin(theta)


def same_rotation(a, b, tol=1e-9) -> bool:
    return abs(abs(float(np.dot(a, b))) - 1.0) < tol and abs(np.linalg.norm(a) - 1) < tol


def focus_viewport(qtbot, window):
    vp = window.viewport
    window.activateWindow()
    vp.requestActivate()
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is vp, timeout=3000)
    return vp


def pose_at(qtbot, window, t: float, rotations: dict) -> None:
    """Go to `t` and turn the joints there (an unkeyed pose layer edit, one undo step)."""
    window.timeline_dock.panel.go_to_time(t)

    def turn(rig):
        for name, q in rotations.items():
            rig.set_rotation(name, q)

    assert window.document.edit_pose("turn", turn)
    wait_solved(qtbot, window)


def shown_at(qtbot, window, t: float) -> dict:
    """The local rotations in the pose the solver thread handed back for time `t` (its own
    copy of the rig must have the pose layer)."""
    window.timeline_dock.panel.go_to_time(t)
    wait_solved(qtbot, window)
    rig = window.rig
    return {n: np.array(rig.pose.rotations[rig.skeleton.index(n)]) for n in JOINTS}


@pytest.fixture
def keyed(qtbot, window):
    """Poses keyed with I at 0 s and 1 s: (rotations at 0 s, rotations at 1 s)."""
    q0 = {"Head": axis_angle((0, 1, 0), 30), "LeftShoulder": axis_angle((0, 0, 1), -20)}
    q1 = {"Head": axis_angle((1, 0, 0), -40), "LeftShoulder": axis_angle((1, 1, 0), 35)}
    for t, q in ((0.0, q0), (1.0, q1)):
        pose_at(qtbot, window, t, q)
        QTest.keyClick(focus_viewport(qtbot, window), Qt.Key.Key_I)
        qtbot.waitUntil(lambda t=t: any(abs(k - t) < 1e-9 for k in window.rig.pose_keys), timeout=3000)
    return q0, q1


def row(window):
    return window.findChild(QWidget, "poseKeys")


def row_point(window, t: float) -> QPointF:
    r = row(window)
    return QPointF(r.key_x(t), r.height() / 2)


def test_i_in_the_viewport_keys_poses_that_play_back_eased(qtbot, window, keyed):
    q0, q1 = keyed
    assert window.rig.pose_keys == pytest.approx((0.0, 1.0))
    assert len(row(window).keys) == 2  # a diamond a key
    for t in (0.5, 0.3, 0.8):  # 0.5 s is the middle; the others tell ease from linear
        u = t * t * (3 - 2 * t)  # ease: smoothstep on the slerp parameter
        shown = shown_at(qtbot, window, t)
        for name in JOINTS:
            assert same_rotation(shown[name], slerp(q0[name], q1[name], u)), (t, name)
            if t != 0.5:
                assert not same_rotation(shown[name], slerp(q0[name], q1[name], t), 1e-6)
    # Key pose keyed the chains' goals and weights too (the timeline's tracks).
    assert window.rig.timeline.curve("left_arm", "weight").times == pytest.approx([0.0, 1.0])


def test_each_key_pose_is_one_undo_step(qtbot, window, keyed):
    stack = window.undo_stack
    assert stack.text(stack.index() - 1).startswith("Key pose")
    stack.undo()
    assert window.rig.pose_keys == pytest.approx((0.0,))
    assert len(row(window).keys) == 1
    stack.redo()
    assert window.rig.pose_keys == pytest.approx((0.0, 1.0))


def test_the_key_pose_button_keys_at_the_playhead_and_says_how_in_its_tooltip(qtbot, window):
    panel = window.timeline_dock.panel
    button = panel.findChild(QWidget, "keyPose")
    assert "I" in button.toolTip() and "Key pose" in button.toolTip()
    panel.go_to_time(0.4)
    QTest.mouseClick(button, LEFT)
    assert window.rig.pose_keys == pytest.approx((0.4,))
    assert window.undo_stack.count() == 1


def drag_row(qtbot, widget, start: QPointF, end: QPointF, steps: int = 8) -> None:
    QTest.mousePress(widget, LEFT, NO_MOD, start.toPoint())
    for i in range(1, steps + 1):
        u = i / steps
        qtbot.wait(10)
        move_with_buttons(widget, QPointF(start.x() + (end.x() - start.x()) * u, start.y()))
    QTest.mouseRelease(widget, LEFT, NO_MOD, end.toPoint())


def test_esc_during_a_diamond_drag_leaves_the_key(qtbot, window, keyed):
    r = row(window)
    start = row_point(window, 1.0)
    QTest.mousePress(r, LEFT, NO_MOD, start.toPoint())
    move_with_buttons(r, QPointF(r.key_x(1.4), start.y()))
    QTest.keyClick(r, Qt.Key.Key_Escape)
    QTest.mouseRelease(r, LEFT, NO_MOD, QPointF(r.key_x(1.4), start.y()).toPoint())
    assert window.rig.pose_keys == pytest.approx((0.0, 1.0))


def test_drag_a_diamond_moves_the_key_snapped_and_undo_puts_it_back(qtbot, window, keyed):
    q0, q1 = keyed
    r = row(window)
    drag_row(qtbot, r, row_point(window, 1.0), QPointF(r.key_x(1.5) + 1, r.height() / 2))
    assert window.rig.pose_keys == pytest.approx((0.0, 1.5))
    assert sorted(r.selected) == pytest.approx([1.5])
    shown = shown_at(qtbot, window, 1.5)
    assert all(same_rotation(shown[n], q1[n]) for n in JOINTS)  # the pose went with its key
    assert window.undo_stack.text(window.undo_stack.index() - 1).startswith("Move pose key")
    window.undo_stack.undo()
    assert window.rig.pose_keys == pytest.approx((0.0, 1.0))


def test_delete_removes_the_selected_key_and_undo_restores_it(qtbot, window, keyed):
    r = row(window)
    QTest.mouseClick(r, LEFT, NO_MOD, row_point(window, 0.0).toPoint())
    assert r.hasFocus() and r.selected == {0.0}
    count = window.undo_stack.count()
    QTest.keyClick(r, Qt.Key.Key_Delete)
    assert window.rig.pose_keys == pytest.approx((1.0,))
    assert len(r.keys) == 1 and window.undo_stack.count() == count + 1
    window.undo_stack.undo()
    assert window.rig.pose_keys == pytest.approx((0.0, 1.0))
    assert len(r.keys) == 2


def test_right_click_sets_the_interpolation(qtbot, window, keyed):
    q0, q1 = keyed
    r = row(window)
    QTest.mouseClick(r, RIGHT, NO_MOD, row_point(window, 0.0).toPoint())
    menu = window.timeline_dock.panel.pose_keys.menu
    qtbot.waitUntil(menu.isVisible)
    assert [a.data() for a in menu.actions() if a.isCheckable() and a.isChecked()] == ["ease"]
    next(a for a in menu.actions() if a.data() == "constant").trigger()
    menu.close()
    shown = shown_at(qtbot, window, 0.9)
    assert all(same_rotation(shown[n], q0[n]) for n in JOINTS)  # held until the next key
    window.undo_stack.undo()
    shown = shown_at(qtbot, window, 0.9)
    assert not same_rotation(shown["Head"], q0["Head"], 1e-6)


def test_ctrl_c_ctrl_v_in_the_row_copy_keys_and_in_the_viewport_copy_the_pose(qtbot, window, keyed):
    q0, q1 = keyed
    r = row(window)
    QApplication.clipboard().setText("untouched")
    QTest.mouseClick(r, LEFT, NO_MOD, row_point(window, 1.0).toPoint())
    QTest.keyClick(r, Qt.Key.Key_C, CTRL)
    window.timeline_dock.panel.go_to_time(1.6)
    QTest.keyClick(r, Qt.Key.Key_V, CTRL)
    assert window.rig.pose_keys == pytest.approx((0.0, 1.0, 1.6))
    assert QApplication.clipboard().text() == "untouched"  # the row's copy is its own
    shown = shown_at(qtbot, window, 1.6)
    assert all(same_rotation(shown[n], q1[n]) for n in JOINTS)
    # The viewport focused, Ctrl+C is Edit > Copy Pose: the pose goes to the clipboard as JSON.
    QTest.keyClick(focus_viewport(qtbot, window), Qt.Key.Key_C, CTRL)
    data = json.loads(QApplication.clipboard().text())
    assert np.allclose(data["joints"]["Head"], window.rig.rotation("Head"))


def test_saved_and_reopened_the_keys_show_and_play_the_same(qtbot, tmp_path, window, keyed):
    before = shown_at(qtbot, window, 0.3)
    path = tmp_path / "keyed.json"
    assert window.save_preset(path)
    window.open_preset(path)
    wait_solved(qtbot, window)
    assert window.rig.pose_keys == pytest.approx((0.0, 1.0))
    assert [t for t, _ in row(window).keys] == pytest.approx([0.0, 1.0])
    after = shown_at(qtbot, window, 0.3)
    assert all(same_rotation(after[n], before[n]) for n in JOINTS)


def test_the_row_draws_a_diamond_at_each_key_over_its_time_on_the_plot(qtbot, window, keyed):
    from rigedit.app.capture import image_array
    from rigedit.app.timeline.pose_keys_row import FILL

    r = row(window)
    panel = window.timeline_dock.panel
    for t in (0.0, 1.0):  # the row's x for a time is the plot's
        plot_x = r.mapFromGlobal(panel.plot.viewport().mapToGlobal(panel.plot.to_widget(t, 0.5))).x()
        assert abs(r.key_x(t) - plot_x) < 0.5
    r.select([])
    a = image_array(r.grab().toImage())
    ease = np.all(a == np.array(FILL["ease"].getRgb()[:3]), axis=-1)
    columns = np.flatnonzero(ease.any(axis=0))
    for t in (0.0, 1.0):
        near = columns[np.abs(columns - r.key_x(t)) < 8]
        assert len(near) >= 6, t  # a filled diamond there
    assert ease.sum() > 2 * 40


def test_i_with_the_timeline_focused_keys_the_pose_too_and_a_text_field_takes_it_as_text(qtbot, window):
    panel = window.timeline_dock.panel
    panel.go_to_time(0.2)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    panel.plot.setFocus()
    qtbot.waitUntil(panel.plot.hasFocus)
    QTest.keyClick(panel.plot, Qt.Key.Key_I)
    assert window.rig.pose_keys == pytest.approx((0.2,))
    panel.go_to_time(0.6)
    box = panel.duration  # a field: I is a letter there, never Key pose
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    QTest.keyClick(box, Qt.Key.Key_I)
    assert window.rig.pose_keys == pytest.approx((0.2,))
