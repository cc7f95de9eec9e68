"""Rotating the selected joints (issue 25, FK) with R, axis keys and typed angles: real keys and mouse."""
from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

import rigedit

from .helpers import wait_solved
from .joints import CTRL, ELBOW, HAND, SHIFT, bone_middle, click, fk_arm, rotation_matrix, fk_window, type_keys  # noqa: F401 (fk_window: a fixture)


def test_r_x_45_enter_turns_the_forearm_45_degrees_about_x_and_the_hand_follows_fk(qtbot, fk_window):
    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    assert window.document.selected_joints == (ELBOW,)
    elbow, hand = fk_arm(window)
    steps = window.undo_stack.count()
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_X, Qt.Key.Key_4, Qt.Key.Key_5)
    assert "45.00°" in window.statusBar().currentMessage() and "global X" in window.statusBar().currentMessage()
    QTest.keyClick(vp, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    assert window.statusBar().currentMessage() == ""
    expected = elbow + rotation_matrix((1, 0, 0), 45.0) @ (hand - elbow)
    new_elbow, new_hand = fk_arm(window)
    np.testing.assert_allclose(new_elbow, elbow, atol=1e-9)  # a joint turns, it does not move
    np.testing.assert_allclose(new_hand, expected, atol=1e-9)
    assert np.linalg.norm(new_hand - hand) > 0.1  # it did turn, by a forearm's 45 degrees
    assert window.undo_stack.count() == steps + 1  # one rotation, one undo step

    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)
    wait_solved(qtbot, window)
    assert window.undo_stack.count() == steps + 1 and window.undo_stack.index() == steps
    np.testing.assert_allclose(fk_arm(window)[1], hand, atol=1e-9)


def test_escape_mid_rotation_puts_the_pose_back_exactly(qtbot, fk_window):
    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    before = window.rig.pose.rotations.copy()
    layer = window.rig.pose_layer
    type_keys(vp, Qt.Key.Key_R)
    centre = vp.world_to_screen(window.rig.world_position(ELBOW))
    QTest.mouseMove(vp, QPointF(centre.x() + 80, centre.y() + 40).toPoint())  # the trackball turns it
    wait_solved(qtbot, window)
    assert not np.allclose(window.rig.pose.rotations, before)
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    wait_solved(qtbot, window)
    assert window.rig.pose_layer is layer
    np.testing.assert_array_equal(window.rig.pose.rotations, before)
    assert window.undo_stack.count() == 1  # the weight edit only


def test_right_click_cancels_and_local_axis_and_typed_sign(qtbot, fk_window):
    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    before = window.rig.pose.rotations.copy()
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_Z, Qt.Key.Key_3, Qt.Key.Key_0)
    wait_solved(qtbot, window)
    click(vp, QPointF(40, 40), button=Qt.MouseButton.RightButton)
    wait_solved(qtbot, window)
    np.testing.assert_array_equal(window.rig.pose.rotations, before)
    # Turned about Y first, the joint's own axes are no longer the world's.
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_Y, Qt.Key.Key_6, Qt.Key.Key_0, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    # Z twice: the joint's own Z axis; "-" makes the typed angle negative.
    _, world = window.rig.skeleton.fk(window.rig.pose)
    from rigedit.core.transforms import quat_rotate

    local_z = quat_rotate(world[window.rig.skeleton.index(ELBOW)], np.array([0.0, 0.0, 1.0]))
    assert abs(local_z[2]) < 0.9  # not the global Z
    elbow, hand = fk_arm(window)
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_Z, Qt.Key.Key_Z, Qt.Key.Key_2, Qt.Key.Key_0, Qt.Key.Key_Minus)
    assert "local Z" in window.statusBar().currentMessage()
    click(vp, QPointF(40, 40))  # a left click confirms
    wait_solved(qtbot, window)
    np.testing.assert_allclose(fk_arm(window)[1], elbow + rotation_matrix(local_z, -20.0) @ (hand - elbow), atol=1e-9)


def test_a_chain_at_weight_above_0_keeps_its_joint_within_its_limit(qtbot, window):
    """The humanoid's elbow is a hinge (0 to 150 degrees about its axis): R X 45 would bend
    it backwards and out of its plane; the rotation lands on the nearest allowed one."""
    from rigedit.core.fk_limits import joint_limit
    from rigedit.core.ik.limits import limit_error_deg

    vp, rig = window.viewport, window.rig
    vp.requestActivate()
    click(vp, bone_middle(window, ELBOW, HAND))
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_X, Qt.Key.Key_4, Qt.Key.Key_5, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    assert window.undo_stack.count() == 1
    jl = joint_limit(rig, ELBOW)
    pos, world = rig.skeleton.fk(rig.animated_pose())  # the FK pose under the IK, the layer on it
    err = limit_error_deg(jl.limit, pos[jl.joint] - pos[jl.prev], world[jl.frame], pos[jl.nxt] - pos[jl.joint])
    assert err < 1e-6
    # Unclamped, the same turn is well past the limit: the clamp did something.
    from rigedit.core.transforms import quat_from_axis_angle, quat_rotate

    turned = quat_rotate(quat_from_axis_angle(np.array([1.0, 0, 0]), np.radians(45.0)),
                         rig.skeleton.offsets[rig.skeleton.index(HAND)])
    assert limit_error_deg(jl.limit, pos[jl.joint] - pos[jl.prev], world[jl.frame], turned) > 10.0


