"""The rotate gizmo: dragging its rings with the real mouse (issue 25, FK)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from .helpers import LEFT, wait_solved
from .joints import ELBOW, HAND, SHIFT, bone_middle, click, fk_arm, fk_window, ring_point  # noqa: F401 (fk_window: a fixture)


def test_dragging_the_x_ring_turns_the_joint_about_x_in_one_undo_step(qtbot, fk_window):
    from .helpers import drag

    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    elbow, hand = fk_arm(window)
    steps = window.undo_stack.count()
    start = ring_point(vp, 0, 45.0)
    assert vp.rings.pick(start) == ("global", 0)
    drag(vp, start, ring_point(vp, 0, 100.0))
    wait_solved(qtbot, window)
    assert not vp.rotate.active
    new_elbow, new_hand = fk_arm(window)
    np.testing.assert_allclose(new_elbow, elbow, atol=1e-9)
    before, after = hand - elbow, new_hand - elbow
    assert np.linalg.norm(after - before) > 0.02  # it turned
    assert abs(after[0] - before[0]) < 1e-9  # about X: the X part stays
    assert abs(np.linalg.norm(after) - np.linalg.norm(before)) < 1e-9
    assert window.undo_stack.count() == steps + 1


def test_escape_during_a_ring_drag_puts_it_back(qtbot, fk_window):
    from .helpers import drag

    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    before = window.rig.pose.rotations.copy()
    drag(vp, ring_point(vp, 1, 45.0), ring_point(vp, 1, 120.0), release=False)
    wait_solved(qtbot, window)
    assert not np.allclose(window.rig.pose.rotations, before)
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, ring_point(vp, 1, 120.0).toPoint())
    wait_solved(qtbot, window)
    np.testing.assert_array_equal(window.rig.pose.rotations, before)
    assert window.undo_stack.count() == 1  # the weight edit only


def test_shift_click_on_a_ring_selects_and_never_rotates(qtbot, fk_window):
    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    before = window.rig.pose_layer
    on_ring = ring_point(vp, 0, 45.0)
    assert vp.rings.pick(on_ring) == ("global", 0)
    QTest.mousePress(vp, LEFT, SHIFT, on_ring.toPoint())
    assert not vp.rotate.active
    QTest.mouseRelease(vp, LEFT, SHIFT, on_ring.toPoint())
    assert window.rig.pose_layer is before and window.undo_stack.count() == 1
