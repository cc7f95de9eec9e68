"""A joint rotated under an IK at weight 1 (R, or a gizmo ring drag): nothing moves on screen,
but the FK pose underneath did turn. The undo step says so ("(under IK)") and the status bar
says where the turn went; lowering the weight shows it. Real keys and mouse."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from .helpers import drag, wait_solved
from .joints import ARM, CTRL, ELBOW, HAND, bone_middle, click, fk_arm, ring_point, type_keys


def _undo_menu_text(window) -> str:
    return window.undo_stack.undoText()


def test_r_on_a_joint_the_ik_overrules_says_under_ik_and_keeps_the_fk_turn(qtbot, window):
    vp, rig = window.viewport, window.rig
    assert rig.chain(ARM).weight >= 1.0
    vp.requestActivate()
    click(vp, bone_middle(window, ELBOW, HAND))
    wait_solved(qtbot, window)
    shown = fk_arm(window)
    fk_before = rig.animated_pose().rotations[rig.skeleton.index(ELBOW)].copy()
    steps = window.undo_stack.count()
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_X, Qt.Key.Key_4, Qt.Key.Key_5, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    # Nothing moved on screen: the IK replaces the forearm's rotation.
    for a, b in zip(fk_arm(window), shown):
        np.testing.assert_allclose(a, b, atol=1e-6)
    # But the FK pose under the IK turned, and that is one undo step saying so.
    fk_after = rig.animated_pose().rotations[rig.skeleton.index(ELBOW)]
    assert abs(abs(float(np.dot(fk_after, fk_before))) - 1.0) > 1e-3
    assert window.undo_stack.count() == steps + 1
    assert _undo_menu_text(window) == f"Rotate {ELBOW} (under IK)"
    note = window.statusBar().currentMessage()
    assert note.startswith(f"Rotate {ELBOW} (under IK)") and ARM in note and "weight" in note

    # Lowered to 0, the weight shows the kept turn: the step was not empty.
    window.document.edit_chain(ARM, "IK off", {"weight": 0.0})
    wait_solved(qtbot, window)
    turned_hand = fk_arm(window)[1].copy()
    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)  # the weight back to 1
    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)  # the rotation undone
    wait_solved(qtbot, window)
    assert window.undo_stack.index() == steps
    np.testing.assert_allclose(rig.animated_pose().rotations[rig.skeleton.index(ELBOW)], fk_before, atol=1e-12)
    window.document.edit_chain(ARM, "IK off", {"weight": 0.0})
    wait_solved(qtbot, window)
    assert np.linalg.norm(fk_arm(window)[1] - turned_hand) > 0.05  # the hand the turn had moved goes back


def test_a_gizmo_ring_drag_under_the_ik_is_one_step_saying_under_ik(qtbot, window):
    vp = window.viewport
    vp.requestActivate()
    click(vp, bone_middle(window, ELBOW, HAND))
    wait_solved(qtbot, window)
    steps = window.undo_stack.count()
    drag(vp, ring_point(vp, 0, 45.0), ring_point(vp, 0, 100.0))
    wait_solved(qtbot, window)
    assert window.undo_stack.count() == steps + 1
    assert _undo_menu_text(window) == f"Rotate {ELBOW} (under IK)"


def test_a_joint_the_ik_does_not_overrule_has_no_tag_and_no_note(qtbot, window):
    vp = window.viewport
    window.document.edit_chain(ARM, "IK off", {"weight": 0.0})
    wait_solved(qtbot, window)
    vp.requestActivate()
    click(vp, bone_middle(window, ELBOW, HAND))
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_X, Qt.Key.Key_4, Qt.Key.Key_5, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    assert _undo_menu_text(window) == f"Rotate {ELBOW}"
    assert window.statusBar().currentMessage() == ""


def test_r_then_enter_without_a_turn_leaves_no_step_under_the_ik(qtbot, window):
    vp = window.viewport
    vp.requestActivate()
    click(vp, bone_middle(window, ELBOW, HAND))
    steps = window.undo_stack.count()
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    assert window.undo_stack.count() == steps
    assert window.statusBar().currentMessage() == ""
