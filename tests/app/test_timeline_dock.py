"""The timeline dock, driven with real mouse and key events on the plot's viewport."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

import rigedit
from rigedit.core.autochains import propose_chains
from rigedit.core.clip import Clip
from rigedit.core.curve import Key
from rigedit.core.transforms import quat_from_axis_angle, quat_mul

from .helpers import drag, move_with_buttons, screen, wait_solved

WALK = "/work/shared/data/cmu_12_01_walk.bvh"

LEG = "left_leg"
FOOT = "LeftFoot"
NO_MOD = Qt.KeyboardModifier.NoModifier
RIGHT = Qt.MouseButton.RightButton
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def panel(window):
    p = window.timeline_dock.widget()
    window.document.select(LEG)
    return p


def px(panel, t: float, v: float) -> QPointF:
    return panel.plot.to_widget(t, v)


def double_click(widget, pos: QPointF) -> None:
    """What the window system sends for a double-click: press, release, double-click, release.
    (QTest.mouseDClick sends press, double-click, release, which pyqtgraph reads as one click.)"""
    QTest.mouseClick(widget, LEFT, NO_MOD, pos.toPoint())
    ev = QMouseEvent(QEvent.Type.MouseButtonDblClick, pos, QPointF(widget.mapToGlobal(pos.toPoint())), LEFT, LEFT, NO_MOD)
    QApplication.sendEvent(widget, ev)
    QTest.mouseRelease(widget, LEFT, NO_MOD, pos.toPoint())


def plot_drag(qtbot, widget, start: QPointF, end: QPointF, steps: int = 10) -> None:
    """A mouse drag on the plot, paced: pyqtgraph drops mouse moves closer than its rate limit
    (10 ms), and a dropped first hover means the press never finds the key or playhead."""
    QTest.mouseMove(widget, start.toPoint())
    qtbot.wait(25)
    QTest.mousePress(widget, LEFT, NO_MOD, start.toPoint())
    for i in range(1, steps + 1):
        u = i / steps
        qtbot.wait(15)
        move_with_buttons(widget, QPointF(start.x() + (end.x() - start.x()) * u, start.y() + (end.y() - start.y()) * u))
    qtbot.wait(15)
    QTest.mouseRelease(widget, LEFT, NO_MOD, end.toPoint())


def weight_keys(panel, chain=LEG):
    return [(k.time, k.value) for k in panel.timeline.curve(chain).keys]


def swaying_clip(rig, seconds: float = 2.0, fps: float = 30.0) -> Clip:
    """The rest pose with the hips walking 0.4 m forward and the spine swaying."""
    frames = int(round(seconds * fps)) + 1
    rest = rig.skeleton.rest_pose()
    rot = np.tile(rest.rotations, (frames, 1, 1))
    trans = np.tile(rest.translations, (frames, 1, 1))
    s = np.linspace(0.0, 1.0, frames)
    trans[:, 0, 2] += 0.4 * s
    spine = rig.skeleton.index("Spine")
    rot[:, spine] = quat_mul(quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), 0.3 * np.sin(2 * np.pi * s)), rot[:, spine])
    return Clip(rot, trans, 1.0 / fps)


def expected_foot(window, time: float) -> np.ndarray:
    """The left foot at `time`, solved headless from a copy of the editor's rig and timeline."""
    rig = window.rig.copy()
    rig.timeline.apply(rig, time)
    rig.solve()
    return rig.world_position(FOOT)


def test_the_dock_holds_the_panel_and_shows_every_chain(window):
    panel = window.timeline_dock.widget()
    assert window.timeline_dock.objectName() == "timeline"
    assert type(panel).__name__ == "TimelinePanel"
    assert set(panel.plot.lane_of) == set(window.rig.chain_names)


