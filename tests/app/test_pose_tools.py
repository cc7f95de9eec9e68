"""Edit > Copy / Paste / Paste Mirrored / Mirror Pose through the system clipboard, their
shortcuts with the viewport focused, and Help > Keyboard Shortcuts listing them (issue 25
item 3). Real key presses on the focused viewport."""
from __future__ import annotations

import json

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from .helpers import wait_solved
from .test_pose_keys import axis_angle, focus_viewport

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
LEFT_ARM = ("LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand")
TURNS = {"LeftShoulder": ((0, 0, 1), 15), "LeftArm": ((1, 0.3, 0), -50), "LeftForeArm": ((0, 1, 0.2), 70),
         "LeftHand": ((1, 0, 1), 25)}


def world(window, names) -> np.ndarray:
    return np.array([window.rig.world_position(n) for n in names])


def posed_left_arm(qtbot, window) -> np.ndarray:
    """The arms out of the IK (weight 0: the pose layer shows as it is) and the left arm
    turned; its joints' world positions."""
    doc = window.document
    for chain in ("left_arm", "right_arm"):
        doc.edit_chain(chain, "weight 0", {"weight": 0.0})

    def turn(rig):
        for name, (axis, deg) in TURNS.items():
            rig.set_rotation(name, axis_angle(axis, deg))

    assert doc.edit_pose("turn the left arm", turn)
    wait_solved(qtbot, window)
    return world(window, LEFT_ARM)


def mirrored(p: np.ndarray) -> np.ndarray:
    """Across the humanoid's symmetry plane, x = 0 (its rest pose is symmetric about it)."""
    return p * np.array([-1.0, 1.0, 1.0])


def test_ctrl_shift_v_pastes_the_left_arm_onto_the_right_at_mirror_positions(qtbot, window):
    left = posed_left_arm(qtbot, window)
    vp = focus_viewport(qtbot, window)
    QTest.keyClick(vp, Qt.Key.Key_C, CTRL)
    data = json.loads(QApplication.clipboard().text())
    assert set(LEFT_ARM) <= set(data["joints"])
    steps = window.undo_stack.count()
    QTest.keyClick(vp, Qt.Key.Key_V, CTRL | SHIFT)
    wait_solved(qtbot, window)
    assert window.undo_stack.count() == steps + 1
    right = world(window, [n.replace("Left", "Right") for n in LEFT_ARM])
    assert np.abs(right - mirrored(left)).max() < 1e-9
    window.undo_stack.undo()
    wait_solved(qtbot, window)
    assert np.abs(world(window, LEFT_ARM) - left).max() < 1e-12


def test_ctrl_v_pastes_the_copied_pose_back(qtbot, window):
    left = posed_left_arm(qtbot, window)
    vp = focus_viewport(qtbot, window)
    QTest.keyClick(vp, Qt.Key.Key_C, CTRL)
    window.document.edit_pose("rest", lambda rig: rig.set_rotation("LeftForeArm", (0, 0, 0, 1)))
    wait_solved(qtbot, window)
    assert np.abs(world(window, LEFT_ARM) - left).max() > 1e-3
    QTest.keyClick(vp, Qt.Key.Key_V, CTRL)
    wait_solved(qtbot, window)
    assert np.abs(world(window, LEFT_ARM) - left).max() < 1e-9


def test_mirror_pose_from_the_edit_menu_is_one_undo_step(qtbot, window):
    left = posed_left_arm(qtbot, window)
    window.pose_tools.mirror_pose.trigger()
    wait_solved(qtbot, window)
    right = world(window, [n.replace("Left", "Right") for n in LEFT_ARM])
    assert np.abs(right - mirrored(left)).max() < 1e-9
    assert window.undo_stack.text(window.undo_stack.index() - 1) == "Mirror pose"


def test_paste_with_no_pose_on_the_clipboard_says_so(qtbot, window):
    QApplication.clipboard().setText("not a pose")
    steps = window.undo_stack.count()
    window.pose_tools.paste_pose.trigger()
    assert "no pose" in window.statusBar().currentMessage()
    assert window.undo_stack.count() == steps


def test_the_shortcuts_list_key_pose_and_the_pose_tools(window):
    window.action_shortcuts.trigger()
    rows = window.shortcuts_dialog.texts()

    def has(keys, does, where):
        return any(keys in r[0].split(", ") and does in r[1] and where in r[2] for r in rows)

    assert has("I", "Key Pose", "Edit")
    assert has("Ctrl+C", "Copy Pose", "Edit") and has("Ctrl+V", "Paste Pose", "Edit")
    assert has("Ctrl+Shift+V", "Paste Pose Mirrored", "Edit")
    assert has("Ctrl+C", "Copy pose keys", "Timeline") and has("Ctrl+V", "Paste pose keys", "Timeline")
    assert has("Del", "Delete pose keys", "Timeline")
    assert any("Key pose" in r[0] and "I" in r[0] for r in rows)  # the ways to key


def test_alt_r_clears_the_selected_joints_turn_and_undo_brings_it_back(qtbot, window):
    rest = world(window, LEFT_ARM)
    posed = posed_left_arm(qtbot, window)
    vp = focus_viewport(qtbot, window)
    window.viewport.select_joint("LeftForeArm")
    steps = window.undo_stack.count()
    QTest.keyClick(vp, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
    wait_solved(qtbot, window)
    assert window.undo_stack.count() == steps + 1
    now = world(window, LEFT_ARM)
    np.testing.assert_allclose(now[:3], posed[:3], atol=1e-9)  # the joints above it keep their turns
    assert np.linalg.norm(now[3] - posed[3]) > 0.02  # the hand swung back with the forearm
    window.viewport.select_joint(None)
    QTest.keyClick(vp, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)  # nothing selected: every joint
    wait_solved(qtbot, window)
    np.testing.assert_allclose(world(window, LEFT_ARM), rest, atol=1e-9)
    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)
    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)
    wait_solved(qtbot, window)
    np.testing.assert_allclose(world(window, LEFT_ARM), posed, atol=1e-9)
