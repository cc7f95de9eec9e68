"""Full-body IK in the editor (issue 16), driven as a user does: the dock's switch and pull
(undoable), a hand dragged past the arm's reach with real mouse events (the spine bends, the
hips move, the feet stay within 1 mm), release keeps the pose, Esc and undo put back the
pose the drag started from, anchors drawn pinned, and the IK/FK match buttons."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

import rigedit
from rigedit.app import capture, status
from rigedit.app.viewport.gizmos import ANCHOR_SCALE, anchor_lines

from .helpers import LEFT, drag, screen, wait_solved

FEET = ("LeftFoot", "RightFoot")
FOOT_EPS = 1e-3  # planted feet stay within 1 mm (issue 16)
SAME_M = 1e-9  # Esc, undo and matches put the pose back to this
SPINE = ("Spine", "Spine1", "Spine2", "Chest")


def click(window, widget) -> None:
    """Scroll the dock to the widget and click it where its box or text is (a check box's
    label ends well before a wide row does)."""
    window.properties.widget().ensureWidgetVisible(widget)
    assert widget.isVisible() and widget.isEnabled()
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(8, widget.height() // 2))


def _full_body_window(make_window):
    rig = rigedit.Rig.default()
    rig.full_body = True
    return make_window(rig)


def _arm_length(rig) -> float:
    a, b, c = (rig.world_position(j) for j in ("LeftArm", "LeftForeArm", "LeftHand"))
    return float(np.linalg.norm(b - a) + np.linalg.norm(c - b))


def _reach_drag(qtbot, window, release=True):
    """Drag the left hand's target toward a point 1.25 arm lengths in front of the shoulder
    and a little below it; returns the target where the drag left it."""
    rig = window.rig
    start = np.asarray(rig.chain("left_arm").target).copy()
    shoulder = rig.world_position("LeftArm")
    # The drag moves the target on the camera-facing plane through it: the goal is the
    # point of that plane 1.25 arm lengths from the shoulder, forward and down from it.
    f = window.viewport.camera_forward()
    f = f / np.linalg.norm(f)
    on_plane = shoulder - np.dot(shoulder - start, f) * f
    depth = np.linalg.norm(shoulder - on_plane)
    u = np.array([0.3, -0.4, 1.0])
    u = u - np.dot(u, f) * f
    goal = on_plane + u / np.linalg.norm(u) * np.sqrt((1.25 * _arm_length(rig)) ** 2 - depth**2)
    drag(window.viewport, screen(window, start), screen(window, goal), steps=16, release=release)
    wait_solved(qtbot, window)
    return np.asarray(rig.chain("left_arm").target).copy()


def _spine_turn(rig, before) -> float:
    idx = [rig.skeleton.index(j) for j in SPINE]
    q = rig.pose.rotations[idx]
    return float(np.max(1.0 - np.abs(np.sum(q * before[idx], axis=1))))


def test_the_dock_switch_and_pull_are_undoable(qtbot, window):
    panel = window.properties.panel
    box = panel.full_body.full_body
    assert not window.rig.full_body and not panel.full_body.pull.isEnabled()
    click(window, box)
    assert window.rig.full_body and window.undo_stack.count() == 1
    window.document.select("left_arm")
    pull = panel.full_body.pull
    assert pull.isEnabled() and abs(pull.value() - window.rig.chain("left_arm").pull) < 1e-12
    pull.setValue(0.25)
    assert window.rig.chain("left_arm").pull == 0.25 and window.undo_stack.count() == 2
    window.undo_stack.undo()
    assert window.rig.chain("left_arm").pull_is_default and abs(pull.value() - 0.4) < 1e-12
    window.undo_stack.undo()
    assert not window.rig.full_body and not box.isChecked() and not pull.isEnabled()
    window.undo_stack.redo()
    assert window.rig.full_body and box.isChecked()


def test_anchors_are_drawn_pinned_while_full_body_is_on(qtbot, window):
    gizmos = window.viewport.gizmos
    window.viewport.sync()
    assert gizmos.anchors == frozenset()
    lines = len(gizmos.lines.pos)
    click(window, window.properties.panel.full_body.full_body)
    window.viewport.sync()
    assert gizmos.anchors == {"left_leg", "right_leg"}
    # Each anchor's pin is drawn: its plate, diagonals and pin, under its target sphere.
    pin = anchor_lines(np.zeros(3), 1.0)
    assert len(gizmos.lines.pos) == lines + 2 * len(pin)
    foot = np.asarray(window.rig.chain("left_leg").target)
    drawn = np.asarray(gizmos.lines.pos, dtype=np.float64)
    assert np.min(np.linalg.norm(drawn - (foot + (0.0, 0.5 * ANCHOR_SCALE * gizmos.radius, 0.0)), axis=1)) < 1e-6
    window.undo_stack.undo()
    window.viewport.sync()
    assert gizmos.anchors == frozenset()


def test_dragging_a_hand_past_its_reach_bends_the_spine_and_keeps_the_feet(qtbot, make_window):
    window = _full_body_window(make_window)
    rig = window.rig
    feet = {f: rig.world_position(f) for f in FEET}
    hips = rig.world_position("Hips")
    shoulder = rig.world_position("LeftArm")
    rest = rig.pose.rotations
    target = _reach_drag(qtbot, window)
    # The drag asked for more than the arm alone can give.
    assert np.linalg.norm(target - shoulder) > 1.1 * _arm_length(rig)
    report = window.document.reports["left_arm"]
    assert report.reached and np.linalg.norm(rig.world_position("LeftHand") - target) <= rig.chain("left_arm").tolerance
    assert _spine_turn(rig, rest) > 1e-4  # the spine bent
    assert np.linalg.norm(rig.world_position("Hips") - hips) > 0.01  # and the hips moved
    for f, p in feet.items():
        assert np.linalg.norm(rig.world_position(f) - p) <= FOOT_EPS, f
    assert window.undo_stack.count() == 1  # one drag, one command
    # Release keeps the pose: a while later nothing has moved back.
    shown = rig.world_positions()
    capture.pump(0.3)
    wait_solved(qtbot, window)
    assert float(np.abs(rig.world_positions() - shown).max()) < 1e-6
    # The viewport draws the bent body: the hand is where the projection puts it, not background.
    img = capture.grab_window(window)
    assert capture.distinct_colours(img, capture.viewport_rect(window)) >= capture.MIN_COLOURS
    # The spine's goal, left where it was, is behind the moved chest: the readout says the
    # arm outpulled it, not that the user put it out of reach.
    window.document.select("spine")
    qtbot.waitUntil(lambda: window.status.chain.text().startswith("spine:"))
    qtbot.waitUntil(lambda: "gave way to stronger pulls" in window.status.chain.text())
    assert "OUT OF REACH" not in window.status.chain.text()
    assert window.status.chain.styleSheet() == status.GAVE_WAY_STYLE  # amber: not the error's red


def test_escape_during_a_full_body_drag_puts_the_pose_back(qtbot, make_window):
    window = _full_body_window(make_window)
    rig = window.rig
    before = rig.world_positions()
    target0 = np.asarray(rig.chain("left_arm").target).copy()
    _reach_drag(qtbot, window, release=False)
    assert float(np.abs(rig.world_positions() - before).max()) > 0.05  # the body followed live
    QTest.keyClick(window.viewport, Qt.Key.Key_Escape)
    QTest.mouseRelease(window.viewport, LEFT, Qt.KeyboardModifier.NoModifier)
    np.testing.assert_array_equal(rig.chain("left_arm").target, target0)
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: float(np.abs(rig.world_positions() - before).max()) < SAME_M, timeout=5000)
    assert window.undo_stack.count() == 0


def test_undo_of_a_full_body_drag_puts_the_pose_back(qtbot, make_window):
    window = _full_body_window(make_window)
    rig = window.rig
    # A first drag, so the pose to go back to is one that history made.
    _reach_drag(qtbot, window)
    before = rig.world_positions()
    s = screen(window, rig.chain("left_arm").target)
    drag(window.viewport, s, screen(window, rig.chain("left_arm").target + np.array([0.0, 0.25, 0.0])))
    wait_solved(qtbot, window)
    assert float(np.abs(rig.world_positions() - before).max()) > 0.05
    assert window.undo_stack.count() == 2
    window.undo_stack.undo()
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: float(np.abs(rig.world_positions() - before).max()) < SAME_M, timeout=5000)


def test_the_switch_buttons_flip_ik_and_fk_without_a_pop(qtbot, make_window):
    window = _full_body_window(make_window)
    rig = window.rig
    _reach_drag(qtbot, window)
    shown = rig.world_positions()
    panel = window.properties.panel.full_body
    QTest.mouseClick(panel.buttons[("switch", True)], Qt.MouseButton.LeftButton)  # whole body to FK
    assert all(rig.chain(n).weight == 0.0 for n in rig.chain_names)
    wait_solved(qtbot, window)
    assert float(np.abs(rig.world_positions() - shown).max()) < SAME_M
    QTest.mouseClick(panel.buttons[("switch", True)], Qt.MouseButton.LeftButton)  # and back to IK
    assert all(rig.chain(n).weight == 1.0 for n in rig.chain_names)
    wait_solved(qtbot, window)
    assert float(np.abs(rig.world_positions() - shown).max()) < SAME_M
    # Each switch is one undo step; undoing both gives the rest pose's frame and weights back.
    assert window.undo_stack.count() == 3
    window.undo_stack.undo()
    window.undo_stack.undo()
    assert all(rig.chain(n).weight == 1.0 for n in rig.chain_names)
    np.testing.assert_array_equal(rig.skeleton.rest_rotations, rigedit.Rig.default().skeleton.rest_rotations)
    wait_solved(qtbot, window)
    assert float(np.abs(rig.world_positions() - shown).max()) < SAME_M


def test_match_ik_to_fk_for_the_selected_chain(qtbot, window):
    rig = window.rig
    window.document.select("left_arm")
    start = np.asarray(rig.chain("left_arm").target).copy()
    drag(window.viewport, screen(window, start), screen(window, start + np.array([0.1, -0.2, 0.15])))
    wait_solved(qtbot, window)
    assert np.linalg.norm(rig.chain("left_arm").target - start) > 0.05
    QTest.mouseClick(window.properties.panel.full_body.buttons[("ik_to_fk", False)], Qt.MouseButton.LeftButton)
    fk_hand = rig.skeleton.fk_matrices(rig.animated_pose())[0][rig.skeleton.index("LeftHand")]
    np.testing.assert_allclose(rig.chain("left_arm").target, fk_hand, atol=1e-12)
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: np.linalg.norm(rig.world_position("LeftHand") - fk_hand) < 1e-3, timeout=5000)
    window.undo_stack.undo()
    assert np.linalg.norm(rig.chain("left_arm").target - start) > 0.05


def test_the_error_plot_shows_the_selected_chains_own_error_under_full_body(qtbot, make_window):
    window = _full_body_window(make_window)
    panel = window.properties.panel
    window.document.select("left_arm")  # a two-bone arm: no plot of its own with full body off
    assert panel.error_plot.isVisibleTo(panel) and "whole-body pass" in panel.plot_label.text()
    _reach_drag(qtbot, window)
    report = window.document.reports["left_arm"]
    curve = window.document.errors["left_arm"]
    assert len(curve) == report.iterations >= 1
    assert abs(curve[-1] - report.error) < 1e-12  # the arm's own error, not the body's sum
    # What the plot showed before: the body's summed error, the other goals included.
    assert report.errors[-1] - curve[-1] > 1e-4
    click(window, panel.full_body.full_body)  # off: the arm's closed form has no passes to plot
    assert not panel.error_plot.isVisibleTo(panel)


def test_the_creature_walks_under_full_body_with_planted_feet(qtbot, make_window):
    from .test_body_drag import FOOT_MM, SolutionLog, look_at_creature, paced_drag, settle

    rig = rigedit.Rig.load(rigedit.core.rig.BUNDLED_PRESETS / "creature_gait.json")
    rig.full_body = True
    window = make_window(rig)
    rig, doc, vp = window.rig, window.document, window.viewport
    assert all(rig.chain(n).pull == 0.0 for n in rig.chain_names)  # every leg an anchor
    window.viewport.sync()
    assert window.viewport.gizmos.anchors == set(rig.chain_names)
    look_at_creature(window)
    log = SolutionLog(window)
    start = doc.body_position()
    a = screen(window, start)
    b = screen(window, start + np.array([0.3, 0.0, 0.3]))
    paced_drag(qtbot, vp, a, b, steps=30)
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, b.toPoint())
    settle(qtbot, window)
    assert np.linalg.norm(doc.body_position() - start) > 2 * rig.gait.step_length
    np.testing.assert_allclose(rig.world_position("Body"), doc.body_position(), atol=1e-9)  # the body went along
    assert len(log.poses) > 10
    for serial, tips in log.poses:  # each pose puts every foot on the target it was solved for
        if serial in log.goals:
            assert np.all(np.linalg.norm(tips - log.goals[serial], axis=1) <= FOOT_MM)


def test_open_after_save_shows_the_saved_full_body_pose(qtbot, make_window, tmp_path):
    window = _full_body_window(make_window)
    rig, doc = window.rig, window.document
    _reach_drag(qtbot, window)
    s = screen(window, rig.chain("left_arm").target)
    drag(window.viewport, s, screen(window, rig.chain("left_arm").target + np.array([0.0, 0.2, 0.0])))
    wait_solved(qtbot, window)
    saved = rig.world_positions()
    path = tmp_path / "reach.json"
    assert window.save_preset(path)
    doc.edit_chain("left_arm", "away", {"target": tuple(rig.world_position("LeftArm") + (0.2, -0.4, 0.1))})
    wait_solved(qtbot, window)
    assert float(np.abs(window.rig.world_positions() - saved).max()) > 0.01
    doc.mark_saved()
    assert window.open_preset(path)
    wait_solved(qtbot, window)
    assert window.rig.full_body and window.properties.panel.full_body.full_body.isChecked()
    assert float(np.abs(window.rig.world_positions() - saved).max()) < SAME_M


def test_fk_to_ik_keys_the_clip_frame_and_undo_puts_it_back(qtbot, window):
    from rigedit.core.clip import Clip

    rig, doc = window.rig, window.document
    rest = rig.skeleton.rest_pose()
    doc.set_clip(Clip(np.tile(rest.rotations, (5, 1, 1)), np.tile(rest.translations, (5, 1, 1)), 0.1))
    doc.set_time(0.2)
    wait_solved(qtbot, window)
    doc.select("left_arm")
    start = np.asarray(rig.chain("left_arm").target).copy()
    drag(window.viewport, screen(window, start), screen(window, start + np.array([0.1, -0.15, 0.2])))
    wait_solved(qtbot, window)
    shown = rig.world_positions()
    before = rig.clip.rotations.copy()
    click(window, window.properties.panel.full_body.buttons[("fk_to_ik", False)])
    arm = [rig.skeleton.index(j) for j in ("LeftArm", "LeftForeArm")]
    changed = np.any(rig.clip.rotations != before, axis=2)
    assert changed[2, arm].all() and changed.sum() == len(arm)  # the arm's joints, at frame 2 only
    doc.edit_chain("left_arm", "FK", {"weight": 0.0})  # the switch to FK: no pop
    wait_solved(qtbot, window)
    assert float(np.abs(rig.world_positions() - shown).max()) < SAME_M
    window.undo_stack.undo()
    window.undo_stack.undo()
    np.testing.assert_array_equal(rig.clip.rotations, before)
    wait_solved(qtbot, window)
    assert float(np.abs(rig.world_positions() - shown).max()) < SAME_M


def test_dragging_the_head_leans_the_body_with_the_feet_kept(qtbot, make_window):
    window = _full_body_window(make_window)
    rig = window.rig
    feet = {f: rig.world_position(f) for f in FEET}
    hips = rig.world_position("Hips")
    head = np.asarray(rig.chain("spine").target).copy()
    drag(window.viewport, screen(window, head), screen(window, head + np.array([0.0, -0.15, 0.2])))
    wait_solved(qtbot, window)
    moved = np.asarray(rig.chain("spine").target) - head
    assert np.linalg.norm(moved) > 0.1
    neck = rig.world_position("Neck") - head
    assert np.dot(neck, moved) / np.linalg.norm(moved) > 0.5 * np.linalg.norm(moved)  # the head went most of the way
    assert np.linalg.norm(rig.world_position("Hips") - hips) > 0.02  # the body followed
    for f, p in feet.items():
        assert np.linalg.norm(rig.world_position(f) - p) <= FOOT_EPS, f
    assert window.undo_stack.count() == 1
