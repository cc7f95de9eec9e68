"""View menu: camera framing, limits and reach overlays."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF

from .helpers import camera_state, drag, screen


def test_frame_selected_centres_the_chain_and_reset_camera_shows_the_whole_rig(window):
    vp = window.viewport
    window.document.select("left_leg")
    window.action_frame.trigger()
    ch = window.rig.chain("left_leg")
    # The chain's joints and its target ball, whole; the pole (well in front of the knee) is
    # not what the chain is.
    ball = np.asarray(window.rig.shown_target("left_leg")) + np.array([[-1.0], [1.0]]) * vp.gizmos.radius
    pts = np.array([window.rig.world_position(j) for j in ch.joints] + list(ball))
    centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
    c = screen(window, centre)
    assert abs(c.x() - vp.width() / 2) < 2 and abs(c.y() - vp.height() / 2) < 2
    window.action_reset_camera.trigger()
    for p in window.rig.world_positions():
        s = screen(window, p)
        assert 0 <= s.x() <= vp.width() and 0 <= s.y() <= vp.height()


def test_frame_selected_has_the_f_shortcut(window):
    assert window.action_frame.shortcut().toString() == "F"


def test_show_limits_draws_the_limit_overlay(qtbot, window):
    vp = window.viewport
    assert not vp.limits.item.visible()
    window.action_show_limits.setChecked(True)
    qtbot.waitUntil(lambda: vp.limits.item.visible())
    assert len(vp.limits.item.pos) > 0
    window.action_show_limits.setChecked(False)
    qtbot.waitUntil(lambda: not vp.limits.item.visible())


def test_reach_shell_shows_only_while_a_two_bone_target_is_dragged(qtbot, window):
    vp = window.viewport
    assert window.action_show_reach.isChecked()
    t = np.asarray(window.rig.chain("left_arm").target)
    s = screen(window, t)
    drag(vp, s, QPointF(s.x() + 30, s.y() - 30), release=False)
    qtbot.waitUntil(lambda: vp.reach.item.visible())
    shoulder = window.rig.world_position("LeftArm")
    r = np.round(np.linalg.norm(vp.reach.item.pos - shoulder, axis=1), 4)
    upper = np.linalg.norm(window.rig.world_position("LeftForeArm") - shoulder)
    lower = np.linalg.norm(window.rig.world_position("LeftHand") - window.rig.world_position("LeftForeArm"))
    assert np.isclose(r.max(), upper + lower, atol=1e-3)
    vp.cancel_drag()
    qtbot.waitUntil(lambda: not vp.reach.item.visible())
    window.action_show_reach.setChecked(False)
    drag(vp, s, QPointF(s.x() + 30, s.y() - 30), release=False)
    from rigedit.app.capture import pump

    pump(0.1)
    assert not vp.reach.item.visible()
    vp.cancel_drag()


def test_camera_survives_a_wheel_zoom(window):
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    vp = window.viewport
    before = camera_state(vp)
    ev = QWheelEvent(QPointF(100, 100), QPointF(vp.mapToGlobal(QPoint(100, 100))), QPoint(0, 0), QPoint(0, 120),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(vp, ev)
    assert camera_state(vp)[2] < before[2]  # closer
