"""Viewport navigation presets (View > Navigation), numpad views, framing, Home, and Esc ending a
drag for good. Real mouse and key events on the viewport's GL window."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from rigedit.app.viewport import camera

from .helpers import camera_state, drag, move_with_buttons, screen, wait_solved

B = Qt.MouseButton
M = Qt.KeyboardModifier
KEYPAD = M.KeypadModifier


def mouse_drag(qtbot, widget, start: QPointF, end: QPointF, button=B.LeftButton, modifiers=M.NoModifier,
               steps: int = 8) -> None:
    QTest.mousePress(widget, button, modifiers, start.toPoint())
    for i in range(1, steps + 1):
        u = i / steps
        p = QPointF(start.x() + (end.x() - start.x()) * u, start.y() + (end.y() - start.y()) * u)
        ev = QMouseEvent(QEvent.Type.MouseMove, p, QPointF(widget.mapToGlobal(p.toPoint())), B.NoButton, button, modifiers)
        QApplication.sendEvent(widget, ev)
        QApplication.processEvents()
    QTest.mouseRelease(widget, button, modifiers, end.toPoint())


def activate(qtbot, window) -> None:
    """Shortcuts need the window active (a click does that under a window manager)."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)


def use(window, preset: str | None) -> None:
    """Pick the preset in View > Navigation, as a user does (None: the default, untouched)."""
    if preset is None:
        return
    window.navigation_actions[preset].trigger()
    assert window.viewport.navigation == preset


def empty_spot(window) -> QPointF:
    """A point of the view with no handle under it (a corner, above the rig's head)."""
    vp = window.viewport
    p = QPointF(40, 40)
    assert vp.handle_at(p) is None
    return p


def centre_world(vp) -> np.ndarray:
    """The world point the camera orbits about."""
    c = vp.opts["center"]
    return camera.Y_UP_TO_GL[:3, :3].T @ np.array([c.x(), c.y(), c.z()])


def middle(vp) -> np.ndarray:
    return np.array([vp.width() / 2, vp.height() / 2])


def on_screen(window, xyz) -> np.ndarray:
    p = screen(window, xyz)
    return np.array([p.x(), p.y()])


@pytest.mark.parametrize("preset", [None, "blender", "maya"])
@pytest.mark.parametrize("button", [B.LeftButton, B.RightButton])
def test_a_drag_on_empty_space_leaves_the_camera_alone(qtbot, window, preset, button):
    use(window, preset)
    vp = window.viewport
    before = camera_state(vp)
    start = empty_spot(window)
    mouse_drag(qtbot, vp, start, QPointF(start.x() + 150, start.y() + 90), button=button)
    assert camera_state(vp) == before
    assert window.undo_stack.count() == 0


def test_blender_middle_orbits_shift_middle_pans_and_ctrl_middle_zooms(qtbot, window):
    use(window, "blender")
    vp = window.viewport
    start = empty_spot(window)
    az, el, dist, centre = camera_state(vp)

    mouse_drag(qtbot, vp, start, QPointF(start.x() + 120, start.y() + 40), button=B.MiddleButton)
    az2, el2, dist2, centre2 = camera_state(vp)
    assert abs(az2 - az) > 20 and el2 != el and (dist2, centre2) == (dist, centre)

    # Shift+middle pans: the point at the view's centre follows the mouse.
    pivot = centre_world(vp)
    np.testing.assert_allclose(on_screen(window, pivot), middle(vp), atol=1.0)
    mouse_drag(qtbot, vp, start, QPointF(start.x() + 80, start.y() + 50), button=B.MiddleButton, modifiers=M.ShiftModifier)
    assert camera_state(vp)[:3] == (az2, el2, dist2)
    np.testing.assert_allclose(on_screen(window, pivot), middle(vp) + [80, 50], atol=4.0)

    # Ctrl+middle zooms: dragging up comes closer, and nothing else changes.
    centre3 = camera_state(vp)[3]
    mouse_drag(qtbot, vp, start, QPointF(start.x(), start.y() + 100), button=B.MiddleButton, modifiers=M.ControlModifier)
    d_out = camera_state(vp)[2]
    mouse_drag(qtbot, vp, QPointF(start.x(), start.y() + 200), start, button=B.MiddleButton, modifiers=M.ControlModifier)
    d_in = camera_state(vp)[2]
    assert d_out > dist2 and d_in < d_out and camera_state(vp)[3] == centre3

    # Maya's gestures do nothing here.
    before = camera_state(vp)
    mouse_drag(qtbot, vp, start, QPointF(start.x() + 100, start.y() + 60), modifiers=M.AltModifier)
    assert camera_state(vp) == before