def test_drag_a_key_in_time_and_value_snaps_to_frames_and_clamps(qtbot, window, panel):
    panel.scrub_to(1.0)
    panel.ease(True)
    (t0, _), (t1, _) = weight_keys(panel)
    window.undo_stack.clear()
    before = panel.timeline.track(LEG)

    vp = panel.plot.viewport()
    plot_drag(qtbot, vp, px(panel, t0, 0.0), px(panel, 0.52, 0.6))
    (m0, v0), (m1, v1) = weight_keys(panel)
    fps = panel.timeline.frame_rate
    assert abs(m0 - 0.52) <= 0.5 / fps + 0.01  # where the mouse let go, to a pixel or so ...
    assert m0 * fps == pytest.approx(round(m0 * fps), abs=1e-9)  # ... on a frame
    assert v0 == pytest.approx(0.6, abs=0.02)
    assert (m1, v1) == (t1, 1.0)
    assert window.undo_stack.count() == 1  # the whole drag is one step

    # Above the top of the band the value stays 1.
    plot_drag(qtbot, vp, px(panel, m0, v0), px(panel, 0.3, 1.2))
    assert weight_keys(panel)[0][1] == 1.0

    window.undo_stack.undo()
    window.undo_stack.undo()
    assert panel.timeline.track(LEG) == before
    window.undo_stack.redo()
    assert weight_keys(panel)[0] == (m0, v0)


def test_double_click_adds_a_key_and_delete_removes_the_selected_one(qtbot, window, panel):
    vp = panel.plot.viewport()
    double_click(vp, px(panel, 0.7, 0.4))
    ((t, v),) = weight_keys(panel)
    assert t == panel.timeline.snap(t) and abs(t - 0.7) < 0.05 and v == pytest.approx(0.4, abs=0.02)
    assert panel.selected_key == 0
    assert window.undo_stack.count() == 1
    # A chain whose weight is keyed follows the curve at the playhead.
    qtbot.waitUntil(lambda: window.rig.chain(LEG).weight == v)

    panel.plot.setFocus()
    QTest.keyClick(panel.plot, Qt.Key.Key_Delete)
    assert weight_keys(panel) == []
    assert window.undo_stack.count() == 2
    window.undo_stack.undo()
    assert weight_keys(panel) == [(t, v)]


def test_right_click_on_a_key_sets_its_interpolation(qtbot, window, panel):
    panel.add_key(0.5, 0.0)
    panel.add_key(1.0, 1.0)
    window.undo_stack.clear()
    QTest.mouseClick(panel.plot.viewport(), RIGHT, NO_MOD, px(panel, 0.5, 0.0).toPoint())
    menu = panel.menu
    qtbot.waitUntil(menu.isVisible)
    checked = [a.data() for a in menu.actions() if a.isCheckable() and a.isChecked()]
    assert checked == ["ease"]
    next(a for a in menu.actions() if a.data() == "constant").trigger()
    menu.close()
    assert panel.timeline.curve(LEG).key(0).interpolation == "constant"
    assert panel.timeline.curve(LEG).at(0.99) == 0.0  # held until the next key
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert panel.timeline.curve(LEG).key(0).interpolation == "ease"


def test_scrubbing_the_playhead_drives_weight_and_pose(qtbot, window, panel):
    window.document.set_clip(swaying_clip(window.rig))
    assert (panel.timeline.start, panel.timeline.end) == (0.0, 2.0)  # the range follows the clip
    panel.scrub_to(0.0)
    panel.add_key(0.0, 0.0)
    panel.scrub_to(1.0)
    panel.ease(True)
    # The foot's target moves forward with the hips, keyed at both ends.
    for t, target in ((0.0, (0.09, 0.12, 0.05)), (1.6, (0.09, 0.2, 0.3))):
        panel.scrub_to(t)
        window.document.set_chain_live(LEG, target=target)
        panel.key_target()
    wait_solved(qtbot, window)

    line = panel.plot.playhead
    for goal in (0.9, 0.5, 1.6):
        start = px(panel, line.value(), 0.5)
        plot_drag(qtbot, panel.plot.viewport(), start, px(panel, goal, 0.5))
        t = panel.time
        assert abs(t - goal) < 0.05 and t == panel.timeline.snap(t)
        assert line.value() == t and window.rig.time == t
        assert window.rig.chain(LEG).weight == panel.timeline.curve(LEG).at(t)
        np.testing.assert_array_equal(window.rig.chain(LEG).target, panel.timeline.curve(LEG, "target").at(t))
        wait_solved(qtbot, window)
        np.testing.assert_allclose(window.rig.world_position(FOOT), expected_foot(window, t), atol=1e-6)
        np.testing.assert_allclose(window.rig.world_position("Hips")[2], window.rig.clip.pose_at(t).translations[0, 2],
                                   atol=1e-9)
    assert window.undo_stack.count() == 4  # scrubbing is not an edit: only the add, the ease and two target keys


