"""Full body in the viewport and the status bar (issue 25): the spine's goal, left where it
was while a hand pulls the body over, is not drawn as a failing (red) ball; after the drag is
let go the readout keeps the figures of the last solve instead of a re-solve's "0 body passes".
A hand dragged with real mouse events, the drawn frame grabbed."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

import rigedit
from rigedit.app import capture, status
from rigedit.app.viewport import palette

from .helpers import LEFT, drag, screen, wait_solved


def _lean_to_the_hand(qtbot, window, release=True) -> QPointF:
    """Drag the left hand's target 1.25 arm lengths forward and down from the shoulder: the
    body leans after it. Ends on a whole pixel, where the release lands too (a release
    elsewhere is one more move). Returns that end."""
    rig = window.rig
    start = np.asarray(rig.chain("left_arm").target)
    a, b, c = (rig.world_position(j) for j in ("LeftArm", "LeftForeArm", "LeftHand"))
    arm = np.linalg.norm(b - a) + np.linalg.norm(c - b)
    f = window.viewport.camera_forward()
    on_plane = a - np.dot(a - start, f) * f  # the drag moves the target on the plane facing the camera
    u = np.array([0.3, -0.4, 1.0])
    u = u - np.dot(u, f) * f
    goal = on_plane + u / np.linalg.norm(u) * np.sqrt((1.25 * arm) ** 2 - np.linalg.norm(a - on_plane) ** 2)
    end = QPointF(screen(window, goal).toPoint())
    drag(window.viewport, screen(window, start), end, steps=16, release=release)
    wait_solved(qtbot, window)
    return end


def _full_body_window(make_window):
    rig = rigedit.Rig.default()
    rig.full_body = True
    window = make_window(rig)
    window.document.select("left_arm")
    return window


def _drawn_colour(window, chain: str):
    """The colour drawn at the middle of the chain's target ball, in the grabbed frame."""
    assert capture.wait_for_pose(window)
    img = capture.grab_window(window)
    at = window.viewport.mapTo(window, screen(window, window.rig.chain(chain).target).toPoint())
    dpr = window.devicePixelRatioF()
    return img.pixelColor(int(at.x() * dpr), int(at.y() * dpr))


def _red(c) -> bool:
    """OUT_OF_REACH's red, shaded or lifted toward white (selected): green and blue alike
    and well below red. The spine's orange has green at 0.62 of red and blue at 0.15."""
    return c.red() > 100 and c.red() - c.green() > 0.35 * c.red() and abs(c.green() - c.blue()) < 0.1 * c.red()


def test_the_spines_goal_left_behind_is_not_drawn_as_failing(qtbot, make_window):
    window = _full_body_window(make_window)
    _lean_to_the_hand(qtbot, window)
    rig = window.rig
    report = window.document.reports["spine"]
    assert not report.reached and status.gave_way(rig, "spine", report)  # left behind, outpulled
    spine = _drawn_colour(window, "spine")
    assert spine.red() > 100 and not _red(spine), spine.getRgb()

    # A goal out of reach with nothing pulling harder is still drawn red: full body off,
    # the hand's target a metre further on.
    far = np.asarray(rig.chain("left_arm").target) + np.array([0.0, 0.0, 1.0])
    window.document.edit_chain("left_arm", "far", {"target": far})
    window.document.set_full_body(False)
    wait_solved(qtbot, window)
    assert not window.document.reports["left_arm"].reached
    hand = _drawn_colour(window, "left_arm")
    assert _red(hand), hand.getRgb()


def test_the_readout_keeps_the_last_solves_figures_after_release(qtbot, make_window):
    window = _full_body_window(make_window)
    end = _lean_to_the_hand(qtbot, window, release=False)
    passes = window.document.reports["left_arm"].iterations
    assert passes > 0
    capture.wait_for_pose(window)
    held = window.status.chain.text()
    assert f"· {passes} body passes ·" in held
    QTest.mouseRelease(window.viewport, LEFT, Qt.KeyboardModifier.NoModifier, end.toPoint())
    assert window.undo_stack.count() == 1
    wait_solved(qtbot, window)
    capture.wait_for_pose(window)
    assert window.document.reports["left_arm"].iterations == passes
    assert window.status.chain.text() == held
    # Another chain selected: its figures from that same solve, and its error curve.
    window.document.select("spine")
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: window.status.chain.text().startswith("spine:"))
    assert f"· {window.document.reports['spine'].iterations} body passes ·" in window.status.chain.text()
    assert window.document.reports["spine"].iterations == passes
    assert len(window.document.errors.get("spine", ())) > 0