def test_maya_alt_left_orbits_alt_middle_pans_and_alt_right_zooms(qtbot, window):
    use(window, "maya")
    vp = window.viewport
    start = empty_spot(window)
    az, el, dist, centre = camera_state(vp)

    mouse_drag(qtbot, vp, start, QPointF(start.x() + 120, start.y() + 40), modifiers=M.AltModifier)
    az2, el2, dist2, centre2 = camera_state(vp)
    assert abs(az2 - az) > 20 and el2 != el and (dist2, centre2) == (dist, centre)

    pivot = centre_world(vp)
    mouse_drag(qtbot, vp, start, QPointF(start.x() - 70, start.y() + 30), button=B.MiddleButton, modifiers=M.AltModifier)
    np.testing.assert_allclose(on_screen(window, pivot), middle(vp) + [-70, 30], atol=4.0)

    d = camera_state(vp)[2]
    mouse_drag(qtbot, vp, start, QPointF(start.x() + 100, start.y()), button=B.RightButton, modifiers=M.AltModifier)
    assert camera_state(vp)[2] < d

    # Blender's middle-drag orbit is not Maya's.
    before = camera_state(vp)
    mouse_drag(qtbot, vp, start, QPointF(start.x() + 100, start.y() + 60), button=B.MiddleButton)
    assert camera_state(vp) == before


def test_the_preset_is_remembered_for_the_next_window(qtbot, make_window):
    first = make_window()
    assert first.navigation_actions["blender"].isChecked()  # the default
    use(first, "maya")
    second = make_window()
    assert second.navigation_actions["maya"].isChecked() and second.viewport.navigation == "maya"
    vp = second.viewport
    before = camera_state(vp)
    start = empty_spot(second)
    mouse_drag(qtbot, vp, start, QPointF(start.x() + 100, start.y() + 30), modifiers=M.AltModifier)
    assert camera_state(vp)[0] != before[0]


@pytest.mark.parametrize(
    "key, ctrl, forward, screen_up",
    [
        (Qt.Key.Key_1, False, (0, 0, -1), (0, 1, 0)),  # front: the rig faces +Z
        (Qt.Key.Key_1, True, (0, 0, 1), (0, 1, 0)),  # back
        (Qt.Key.Key_3, False, (-1, 0, 0), (0, 1, 0)),  # right: looking from +X
        (Qt.Key.Key_3, True, (1, 0, 0), (0, 1, 0)),  # left
        (Qt.Key.Key_7, False, (0, -1, 0), (0, 0, -1)),  # top: the back of the rig up the screen
        (Qt.Key.Key_7, True, (0, 1, 0), (0, 0, 1)),  # bottom
    ],
)
def test_numpad_views(qtbot, window, key, ctrl, forward, screen_up):
    activate(qtbot, window)
    vp = window.viewport
    centre, dist = centre_world(vp), vp.opts["distance"]
    mods = KEYPAD | (M.ControlModifier if ctrl else M.NoModifier)
    QTest.keyClick(window.findChild(type(vp.container), "viewport"), key, mods)
    np.testing.assert_allclose(vp.camera_forward(), forward, atol=1e-6)
    np.testing.assert_allclose(centre_world(vp), centre, atol=1e-6)
    assert vp.opts["distance"] == dist
    # A point a little along screen_up from the centre is straight above it on the screen.
    up = on_screen(window, centre + 0.1 * np.asarray(screen_up, dtype=float)) - on_screen(window, centre)
    assert up[1] < -5 and abs(up[0]) < 1e-3 * abs(up[1]) + 1e-6