def test_space_plays_and_pauses_and_the_pose_moves(qtbot, window, panel):
    window.document.set_clip(swaying_clip(window.rig))
    panel.scrub_to(0.2)
    wait_solved(qtbot, window)
    hips = window.rig.world_position("Hips").copy()
    panel.plot.setFocus()
    QTest.keyClick(panel.plot, Qt.Key.Key_Space)
    assert panel.playback.running and panel.play_button.isChecked()
    qtbot.waitUntil(lambda: panel.time > 0.2 + 5 / 30, timeout=5000)
    QTest.keyClick(panel.plot, Qt.Key.Key_Space)
    assert not panel.playback.running
    stopped_at = panel.time
    assert window.rig.time == stopped_at
    wait_solved(qtbot, window)
    assert window.rig.world_position("Hips")[2] > hips[2] + 0.01  # the clip walked the hips on
    qtbot.wait(150)
    assert panel.time == stopped_at  # paused means paused


def test_playback_loops_over_the_range(qtbot, window, panel):
    panel.timeline.set_range(0.0, 0.2)
    panel.redraw()
    panel.scrub_to(0.1)
    seen = set()
    window.document.time_changed.connect(lambda t: seen.add(round(t * 30)))
    qtbot.mouseClick(panel.play_button, LEFT)
    qtbot.waitUntil(lambda: {0, 6} <= seen, timeout=8000)  # reached the end and came round to the start
    qtbot.mouseClick(panel.play_button, LEFT)
    assert not panel.playback.running
    assert seen <= set(range(0, 7))


def test_arrow_keys_step_frames_within_the_range(window, panel):
    panel.scrub_to(0.5)
    panel.plot.setFocus()
    QTest.keyClick(panel.plot, Qt.Key.Key_Right)
    assert panel.time == panel.timeline.time_of_frame(16)
    QTest.keyClick(panel.plot, Qt.Key.Key_Left)
    QTest.keyClick(panel.plot, Qt.Key.Key_Left)
    assert panel.time == panel.timeline.time_of_frame(14)
    panel.scrub_to(0.0)
    QTest.keyClick(panel.plot, Qt.Key.Key_Left)
    assert panel.time == 0.0
    assert "frame 0" in panel.readout.text() and "0.000 s" in panel.readout.text()


def test_ease_in_and_out_buttons_with_the_duration_box(qtbot, window, panel):
    panel.scrub_to(1.0)
    panel.duration.setValue(0.3)
    qtbot.mouseClick(panel.ease_in_button, LEFT)
    assert weight_keys(panel) == [(panel.timeline.time_of_frame(21), 0.0), (1.0, 1.0)]
    panel.scrub_to(1.5)
    panel.duration.setValue(0.1)
    qtbot.mouseClick(panel.ease_out_button, LEFT)
    assert weight_keys(panel)[2:] == [(1.5, 1.0), (panel.timeline.time_of_frame(48), 0.0)]
    assert [window.undo_stack.text(i) for i in range(window.undo_stack.count())] == ["Ease in (left_leg)", "Ease out (left_leg)"]
    assert window.rig.chain(LEG).weight == 1.0  # the playhead is on the 1.5 s key
    panel.scrub_to(1.55)
    assert 0.0 < window.rig.chain(LEG).weight < 1.0
    # Undoing both puts the chain's own weight back as it was before any key.
    window.undo_stack.undo()
    window.undo_stack.undo()
    assert weight_keys(panel) == [] and window.rig.chain(LEG).weight == 1.0


def test_auto_key_keys_a_dragged_target_in_one_undo_step(qtbot, window, panel):
    arm = "left_arm"
    window.document.select(arm)
    panel.scrub_to(0.5)
    qtbot.mouseClick(panel.auto_key, LEFT)
    assert panel.auto_key.isChecked()
    before = np.asarray(window.rig.chain(arm).target).copy()
    start = screen(window, before)
    drag(window.viewport, start, QPointF(start.x() + 40, start.y() - 60))
    moved = tuple(window.rig.chain(arm).target)
    assert np.linalg.norm(np.subtract(moved, before)) > 0.03
    assert panel.timeline.curve(arm, "target").keys == (Key(0.5, moved, "ease"),)
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert len(panel.timeline.curve(arm, "target")) == 0
    np.testing.assert_array_equal(window.rig.chain(arm).target, before)

    # With auto-key off, Key target does it by hand.
    qtbot.mouseClick(panel.auto_key, LEFT)
    window.undo_stack.redo()
    panel.scrub_to(1.0)
    qtbot.mouseClick(panel.key_target_button, LEFT)
    assert [k.time for k in panel.timeline.curve(arm, "target").keys] == [0.5, 1.0]

    # Auto-key at a keyed time updates that key rather than adding one.
    qtbot.mouseClick(panel.auto_key, LEFT)
    panel.scrub_to(0.5)
    np.testing.assert_array_equal(window.rig.chain(arm).target, moved)  # driven by the key
    steps = window.undo_stack.count()
    start = screen(window, moved)
    drag(window.viewport, start, QPointF(start.x() - 50, start.y() + 30))
    again = tuple(window.rig.chain(arm).target)
    assert np.linalg.norm(np.subtract(again, moved)) > 0.03
    keys = panel.timeline.curve(arm, "target").keys
    assert [k.time for k in keys] == [0.5, 1.0] and keys[0].value == again
    assert window.undo_stack.count() == steps + 1