def test_ctrl_z_during_a_rotation_neither_undoes_nor_changes_the_axis(qtbot, fk_window):
    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_X)
    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)
    assert vp.rotate.active and vp.rotate.state.axis == ("global", 0)
    assert window.undo_stack.index() == 1  # the weight edit not undone
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    assert not vp.rotate.active


def test_the_trackball_turns_about_the_screen_up_axis_as_the_mouse_goes_right(qtbot, fk_window):
    from rigedit.app.viewport import camera
    from rigedit.app.viewport.rotate_mode import TRACKBALL_DEG_PER_PX

    window, vp = fk_window, fk_window.viewport
    start = bone_middle(window, ELBOW, HAND).toPoint()
    click(vp, QPointF(start))
    elbow, hand = fk_arm(window)
    QTest.keyClick(vp, Qt.Key.Key_R)
    QTest.mouseMove(vp, start + QPointF(100, 0).toPoint())
    QTest.keyClick(vp, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    _, up = camera.camera_right_up(vp.matrices()[0])
    want = elbow + rotation_matrix(up, 100 * TRACKBALL_DEG_PER_PX) @ (hand - elbow)
    np.testing.assert_allclose(fk_arm(window)[1], want, atol=1e-9)


def test_two_selected_forearms_turn_together_each_about_its_own_elbow(qtbot, fk_window):
    window, vp, doc = fk_window, fk_window.viewport, fk_window.document
    doc.edit_chain("right_arm", "IK off", {"weight": 0.0})
    wait_solved(qtbot, window)
    click(vp, bone_middle(window, ELBOW, HAND))
    click(vp, bone_middle(window, "RightForeArm", "RightHand"), modifiers=SHIFT)
    assert doc.selected_joints == (ELBOW, "RightForeArm")
    rig = window.rig
    start = {j: rig.world_position(j).copy() for j in (ELBOW, HAND, "RightForeArm", "RightHand")}
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_X, Qt.Key.Key_3, Qt.Key.Key_0, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    turn = rotation_matrix((1, 0, 0), 30.0)
    for elbow, hand in ((ELBOW, HAND), ("RightForeArm", "RightHand")):
        want = start[elbow] + turn @ (start[hand] - start[elbow])
        np.testing.assert_allclose(rig.world_position(hand), want, atol=1e-9)
    assert window.undo_stack.count() == 3  # two weight edits and one rotation


def test_a_child_selected_with_its_parent_turns_once_not_twice():
    from rigedit.app.viewport.rotate_math import axis_turn, turned_locals
    from rigedit.core.transforms import quat_mul

    rig = rigedit.Rig.default()
    sk, pose = rig.skeleton, rig.pose
    arm, fore = sk.index("LeftArm"), sk.index(ELBOW)
    turn = axis_turn(np.array([0.3, 1.0, -0.2]), 0.7)
    new = turned_locals(sk, pose, [fore, arm], [turn, turn], {})
    after = pose.copy()
    for j, q in new.items():
        after.rotations[j] = q
    _, w0 = sk.fk(pose)
    _, w1 = sk.fk(after)
    for j in (arm, fore):
        a, b = w1[j], quat_mul(turn, w0[j])
        assert min(np.abs(a - b).max(), np.abs(a + b).max()) < 1e-12


def test_with_auto_key_a_rotation_keys_its_joint_in_the_same_undo_step(qtbot, fk_window):
    window, vp = fk_window, fk_window.viewport
    auto = window.findChild(QtWidgets.QCheckBox, "autoKey")
    QTest.mouseClick(auto, Qt.MouseButton.LeftButton, pos=QPointF(8, auto.height() / 2).toPoint())
    assert auto.isChecked()
    tracks = dict(window.rig.timeline.tracks)
    click(vp, bone_middle(window, ELBOW, HAND))
    steps = window.undo_stack.count()
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_X, Qt.Key.Key_3, Qt.Key.Key_0, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    assert window.rig.pose_keys == (window.rig.time,)
    assert window.rig.timeline.tracks == tracks  # the joint is keyed, not every chain's goal
    assert window.undo_stack.count() == steps + 1
    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)
    wait_solved(qtbot, window)
    assert window.rig.pose_keys == ()  # the key went with the rotation
