"""Dragging handles in the viewport with real mouse events."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from rigedit.app.viewport import camera

from .helpers import LEFT, camera_state, drag, move_with_buttons, screen, wait_solved

HAND = "LeftHand"
ARM = "left_arm"


def offset_screen(p: QPointF, dx: float, dy: float) -> QPointF:
    return QPointF(p.x() + dx, p.y() + dy)


def test_world_to_screen_lands_on_the_handle(window):
    target = np.asarray(window.rig.chain(ARM).target)
    from rigedit.app.viewport import Handle

    assert window.viewport.handle_at(screen(window, target)) == Handle(ARM, "target")


def test_dragging_the_hand_target_moves_it_on_the_camera_plane_and_the_hand_follows(qtbot, window):
    vp = window.viewport
    before = np.asarray(window.rig.chain(ARM).target).copy()
    forward = vp.camera_forward()
    start = screen(window, before)
    drag(vp, start, offset_screen(start, 60, -90))
    after = np.asarray(window.rig.chain(ARM).target)
    assert np.linalg.norm(after - before) > 0.05  # it moved, and by a visible amount
    assert abs((after - before) @ forward) < 1e-9  # within the camera-facing plane
    # The target now sits under the release point.
    end = screen(window, after)
    assert abs(end.x() - (start.x() + 60)) < 1.0 and abs(end.y() - (start.y() - 90)) < 1.0
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: np.linalg.norm(window.rig.world_position(HAND) - after) < 1e-6)
    assert window.document.reports[ARM].reached
    assert window.undo_stack.count() == 1  # one drag, one command


def test_a_left_drag_on_empty_space_moves_neither_camera_nor_target(window):
    vp = window.viewport
    targets = {n: np.asarray(window.rig.chain(n).target).copy() for n in window.rig.chain_names}
    cam = camera_state(vp)
    corner = QPointF(25, 25)  # sky, far from the rig
    assert vp.handle_at(corner) is None
    drag(vp, corner, QPointF(125, 45))
    assert camera_state(vp) == cam  # a missed handle does not turn the view (issue 14)
    for n, t in targets.items():
        np.testing.assert_array_equal(window.rig.chain(n).target, t)
    assert window.undo_stack.count() == 0


def test_escape_during_a_drag_puts_the_target_back(qtbot, window):
    vp = window.viewport
    before = np.asarray(window.rig.chain(ARM).target).copy()
    start = screen(window, before)
    drag(vp, start, offset_screen(start, 80, 40), release=False)
    assert np.linalg.norm(np.asarray(window.rig.chain(ARM).target) - before) > 0.05
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    np.testing.assert_array_equal(window.rig.chain(ARM).target, before)
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, offset_screen(start, 80, 40).toPoint())
    np.testing.assert_array_equal(window.rig.chain(ARM).target, before)
    assert window.undo_stack.count() == 0
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position(HAND), before, atol=1e-6)


def test_undo_and_redo_restore_targets_exactly(qtbot, window):
    vp = window.viewport
    t0 = np.asarray(window.rig.chain(ARM).target).copy()
    s = screen(window, t0)
    drag(vp, s, offset_screen(s, -50, -70))
    t1 = np.asarray(window.rig.chain(ARM).target).copy()
    s = screen(window, t1)
    drag(vp, s, offset_screen(s, 40, 20))
    t2 = np.asarray(window.rig.chain(ARM).target).copy()
    assert window.undo_stack.count() == 2
    window.undo_stack.undo()
    np.testing.assert_array_equal(window.rig.chain(ARM).target, t1)
    window.undo_stack.undo()
    np.testing.assert_array_equal(window.rig.chain(ARM).target, t0)
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position(HAND), t0, atol=1e-6)
    window.undo_stack.redo()
    window.undo_stack.redo()
    np.testing.assert_array_equal(window.rig.chain(ARM).target, t2)
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position(HAND), t2, atol=1e-6)


def _elbow_side(rig) -> float:
    """Signed distance of the elbow from the shoulder-hand line, along the pole's side at the start."""
    sh, el, ha = (rig.world_position(j) for j in ("LeftArm", "LeftForeArm", "LeftHand"))
    axis = (ha - sh) / np.linalg.norm(ha - sh)
    off = (el - sh) - axis * ((el - sh) @ axis)
    return off