def test_save_and_reopen_keep_the_timeline(qtbot, tmp_path, window, panel):
    panel.scrub_to(0.6)
    panel.ease(True)
    panel.scrub_to(1.4)
    panel.ease(False)
    panel.key_target()
    saved = panel.timeline.copy()
    path = tmp_path / "walk.json"
    assert window.save_preset(path)
    window.document.replace_rig(rigedit.Rig.default(), None)
    assert window.timeline_dock.widget().timeline.tracks == {}
    assert window.open_preset(path)
    panel = window.timeline_dock.widget()
    assert panel.timeline == saved and panel.timeline is window.rig.timeline
    window.document.select(LEG)
    assert len(panel.plot.keys.data) == 4 and len(panel.plot.target_marks.data) == 1
    panel.scrub_to(1.45)
    assert window.rig.chain(LEG).weight == saved.curve(LEG).at(panel.time) < 1.0


def test_an_imported_clip_sets_the_range_and_plays_under_the_ik(qtbot, make_window, monkeypatch):
    from rigedit.app import dialogs
    from rigedit.app.import_actions import install_import_actions
    from rigedit.io.bvh import read_bvh

    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text: pytest.fail(text))
    # Start from a rig as big as the walk's (see tests/app/test_import.py's walk_window).
    skeleton = read_bvh(WALK).skeleton
    rig = rigedit.Rig(skeleton)
    p = next(p for p in propose_chains(skeleton) if p.name == "left_leg")
    rig.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole)
    window = make_window(rig)
    importer = window.importer if hasattr(window, "importer") else install_import_actions(window)
    assert importer.import_file(WALK, ask=False)
    panel = window.timeline_dock.widget()
    clip = window.rig.clip
    assert panel.timeline.frame_rate == pytest.approx(clip.frame_rate)
    assert (panel.timeline.start, panel.timeline.end) == (0.0, pytest.approx(clip.duration))
    assert panel.timeline.last_frame == clip.n_frames - 1

    t = panel.timeline.time_of_frame(clip.n_frames // 2)
    panel.scrub_to(t)
    wait_solved(qtbot, window)
    root = window.rig.skeleton.names[0]
    np.testing.assert_allclose(window.rig.world_position(root), clip.pose_at(t).translations[0], atol=1e-9)
    qtbot.mouseClick(panel.play_button, LEFT)
    qtbot.waitUntil(lambda: panel.time > t + 0.1, timeout=8000)
    qtbot.mouseClick(panel.play_button, LEFT)
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position(root), clip.pose_at(panel.time).translations[0], atol=1e-9)


def test_a_gizmo_drag_does_not_redraw_the_plot_but_a_weight_edit_does(qtbot, window, panel, monkeypatch):
    # Redrawing the plot on every target move cost more per mouse move than the viewport.
    window.document.select("left_arm")  # the press would select it, which rightly redraws
    calls = []
    original = panel.plot.show_curves
    monkeypatch.setattr(panel.plot, "show_curves", lambda *a, **k: (calls.append(1), original(*a, **k)))
    hand = window.rig.chain("left_arm").target
    start = screen(window, hand)
    drag(window.viewport, start, QPointF(start.x() + 40, start.y() - 30))
    wait_solved(qtbot, window)
    qtbot.wait(50)
    assert not np.allclose(window.rig.chain("left_arm").target, hand)  # the drag did move it
    assert calls == []
    window.document.edit_chain("left_arm", "weight", {"weight": 0.25})
    qtbot.waitUntil(lambda: len(calls) > 0, timeout=2000)


