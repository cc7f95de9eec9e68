"""Selecting joints by their bones and rotating them (issue 25, FK) with real mouse and keys."""
from __future__ import annotations

import numpy as np
import pytest

import rigedit
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from .helpers import LEFT, screen, wait_solved

ARM = "left_arm"
ELBOW, HAND = "LeftForeArm", "LeftHand"
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def bone_middle(window, joint: str, child: str) -> QPointF:
    rig = window.rig
    return screen(window, (rig.world_position(joint) + rig.world_position(child)) / 2)


def click(vp, p: QPointF, button=LEFT, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.mouseMove(vp, p.toPoint())
    QTest.mouseClick(vp, button, modifiers, p.toPoint())


def type_keys(vp, *keys) -> None:
    for k in keys:
        QTest.keyClick(vp, k)


def rotation_matrix(axis, degrees: float) -> np.ndarray:
    """Rodrigues' formula: the turn the test expects, made without the editor's quaternions."""
    k = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    a = np.radians(degrees)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(a) * kx + (1 - np.cos(a)) * kx @ kx


def fk_arm(window):
    rig = window.rig
    return rig.world_position(ELBOW).copy(), rig.world_position(HAND).copy()


@pytest.fixture
def fk_window(qtbot, window):
    """The humanoid with its left arm's IK off (weight 0): the arm shows its FK rotations."""
    window.document.edit_chain(ARM, "IK off", {"weight": 0.0})
    wait_solved(qtbot, window)
    window.viewport.requestActivate()
    return window


def test_clicking_bones_selects_their_joints_shift_adds_and_empty_space_clears(qtbot, window):
    vp, doc = window.viewport, window.document
    seen = []
    doc.joints_selected.connect(seen.append)
    click(vp, bone_middle(window, ELBOW, HAND))
    assert doc.selected_joints == (ELBOW,)
    assert seen[-1] == (ELBOW,)
    click(vp, bone_middle(window, "RightForeArm", "RightHand"), modifiers=SHIFT)
    assert doc.selected_joints == (ELBOW, "RightForeArm")
    click(vp, bone_middle(window, ELBOW, HAND), modifiers=SHIFT)  # Shift on a selected one: out
    assert doc.selected_joints == ("RightForeArm",)
    click(vp, QPointF(25, 25))  # sky
    assert doc.selected_joints == ()
    assert window.undo_stack.count() == 0  # selecting is no edit


def test_a_click_on_a_handle_still_grabs_the_handle_not_the_bone(qtbot, window):
    target = np.asarray(window.rig.chain(ARM).target)
    click(window.viewport, screen(window, target))
    assert window.document.selected_joints == ()


def test_selected_bones_are_drawn_highlighted(window):
    from rigedit.app.viewport import palette

    sk = window.viewport.skeleton
    window.viewport.select_joint(ELBOW)
    i = list(sk._tails).index(window.rig.skeleton.index(HAND))  # the bone ELBOW -> HAND
    per_bone = len(sk._face_colours) // len(sk._tails)
    np.testing.assert_allclose(sk._face_colours[i * per_bone], palette.SELECTED_BONE)


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


def test_the_dock_shows_the_joint_and_offers_match_or_weight_0_while_the_ik_overrules_it(qtbot, window):
    from PySide6.QtWidgets import QDoubleSpinBox, QLabel, QPushButton

    dock = window.properties
    panel = dock.findChild(type(dock.panel.joint), "jointPanel")
    assert not panel.isVisibleTo(dock)  # nothing selected
    click(window.viewport, bone_middle(window, ELBOW, HAND))
    assert panel.isVisibleTo(dock)
    assert dock.findChild(QLabel, "jointName").text() == ELBOW
    assert "left_arm" in dock.findChild(QLabel, "jointChain").text()
    assert "hinge" in dock.findChild(QLabel, "jointLimit").text()
    overruled = dock.findChild(QLabel, "jointOverruled")
    assert overruled.isVisibleTo(dock) and "overrules" in overruled.text()
    QTest.mouseClick(dock.findChild(QPushButton, "jointIkWeightZero"), LEFT)
    wait_solved(qtbot, window)
    assert window.rig.chain(ARM).weight == 0.0
    assert not overruled.isVisibleTo(dock)
    # A typed X angle is the joint's local rotation (XYZ Euler) on the pose layer: one undo step.
    field = dock.findChild(QDoubleSpinBox, "jointRotationX")
    steps = window.undo_stack.count()
    field.setFocus()
    QTest.keyClick(field, Qt.Key.Key_A, CTRL)
    QTest.keyClicks(field, "-30")
    QTest.keyClick(field, Qt.Key.Key_Return)
    wait_solved(qtbot, window)
    assert window.undo_stack.count() == steps + 1
    from rigedit.app.joint_panel import euler_deg

    np.testing.assert_allclose(euler_deg(window.rig.rotation(ELBOW)), [-30.0, 0.0, 0.0], atol=1e-9)


def test_help_lists_the_joint_keys(window):
    from rigedit.app import help_menu

    rows = help_menu.shortcut_rows(window)
    joints = {keys: does for keys, does, where in rows if where == "Viewport: joints"}
    assert "R" in joints and any("X, Y, Z" in k for k in joints) and any("ring" in k for k in joints)


def test_a_screenshot_shows_the_selected_bone_and_the_rotate_rings(qtbot, window, tmp_path):
    from rigedit.app import capture
    from rigedit.app.viewport import palette
    from rigedit.app.viewport.rotate_gizmo import RING_COLOURS, VIEW_RING_COLOUR

    vp = window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    QTest.mouseMove(vp, QPointF(20, 20).toPoint())  # no ring lit by the mouse
    frames = vp.frames
    vp.update()
    capture.wait_until(lambda: vp.frames > frames + 1, 5)
    img = capture.grab_window(window)
    img.save(str(tmp_path / "joint_rings.png"))
    rect = capture.viewport_rect(window)
    assert capture.distinct_colours(img, rect) >= capture.MIN_COLOURS
    arr = capture.image_array(img)
    top_left = vp.mapTo(window, QPointF(0, 0).toPoint())
    dpr = window.devicePixelRatioF()

    def colour(xyz):
        p = vp.world_to_screen(xyz)
        x, y = int(round((top_left.x() + p.x()) * dpr)), int(round((top_left.y() + p.y()) * dpr))
        patch = arr[y - 1:y + 2, x - 1:x + 2, :3].reshape(-1, 3).astype(float) / 255.0
        return patch

    def near(patch, rgba, tol=0.2):
        """Some pixel of the patch shows rgba blended over the background."""
        a = rgba[3] if len(rgba) > 3 else 1.0
        want = a * np.asarray(rgba[:3]) + (1 - a) * np.asarray(palette.BACKGROUND[:3])
        return bool((np.linalg.norm(patch - want, axis=1) < tol).any())

    rings = dict(vp.rings.rings())
    for k in range(3):  # each ring where only it passes: 45 degrees between the other two axes
        line = rings[("global", k)]
        centre = line.mean(axis=0)
        others = [i for i in range(3) if i != k]
        r = np.linalg.norm(line[0] - centre)
        d = np.zeros(3)
        d[others] = r / np.sqrt(2)
        assert near(colour(centre + d), RING_COLOURS[k]), f"ring {k} not drawn"
    view_line = rings[("view", -1)]
    assert near(colour(view_line[len(view_line) // 3]), VIEW_RING_COLOUR)
    # The selected bone is white; its parent bone, not selected, is not.
    rig = window.rig
    mid = rig.world_position(ELBOW) * 0.7 + rig.world_position(HAND) * 0.3
    assert near(colour(mid), palette.SELECTED_BONE, 0.25)


def _ring_point(vp, k: int, angle_deg: float) -> QPointF:
    """Widget point of ring k (global axis k) at angle_deg round it, from the next axis on."""
    line = dict(vp.rings.rings())[("global", k)]
    centre = line.mean(axis=0)
    r = np.linalg.norm(line[0] - centre)
    u, w = np.eye(3)[(k + 1) % 3], np.eye(3)[(k + 2) % 3]
    a = np.radians(angle_deg)
    return vp.world_to_screen(centre + r * (np.cos(a) * u + np.sin(a) * w))


def test_dragging_the_x_ring_turns_the_joint_about_x_in_one_undo_step(qtbot, fk_window):
    from .helpers import drag

    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    elbow, hand = fk_arm(window)
    steps = window.undo_stack.count()
    start = _ring_point(vp, 0, 45.0)
    assert vp.rings.pick(start) == ("global", 0)
    drag(vp, start, _ring_point(vp, 0, 100.0))
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
    drag(vp, _ring_point(vp, 1, 45.0), _ring_point(vp, 1, 120.0), release=False)
    wait_solved(qtbot, window)
    assert not np.allclose(window.rig.pose.rotations, before)
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, _ring_point(vp, 1, 120.0).toPoint())
    wait_solved(qtbot, window)
    np.testing.assert_array_equal(window.rig.pose.rotations, before)
    assert window.undo_stack.count() == 1  # the weight edit only


def test_match_fk_to_ik_from_the_joint_panel(qtbot, window):
    from PySide6.QtWidgets import QPushButton

    rest = window.rig.world_position(HAND).copy()
    window.document.edit_chain(ARM, "Move target", {"target": rest + np.array([0.05, 0.12, 0.1])})
    wait_solved(qtbot, window)
    shown = window.rig.world_position(HAND).copy()
    assert np.linalg.norm(shown - rest) > 0.05  # the IK holds the hand away from its FK place
    click(window.viewport, bone_middle(window, ELBOW, HAND))
    QTest.mouseClick(window.properties.findChild(QPushButton, "jointMatchFkToIk"), LEFT)
    window.document.edit_chain(ARM, "IK off", {"weight": 0.0})
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position(HAND), shown, atol=1e-6)  # FK now shows what IK did


def test_ctrl_z_during_a_rotation_neither_undoes_nor_changes_the_axis(qtbot, fk_window):
    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    type_keys(vp, Qt.Key.Key_R, Qt.Key.Key_X)
    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)
    assert vp.rotate.active and vp.rotate.state.axis == ("global", 0)
    assert window.undo_stack.index() == 1  # the weight edit not undone
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    assert not vp.rotate.active


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


def test_shift_click_on_a_ring_selects_and_never_rotates(qtbot, fk_window):
    window, vp = fk_window, fk_window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    before = window.rig.pose_layer
    on_ring = _ring_point(vp, 0, 45.0)
    assert vp.rings.pick(on_ring) == ("global", 0)
    QTest.mousePress(vp, LEFT, SHIFT, on_ring.toPoint())
    assert not vp.rotate.active
    QTest.mouseRelease(vp, LEFT, SHIFT, on_ring.toPoint())
    assert window.rig.pose_layer is before and window.undo_stack.count() == 1


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
