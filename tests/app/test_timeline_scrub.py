"""The timeline's mouse and keys as in Blender's and Maya's time lines: a click or drag anywhere
over the plot or the time axis scrubs, a key stays draggable, the middle button pans, Home/End
and the arrows step. Real mouse and key events on the plot's viewport."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

LEG = "left_leg"
LEFT = Qt.MouseButton.LeftButton
MIDDLE = Qt.MouseButton.MiddleButton
NO_MOD = Qt.KeyboardModifier.NoModifier


@pytest.fixture
def panel(window):
    p = window.timeline_dock.widget()
    window.document.select(LEG)
    p.scrub_to(0.0)
    return p


def px(panel, t: float, v: float) -> QPointF:
    return panel.plot.to_widget(t, v)


def on_time_axis(panel, t: float) -> QPointF:
    """A point on the time axis (between its tick labels and its title) under time t."""
    axis = panel.plot.getPlotItem().getAxis("bottom")
    rect = panel.plot.mapFromScene(axis.sceneBoundingRect()).boundingRect()
    return QPointF(px(panel, t, 0.0).x(), rect.top() + 0.4 * rect.height())


def send_move(widget, pos: QPointF, buttons, modifiers=NO_MOD) -> None:
    ev = QMouseEvent(QEvent.Type.MouseMove, pos, QPointF(widget.mapToGlobal(pos.toPoint())), Qt.MouseButton.NoButton,
                     buttons, modifiers)
    QApplication.sendEvent(widget, ev)


def mouse_drag(qtbot, widget, start: QPointF, end: QPointF, button=LEFT, modifiers=NO_MOD, steps: int = 10) -> None:
    """Paced as a hand moves: pyqtgraph drops moves closer than 10 ms apart."""
    QTest.mouseMove(widget, start.toPoint())
    qtbot.wait(25)
    QTest.mousePress(widget, button, modifiers, start.toPoint())
    for i in range(1, steps + 1):
        u = i / steps
        qtbot.wait(15)
        send_move(widget, QPointF(start.x() + (end.x() - start.x()) * u, start.y() + (end.y() - start.y()) * u),
                  button, modifiers)
    qtbot.wait(15)
    QTest.mouseRelease(widget, button, modifiers, end.toPoint())


def click(qtbot, widget, pos: QPointF) -> None:
    QTest.mouseMove(widget, pos.toPoint())
    qtbot.wait(25)
    QTest.mouseClick(widget, LEFT, NO_MOD, pos.toPoint())


def x_range(panel) -> tuple[float, float]:
    return tuple(panel.plot.vb.viewRange()[0])


def near_frame(panel, t: float) -> bool:
    """panel.time is the frame nearest t, to a pixel's worth of time or so."""
    fps = panel.timeline.frame_rate
    return abs(panel.time - t) <= 0.5 / fps + 0.02 and panel.time == panel.timeline.snap(panel.time)


def test_a_click_on_the_plot_moves_the_playhead_there(qtbot, window, panel):
    vp = panel.plot.viewport()
    for t in (1.3, 0.4):
        click(qtbot, vp, px(panel, t, 0.5))
        assert near_frame(panel, t)
        assert panel.plot.playhead.value() == panel.time and window.rig.time == panel.time
    assert window.undo_stack.count() == 0  # scrubbing is not an edit


def test_a_drag_over_the_plot_scrubs_and_does_not_pan(qtbot, window, panel):
    vp = panel.plot.viewport()
    view = x_range(panel)
    seen = []
    panel.plot.playhead_moved.connect(seen.append)
    mouse_drag(qtbot, vp, px(panel, 0.5, 0.3), px(panel, 1.5, 0.7))
    assert near_frame(panel, 1.5)
    assert x_range(panel) == view
    # The playhead followed the mouse on the way, not only at the end.
    assert any(0.7 < t < 1.3 for t in seen)


def test_a_click_and_a_drag_on_the_time_axis_scrub(qtbot, window, panel):
    vp = panel.plot.viewport()
    view = x_range(panel)
    click(qtbot, vp, on_time_axis(panel, 0.8))
    assert near_frame(panel, 0.8)
    mouse_drag(qtbot, vp, on_time_axis(panel, 0.3), on_time_axis(panel, 1.7))
    assert near_frame(panel, 1.7)
    assert x_range(panel) == view


