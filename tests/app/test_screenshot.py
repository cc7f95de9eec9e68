"""The viewport really draws the rig: colours in a grab, and pixels where the projection says."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint

from rigedit.app import capture, launch
from rigedit.app.viewport import palette


def _grab_viewport(window):
    frames = window.viewport.frames
    window.viewport.update()
    capture.wait_until(lambda: window.viewport.frames > frames, 5)
    img = capture.grab_window(window)
    return img, capture.viewport_rect(window)


def test_the_viewport_region_of_a_grab_has_many_colours(qtbot, window):
    img, rect = _grab_viewport(window)
    assert capture.distinct_colours(img, rect) >= capture.MIN_COLOURS


def test_an_empty_region_of_one_colour_counts_as_blank(qtbot, window):
    """The measure itself: the empty right part of the menu bar is not 'drawn'."""
    from PySide6.QtCore import QRect

    img = window.grab().toImage()
    bar = window.menuBar()
    dpr = window.devicePixelRatioF()
    x = int((bar.width() - 60) * dpr)
    assert capture.distinct_colours(img, QRect(x, int(4 * dpr), 40, 8)) < 8


def _colour_at(window, img, xyz):
    p = window.viewport.world_to_screen(xyz)
    assert 0 <= p.x() < window.viewport.width() and 0 <= p.y() < window.viewport.height(), "point not in view"
    return _pixel(window, img, p)


def _pixel(window, img, p):
    top_left = window.viewport.mapTo(window, QPoint(0, 0))
    dpr = window.devicePixelRatioF()
    arr = capture.image_array(img)
    x, y = int((top_left.x() + p.x()) * dpr), int((top_left.y() + p.y()) * dpr)
    return arr[y, x].astype(float) / 255.0


def test_a_target_sphere_is_drawn_where_world_to_screen_puts_it(qtbot, window):
    window.document.select("spine")  # left_arm unselected: its sphere in its (dimmed) chain colour
    img, _ = _grab_viewport(window)
    target = np.asarray(window.rig.chain("left_arm").target)
    c = _colour_at(window, img, target)
    bg = np.array(palette.BACKGROUND[:3])
    assert np.linalg.norm(c - bg) > 0.25  # not the background
    # The viewport's top-left corner is sky: background.
    from PySide6.QtCore import QPointF

    sky = _pixel(window, img, QPointF(6, 6))
    np.testing.assert_allclose(sky, bg, atol=0.04)  # a 16-bit test display rounds colours


def test_an_out_of_reach_target_turns_red(qtbot, window):
    from .helpers import wait_solved

    window.document.edit_chain("left_arm", "t", {"target": (1.2, 1.45, 0.0)})
    wait_solved(qtbot, window)
    window.viewport.reset_camera()  # frames the far target too
    window.viewport.sync()
    img, _ = _grab_viewport(window)
    c = _colour_at(window, img, window.rig.chain("left_arm").target)
    assert c[0] > 0.6 and c[1] < 0.35 and c[2] < 0.35, c
    # The arm is straight toward it, all but the few degrees of bend the default 99.9 %
    # reach clamp keeps (so the elbow's bend plane stays defined).
    sh, el, ha = (window.rig.world_position(j) for j in ("LeftArm", "LeftForeArm", "LeftHand"))
    d1, d2 = el - sh, ha - el
    assert d1 @ d2 / (np.linalg.norm(d1) * np.linalg.norm(d2)) > 0.99
    reach = window.rig.chain("left_arm").target - sh
    assert (ha - sh) @ reach / (np.linalg.norm(ha - sh) * np.linalg.norm(reach)) > 0.9999


@pytest.mark.parametrize("mode", ["--screenshot", "--demo"])
def test_launch_writes_a_non_blank_png(qapp, tmp_path, capsys, mode):
    out = tmp_path / "shot.png"
    assert launch.main([mode, str(out), "--size", "900x600"]) == 0
    assert out.exists()
    assert str(out.resolve()) in capsys.readouterr().out
    from PySide6.QtGui import QImage

    img = QImage(str(out))
    assert (img.width(), img.height()) == (900, 600)
    assert capture.distinct_colours(img) >= capture.MIN_COLOURS


def test_the_demo_moves_the_left_hand(qapp, tmp_path, monkeypatch):
    seen = {}
    real_grab = capture.grab

    def spy(window, out):
        seen["target"] = np.asarray(window.rig.chain("left_arm").target).copy()
        seen["hand"] = window.rig.world_position("LeftHand")
        seen["undo"] = window.undo_stack.count()
        return real_grab(window, out)

    monkeypatch.setattr(capture, "grab", spy)
    import rigedit

    start = np.asarray(rigedit.Rig.default().chain("left_arm").target)
    assert launch.main(["--demo", str(tmp_path / "demo.png")]) == 0
    assert np.linalg.norm(seen["target"] - start) > 0.2
    np.testing.assert_allclose(seen["hand"], seen["target"], atol=1e-6)
    assert seen["undo"] == 1  # a real drag: one undo step


def test_a_bad_file_on_the_command_line_fails_a_screenshot_with_a_message(qapp, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert launch.main(["--screenshot", str(tmp_path / "x.png"), str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.json" in err


def test_closing_the_window_deletes_its_gl_window_and_late_signals_do_nothing(qtbot, make_window):
    import shiboken6

    w = make_window()
    vp = w.viewport
    w.document.mark_saved()
    w.close()
    assert not shiboken6.isValid(vp) and not shiboken6.isValid(vp.container)
    # A solution or an edit arriving after the close reaches no deleted object.
    w.document.pose_changed.emit()
    w.document.chain_changed.emit("left_arm")
    capture.pump(0.1)


def test_a_rig_standing_on_the_ground_is_drawn_in_front_of_it(qtbot, make_window):
    # The view has a depth buffer: the uneven ground, drawn after the bones, must not cover a
    # leg that stands in front of it (without one, the last item drawn wins every pixel).
    from rigedit import Rig
    from rigedit.core.rig import BUNDLED_PRESETS

    w = make_window(Rig.load(BUNDLED_PRESETS / "uneven_ground_walk.json"))
    vp, rig = w.viewport, w.rig
    vp.frame_points(rig.world_positions(), azimuth=-62.0, elevation=12.0)
    knee_side = 0.25 * rig.world_position("LeftUpLeg") + 0.75 * rig.world_position("LeftLeg")
    near_corner = QPoint(20, vp.height() - 20)  # ground there, no rig
    with_ground, _ = _grab_viewport(w)
    vp.ground.item.setVisible(False)
    without_ground, _ = _grab_viewport(w)
    assert not np.allclose(_pixel(w, with_ground, near_corner), _pixel(w, without_ground, near_corner), atol=0.04)
    leg = _colour_at(w, with_ground, knee_side)
    np.testing.assert_allclose(leg, _colour_at(w, without_ground, knee_side), atol=0.04)


def test_a_screenshot_waits_for_the_status_line_to_report_the_solve(qtbot, window):
    # The chain readout trails solves on a 66 ms timer; a screenshot taken the moment the pose
    # is drawn used to say "solving…" under the solved pose.
    window.status._shown = (None, None)
    window.status.chain.setText("spine: solving…")
    assert capture.wait_for_pose(window)
    assert "solving" not in window.status.chain.text()
    assert "reached" in window.status.chain.text()