def test_key_plants_keys_the_walk_legs_in_one_undo_step(qtbot, window):
    from rigedit.core.plant import PlantSettings, plant_tracks
    from rigedit.core.rig import BUNDLED_PRESETS
    from rigedit.core.timeline import Track

    window.open_preset(BUNDLED_PRESETS / "uneven_ground_walk.json")
    wait_solved(qtbot, window)
    panel = window.timeline_dock.widget()
    tl = window.rig.timeline
    for leg in ("left_leg", "right_leg"):  # the scene ships with its plant keys: start bare
        tl.set_track(leg, Track())
        window.rig.chain(leg).weight = 1.0
    panel.redraw()
    window.undo_stack.clear()
    panel.duration.setValue(0.2)
    expected = plant_tracks(window.rig, None, PlantSettings(ease_s=0.2))

    QTest.mouseClick(panel.plants_button, LEFT, NO_MOD, QPointF(8, panel.plants_button.height() / 2).toPoint())
    assert window.undo_stack.count() == 1  # both legs, one step
    assert {leg: tl.track(leg) for leg in expected} == expected
    # Mid-swing of the left foot (it lifts at 0.6 s and lands at 1.0 s) the leg plays the clip.
    panel.scrub_to(0.8)
    wait_solved(qtbot, window)
    assert window.rig.chain("left_leg").weight == 0.0
    assert window.rig.chain("right_leg").weight == 1.0

    window.undo_stack.undo()
    assert tl.tracks == {}
    assert window.rig.chain("left_leg").weight == 1.0  # the weight the leg had before the keys
    window.undo_stack.redo()
    assert {leg: tl.track(leg) for leg in expected} == expected

    # The arrow's menu keys the selected leg only; pressing again changes nothing.
    window.undo_stack.undo()
    window.document.select("right_leg")
    panel.plants_selected_action.trigger()
    assert set(tl.tracks) == {"right_leg"}
    assert not panel.key_plants(["right_leg"])
    assert window.undo_stack.count() == 1


def test_key_plants_without_a_clip_says_why(qtbot, window, panel):
    assert window.rig.clip is None
    assert not panel.plants_button.isEnabled()
    assert not panel.key_plants([LEG])
    assert "no clip" in window.statusBar().currentMessage()
    assert window.undo_stack.count() == 0


def test_unkeyed_chains_at_one_weight_share_one_flat_line(qtbot, window, panel):
    # Drawn over each other anyway; one item per chain made a 500-limb import take seconds.
    rig = window.rig
    names = rig.chain_names
    selected = window.document.selected
    others = [n for n in names if n != selected]
    window.document.edit_chain(others[0], "Set weight", {"weight": 0.5})
    panel.redraw()
    plot = panel.plot
    assert set(plot.lane_of) == set(names)
    assert plot.lane_of[selected] == selected  # the selected chain keeps its own, bold line
    assert plot.lane_of[others[0]] == ("flat", 0.5)
    assert {plot.lane_of[n] for n in others[1:]} == {("flat", 1.0)}
    assert len(plot._curves) == 3
    _, ys = plot._curves[("flat", 0.5)].getData()
    assert list(ys) == [0.5, 0.5]


def _two_bone_bvh(frame_time: str, frames: int = 12) -> str:
    rows = "\n".join(f"0 90 0 0 {i} 0 0 0 {2 * i}" for i in range(frames))
    return ("HIERARCHY\nROOT Hips\n{\n  OFFSET 0 90 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
            "  JOINT Spine\n  {\n    OFFSET 0 20 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
            "    End Site\n    {\n      OFFSET 0 20 0\n    }\n  }\n}\n"
            f"MOTION\nFrames: {frames}\nFrame Time: {frame_time}\n{rows}\n")


@pytest.mark.parametrize("frame_time, shown", [("0.033333", "30"), ("0.0416667", "24"), ("0.0333667", "29.97")])
def test_the_readout_gives_the_frame_rate_as_people_write_it(tmp_path, make_window, frame_time, shown):
    """A BVH's Frame Time of 0.033333 read '@ 30.0003 fps'."""
    path = tmp_path / "take.bvh"
    path.write_text(_two_bone_bvh(frame_time))
    w = make_window()
    assert w.importer.import_file(path, ask=False), w.importer.last_error
    assert f"@ {shown} fps)" in w.timeline_dock.widget().readout.text()
