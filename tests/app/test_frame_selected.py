"""View > Frame Selected (F) on a real clip, as a technical animator uses it: the selected chain
(its joints and target ball) with room around it, a clicked joint's bone in its surroundings,
the whole figure when nothing is selected. Real key presses and clicks on the viewport."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from rigedit.app.viewport import camera

from .helpers import screen, wait_solved
from .test_navigation import activate

KICK = Path("/work/shared/data/dataset-1_kick_normal_001.bvh")
LEFT = Qt.MouseButton.LeftButton
NO_MODS = Qt.KeyboardModifier.NoModifier


@pytest.fixture
def kick(make_window):
    if not KICK.exists():
        pytest.skip(f"{KICK} is not here")
    w = make_window()
    assert w.importer.import_file(KICK, ask=False), w.importer.last_error
    return w


def press_f(qtbot, window) -> None:
    activate(qtbot, window)
    wait_solved(qtbot, window, timeout=120_000)
    QTest.keyClick(window.viewport, Qt.Key.Key_F)


def seen_height(vp) -> float:
    """How much of the world the view spans from top to bottom at the point it looks at."""
    tan_v = math.tan(math.radians(vp.opts["fov"]) / 2) * vp.height() / vp.width()
    return 2.0 * vp.opts["distance"] * tan_v


def on_screen_with_room(window, points) -> None:
    vp = window.viewport
    pad = 0.05 * min(vp.width(), vp.height())
    for p in points:
        s = screen(window, p)
        assert pad <= s.x() <= vp.width() - pad and pad <= s.y() <= vp.height() - pad, (p, s)


def figure_size(window) -> float:
    return float(np.ptp(window.rig.world_positions(), axis=0).max())


def test_f_on_the_spine_chain_frames_it_with_the_torso_around_it(qtbot, kick):
    """The import selects the spine chain; F used to put the camera half a metre from it, among
    the arms in front of the chest."""
    rig, vp = kick.rig, kick.viewport
    assert kick.document.selected == "spine" and not kick.document.selected_joints
    press_f(qtbot, kick)
    ch = rig.chain("spine")
    ball = rig.shown_target("spine") + np.array([[-1.0], [1.0]]) * vp.gizmos.radius
    pts = np.array([rig.world_position(j) for j in ch.joints] + list(ball))
    on_screen_with_room(kick, pts)
    # The distance against the selection's extent: the view spans the chain, or a third of the
    # figure when the chain is shorter than that, with room to spare (Blender leaves 40 %),
    # and not much more.
    extent = max(float(np.ptp(pts, axis=0).max()), figure_size(kick) / 3)
    assert 1.2 * extent <= seen_height(vp) <= 2.5 * extent
    eye = camera.camera_position(vp.matrices()[0])
    assert np.linalg.norm(rig.world_positions() - eye, axis=1).min() > 0.25 * figure_size(kick)


def test_f_on_a_leg_frames_the_leg_not_its_pole(qtbot, kick):
    rig, vp = kick.rig, kick.viewport
    kick.document.select("left_leg")
    press_f(qtbot, kick)
    ch = rig.chain("left_leg")
    pts = np.array([rig.world_position(j) for j in ch.joints] + [rig.shown_target("left_leg")])
    on_screen_with_room(kick, pts)
    extent = float(np.ptp(pts, axis=0).max())
    assert 1.2 * extent <= seen_height(vp) <= 2.5 * extent
    middle = screen(kick, (pts.min(axis=0) + pts.max(axis=0)) / 2)
    assert abs(middle.x() - vp.width() / 2) < 0.1 * vp.width() and abs(middle.y() - vp.height() / 2) < 0.1 * vp.height()


def test_f_on_a_clicked_joint_frames_its_bone_with_room_around(qtbot, kick):
    rig, vp = kick.rig, kick.viewport
    sk = rig.skeleton
    wait_solved(qtbot, kick, timeout=120_000)
    # Click the middle of the left forearm bone (LowerArm_L -> Hand_L): LowerArm_L is selected.
    a, b = rig.world_position("LowerArm_L"), rig.world_position("Hand_L")
    p = screen(kick, (a + b) / 2).toPoint()
    QTest.mouseClick(vp, LEFT, NO_MODS, p)
    qtbot.waitUntil(lambda: kick.document.selected_joints == ("LowerArm_L",))
    press_f(qtbot, kick)
    pts = np.array([a, b])  # the bone: the joint and its child
    on_screen_with_room(kick, pts)
    extent = max(float(np.ptp(pts, axis=0).max()), figure_size(kick) / 6)
    assert 1.2 * extent <= seen_height(vp) <= 2.5 * extent
    assert [sk.names[c] for c in range(len(sk.parents)) if sk.parents[c] == sk.index("LowerArm_L")] == ["Hand_L"]


def test_f_with_nothing_selected_frames_the_whole_figure(qtbot, kick):
    vp = kick.viewport
    QTest.mouseClick(vp, LEFT, NO_MODS, QPointF(10, 10).toPoint())  # empty space: no joint
    kick.document.select("")
    press_f(qtbot, kick)
    on_screen_with_room(kick, kick.rig.world_positions())
    assert seen_height(vp) <= 3.0 * figure_size(kick)


def test_a_frames_the_whole_figure_from_where_the_camera_looks(qtbot, kick):
    """Maya's A (View > Frame All): everything in view, the camera turned no further; F cannot
    get there while the dock shows a chain, and Home turns the camera back to its start view."""
    vp = kick.viewport
    press_f(qtbot, kick)  # in close on the spine
    kick.view_actions["left"].trigger()
    angles = (vp.opts["azimuth"], vp.opts["elevation"])
    QTest.keyClick(vp, Qt.Key.Key_A)
    assert (vp.opts["azimuth"], vp.opts["elevation"]) == angles
    on_screen_with_room(kick, kick.rig.world_positions())
    assert seen_height(vp) <= 3.0 * figure_size(kick)