def chain_points(window, name: str) -> np.ndarray:
    ch = window.rig.chain(name)
    pts = [window.rig.world_position(j) for j in ch.joints] + [ch.target] + ([ch.pole] if ch.pole is not None else [])
    return np.array(pts, dtype=float)


@pytest.mark.parametrize("how", ["F", "numpad period"])
def test_frame_selected_fills_the_view_with_the_selected_chain(qtbot, window, how):
    activate(qtbot, window)
    vp = window.viewport
    window.document.select("left_arm")
    if how == "F":
        QTest.keyClick(vp.container, Qt.Key.Key_F)
    else:
        QTest.keyClick(vp.container, Qt.Key.Key_Period, KEYPAD)
    pts = np.array([on_screen(window, p) for p in chain_points(window, "left_arm")])
    assert (pts >= 0).all() and (pts[:, 0] <= vp.width()).all() and (pts[:, 1] <= vp.height()).all()
    extent = pts.max(axis=0) - pts.min(axis=0)
    # The chain fills most of the view, so the rest of the rig (the far foot) is out of it.
    assert max(extent[0] / vp.width(), extent[1] / vp.height()) > 0.6
    foot = on_screen(window, window.rig.world_position("RightFoot"))
    assert not (0 <= foot[0] <= vp.width() and 0 <= foot[1] <= vp.height())


def test_home_gives_the_start_view(qtbot, window):
    activate(qtbot, window)
    vp = window.viewport  # the default preset: Blender's
    start_view = camera_state(vp)
    s = empty_spot(window)
    mouse_drag(qtbot, vp, s, QPointF(s.x() + 90, s.y() + 60), button=B.MiddleButton)
    mouse_drag(qtbot, vp, s, QPointF(s.x() + 30, s.y() + 20), button=B.MiddleButton, modifiers=M.ShiftModifier)
    window.document.select("left_leg")
    QTest.keyClick(vp.container, Qt.Key.Key_F)
    assert camera_state(vp) != start_view
    QTest.keyClick(vp.container, Qt.Key.Key_Home)
    az, el, dist, centre = camera_state(vp)
    assert (az, el) == start_view[:2]
    assert dist == pytest.approx(start_view[2], rel=1e-9)
    np.testing.assert_allclose(centre, start_view[3], atol=1e-6)
    for p in window.rig.world_positions():  # the whole rig in view
        x, y = on_screen(window, p)
        assert 0 <= x <= vp.width() and 0 <= y <= vp.height()


@pytest.mark.parametrize("preset", [None, "blender", "maya"])
def test_escape_ends_the_drag_for_good(qtbot, window, preset):
    use(window, preset)
    vp = window.viewport
    target = tuple(window.rig.chain("left_arm").target)
    start = screen(window, target)
    drag(vp, start, QPointF(start.x() + 80, start.y() + 40), release=False)
    assert tuple(window.rig.chain("left_arm").target) != target
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    assert tuple(window.rig.chain("left_arm").target) == target
    cam = camera_state(vp)
    # Still holding the button, the hand goes on moving, then lets go.
    for i in range(1, 13):
        move_with_buttons(vp, QPointF(start.x() + 80 - 12 * i, start.y() + 40 - 9 * i))
        QApplication.processEvents()
    QTest.mouseRelease(vp, B.LeftButton, M.NoModifier, QPointF(start.x() - 64, start.y() - 68).toPoint())
    qtbot.wait(100)
    wait_solved(qtbot, window)
    assert tuple(window.rig.chain("left_arm").target) == target
    assert camera_state(vp) == cam
    assert window.undo_stack.count() == 0
    # The next press works as always.
    drag(vp, start, QPointF(start.x() + 40, start.y() - 30))
    assert tuple(window.rig.chain("left_arm").target) != target and window.undo_stack.count() == 1