def test_a_press_on_a_key_drags_the_key_not_the_playhead(qtbot, window, panel):
    panel.add_key(0.5, 0.5)
    panel.scrub_to(1.0)
    vp = panel.plot.viewport()
    mouse_drag(qtbot, vp, px(panel, 0.5, 0.5), px(panel, 0.8, 0.5))
    ((t, v),) = [(k.time, k.value) for k in panel.timeline.curve(LEG).keys]
    assert abs(t - 0.8) < 0.05 and v == pytest.approx(0.5, abs=0.02)
    assert panel.time == 1.0


def test_the_middle_button_pans_and_the_wheel_zooms_without_scrubbing(qtbot, window, panel):
    vp = panel.plot.viewport()
    view = x_range(panel)
    mouse_drag(qtbot, vp, px(panel, 1.0, 0.5), px(panel, 0.6, 0.5), button=MIDDLE)
    panned = x_range(panel)
    assert panned[0] > view[0] + 0.2 and panned[1] - panned[0] == pytest.approx(view[1] - view[0], rel=1e-6)
    assert panel.time == 0.0
    # Shift with the left button pans too (for a mouse without a middle button).
    mouse_drag(qtbot, vp, px(panel, 0.6, 0.5), px(panel, 1.0, 0.5), modifiers=Qt.KeyboardModifier.ShiftModifier)
    assert x_range(panel)[0] < panned[0] - 0.2 and panel.time == 0.0

    before = x_range(panel)
    p = px(panel, 1.0, 0.5)
    ev = QWheelEvent(p, QPointF(vp.mapToGlobal(p.toPoint())), QPoint(0, 0), QPoint(0, 240), Qt.MouseButton.NoButton,
                     NO_MOD, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(vp, ev)
    after = x_range(panel)
    assert after[1] - after[0] < 0.9 * (before[1] - before[0]) and panel.time == 0.0


def test_home_end_and_the_arrows_step_with_the_plot_focused(qtbot, window, panel):
    tl = panel.timeline
    resets = []
    window.action_reset_camera.triggered.connect(lambda *_: resets.append(1))
    click(qtbot, panel.plot.viewport(), px(panel, 1.0, 0.5))
    panel.plot.setFocus()  # a click focuses it in an active window; Xvfb has no window manager to activate one
    QTest.keyClick(panel.plot, Qt.Key.Key_End)
    assert panel.time == tl.time_of_frame(tl.last_frame)
    QTest.keyClick(panel.plot, Qt.Key.Key_Left)
    assert panel.time == tl.time_of_frame(tl.last_frame - 1)
    QTest.keyClick(panel.plot, Qt.Key.Key_Home)
    assert panel.time == tl.time_of_frame(tl.first_frame)
    QTest.keyClick(panel.plot, Qt.Key.Key_Right)
    assert panel.time == tl.time_of_frame(tl.first_frame + 1)
    assert resets == []  # Home went to the timeline, not to the viewport's Reset Camera shortcut


def test_left_and_right_in_the_viewport_step_frames_as_in_blender(qtbot, window):
    """With the viewport focused (a bone just clicked), Right / Left step the playhead a frame,
    as in Blender's 3D view; they used to turn the camera instead."""
    from .helpers import camera_state
    from .joints import ELBOW, HAND, bone_middle, click
    from .test_navigation import activate

    activate(qtbot, window)
    vp, panel = window.viewport, window.timeline_dock.widget()
    panel.scrub_to(0.0)
    vp.requestActivate()
    click(vp, bone_middle(window, ELBOW, HAND))
    assert window.document.selected_joints == (ELBOW,)
    camera = camera_state(vp)
    for _ in range(3):
        QTest.keyClick(vp, Qt.Key.Key_Right)
    assert panel.timeline.frame_at(panel.time) == 3
    QTest.keyClick(vp, Qt.Key.Key_Left)
    assert panel.timeline.frame_at(panel.time) == 2
    assert window.rig.time == panel.time
    assert camera_state(vp) == camera
    QTest.keyClick(vp, Qt.Key.Key_Up)  # Up / Down still orbit
    qtbot.waitUntil(lambda: camera_state(vp) != camera)