def test_dragging_the_pole_to_the_other_side_flips_the_elbow(qtbot, window):
    vp = window.viewport
    # Bend the arm first so the elbow has a side to be on: a target in front of the chest.
    window.document.set_chain_live(ARM, target=(0.25, 1.2, 0.25))
    window.undo_stack.clear()
    wait_solved(qtbot, window)
    bent_before = _elbow_side(window.rig)
    assert np.linalg.norm(bent_before) > 0.03
    # Look from the side the elbow bends to, so the pole can be dragged across the arm in view.
    pole = np.asarray(window.rig.chain(ARM).pole).copy()
    sh = window.rig.world_position("LeftArm")
    mirrored = pole - 2 * bent_before / np.linalg.norm(bent_before) * ((pole - sh) @ (bent_before / np.linalg.norm(bent_before)))
    vp.frame_points(np.array([pole, mirrored, sh, window.rig.world_position(HAND)]), azimuth=0.0, elevation=5.0)
    forward = vp.camera_forward()
    start, end = screen(window, pole), screen(window, mirrored)
    drag(vp, start, end, steps=20)
    new_pole = np.asarray(window.rig.chain(ARM).pole)
    assert abs((new_pole - pole) @ forward) < 1e-9
    wait_solved(qtbot, window)
    bent_after = _elbow_side(window.rig)
    assert bent_after @ bent_before < 0  # the elbow is on the other side now
    np.testing.assert_allclose(window.rig.world_position(HAND), window.rig.chain(ARM).target, atol=1e-6)


def test_hover_highlights_the_handle_under_the_mouse(qtbot, window):
    vp = window.viewport
    t = np.asarray(window.rig.chain(ARM).target)
    # Qt drops a move to where the cursor already is (a previous test may have left it on
    # the target), so come from somewhere else first.
    QTest.mouseMove(vp, QPointF(5, 5).toPoint())
    QTest.mouseMove(vp, screen(window, t).toPoint())
    from rigedit.app.viewport import Handle

    # The window system may deliver the synthesised move on the next event-loop turn.
    qtbot.waitUntil(lambda: vp.gizmos.hover == Handle(ARM, "target"), timeout=2000)
    QTest.mouseMove(vp, QPointF(15, 15).toPoint())
    qtbot.waitUntil(lambda: vp.gizmos.hover is None, timeout=2000)


def test_qtest_mouse_move_carries_no_buttons_in_qt6(window):
    """Why helpers.move_with_buttons exists: if this ever fails, QTest.mouseMove would do."""
    vp = window.viewport
    seen = []
    orig = vp.mouseMoveEvent
    vp.mouseMoveEvent = lambda ev: (seen.append(ev.buttons()), orig(ev))
    try:
        p = QPointF(30, 30)
        QTest.mousePress(vp, LEFT, Qt.KeyboardModifier.NoModifier, p.toPoint())
        QTest.mouseMove(vp, QPointF(40, 40).toPoint())
        move_with_buttons(vp, QPointF(50, 50))
        QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, QPointF(50, 50).toPoint())
    finally:
        vp.mouseMoveEvent = orig
    assert seen[-1] == LEFT


def test_the_gui_thread_never_solves(qtbot, window, monkeypatch):
    """Every rig.solve() during a drag runs in the solver thread."""
    import threading

    import rigedit

    where = []
    real = rigedit.Rig.solve

    def spy(self, *a, **k):
        where.append(threading.current_thread() is threading.main_thread())
        return real(self, *a, **k)

    monkeypatch.setattr(rigedit.Rig, "solve", spy)
    vp = window.viewport
    start = screen(window, window.rig.chain(ARM).target)
    drag(vp, start, offset_screen(start, 50, -60), steps=20)
    wait_solved(qtbot, window)
    assert where and not any(where)
