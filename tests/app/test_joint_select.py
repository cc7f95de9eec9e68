"""Selecting joints by clicking their bones, and what the dock and Help show of them (issue 25)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from .helpers import LEFT, screen, wait_solved
from .joints import ARM, CTRL, ELBOW, HAND, SHIFT, bone_middle, click


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


def test_another_rig_clears_the_joint_selection(qtbot, window):
    import rigedit

    seen = []
    window.viewport.select_joint(ELBOW)
    window.document.joints_selected.connect(seen.append)
    window.document.replace_rig(rigedit.Rig.default(), None)
    assert window.document.selected_joints == () and seen == [()]
    assert not window.viewport.rings.rings()


def test_frame_selected_frames_the_selected_joint(qtbot, window):
    """F with the forearm selected: the view centres on the forearm, the hand in view."""
    vp = window.viewport
    click(vp, bone_middle(window, ELBOW, HAND))
    window.action_frame.trigger()
    rig = window.rig
    middle = vp.world_to_screen((rig.world_position(ELBOW) + rig.world_position(HAND)) / 2)
    w, h = vp.width(), vp.height()
    assert abs(middle.x() - w / 2) < 2 and abs(middle.y() - h / 2) < 2
    # Closer than framing the whole arm chain would be: the bone spans a good part of the view.
    a, b = vp.world_to_screen(rig.world_position(ELBOW)), vp.world_to_screen(rig.world_position(HAND))
    assert np.hypot(a.x() - b.x(), a.y() - b.y()) > 0.25 * min(w, h)


def test_a_click_on_a_joints_dot_selects_that_joint_not_the_bone_ending_there(qtbot, window):
    """At a knee's dot the thigh bone ends and the shin bone starts, both under the mouse: the
    knee is what a click there means (it gave the hip)."""
    vp, doc, rig = window.viewport, window.document, window.rig
    parents = rig.skeleton.parents
    pos = rig.world_positions()
    with_bone = [j for j in range(len(parents)) if j in set(parents.tolist())]
    dots = {j: np.array([screen(window, pos[j]).x(), screen(window, pos[j]).y()]) for j in with_bone}
    tried = []
    for j, p in dots.items():
        alone = all(np.linalg.norm(p - q) > 12 for k, q in dots.items() if k != j)
        if not alone or vp.handle_at(QPointF(*p)) is not None:
            continue  # another dot or a handle ball there
        click(vp, QPointF(25, 25))
        click(vp, QPointF(*p))
        assert doc.selected_joints == (rig.skeleton.names[j],)
        tried.append(rig.skeleton.names[j])
    assert {"LeftLeg", "RightLeg", "LeftForeArm", "RightForeArm"} <= set(tried)


def test_clicking_a_chains_bone_shows_that_chain_in_the_dock(qtbot, window):
    """As Blender's Properties show the active bone's IK: a click on the forearm brings up
    left_arm (the dock stayed on the spine); a bone in no chain leaves the dock as it was."""
    vp, doc = window.viewport, window.document
    assert doc.selected == "spine"
    click(vp, bone_middle(window, ELBOW, HAND))
    assert doc.selected_joints == (ELBOW,) and doc.selected == ARM
    selector = window.properties.findChild(type(window.properties.panel.chain_selector), "chainSelector")
    qtbot.waitUntil(lambda: selector.currentText() == ARM)
    click(vp, bone_middle(window, "RightUpLeg", "RightLeg"))
    assert doc.selected == "right_leg"
    click(vp, bone_middle(window, "Head", "HeadTop_End"))  # the head is in no chain
    assert doc.selected_joints == ("Head",) and doc.selected == "right_leg"
