"""View > Onion Skin and View > Motion Trails on a walking humanoid: the ghosts and the
trails are the rig's solved pose at their frames (a copy of the rig solved there), they go
with their menu entries, follow key edits, and stay put during a handle drag."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from rigedit.app.viewport import onion_skin
from rigedit.core.motion_frames import frame_span

from tests.motion_clip import humanoid_with_clip

from .helpers import drag, screen, wait_solved

TOL = 1e-9  # metres


def solved_at(rig, frame: int) -> np.ndarray:
    """The reference: a copy of the rig solved afresh at the frame's time."""
    c = rig.copy()
    c.timeline.apply(c, frame * frame_span(rig)[2])
    c.reset()
    c.solve()
    return c.world_positions()


def settle(qtbot, w) -> None:
    qtbot.waitUntil(w.motion.idle, timeout=60_000)


@pytest.fixture
def walker(make_window):
    rig = humanoid_with_clip()
    rig.chain("right_arm").weight = 1.0  # a chain no key drives, for the drag
    return make_window(rig)


def ghost_lines(item) -> np.ndarray:
    return np.asarray(item.pos, dtype=np.float64)


def test_onion_skin_ghosts_are_the_rig_solved_at_their_frames(qtbot, walker):
    w = walker
    w.document.set_time(1.0)
    wait_solved(qtbot, w)
    w.action_onion_skin.trigger()
    assert w.action_onion_skin.isChecked()
    settle(qtbot, w)
    s = w.motion.settings
    ghosts = w.motion.onion.ghosts
    now = 30
    assert [(g.offset, g.frame) for g in ghosts] == [(-k, now - k * s.step) for k in range(s.before, 0, -1)] + \
        [(k, now + k * s.step) for k in range(1, s.after + 1)]
    items = w.motion.onion.items
    assert len(items) == s.before + s.after and all(i in w.viewport.items and i.visible() for i in items)
    parents = w.rig.skeleton.parents
    tails = np.nonzero(parents >= 0)[0]
    for g, item in zip(ghosts, items):
        ref = solved_at(w.rig, g.frame)
        np.testing.assert_allclose(g.positions, ref, atol=TOL, rtol=0)
        # What is drawn is those positions, bone by bone (float32 on the GPU).
        np.testing.assert_allclose(ghost_lines(item)[1::2], ref[tails], atol=1e-5)
    # Ghosts before and after differ in tint; each fades away from the current frame.
    colours = [onion_skin.ghost_colour(g.offset, 2) for g in ghosts]
    assert colours[0][:3] == colours[1][:3] != colours[2][:3] == colours[3][:3]
    assert colours[1][3] > colours[0][3] and colours[2][3] > colours[3][3]

    w.action_onion_skin.trigger()  # off: the items go
    assert not w.action_onion_skin.isChecked()
    assert w.motion.onion.ghosts == [] and not any(i in w.viewport.items for i in items)


def test_settings_change_the_ghost_count_and_spacing(qtbot, walker):
    from rigedit.app.onion_dialog import show_onion_settings

    w = walker
    w.document.set_time(1.5)
    w.action_onion_skin.trigger()
    dialog = show_onion_settings(w)
    dialog.before.setValue(3)
    dialog.after.setValue(1)
    dialog.step.setValue(2)
    settle(qtbot, w)
    assert [(g.offset, g.frame) for g in w.motion.onion.ghosts] == [(-3, 39), (-2, 41), (-1, 43), (1, 47)]
    assert len(w.motion.onion.items) == 4
    for g in w.motion.onion.ghosts:
        np.testing.assert_allclose(g.positions, solved_at(w.rig, g.frame), atol=TOL, rtol=0)
    dialog.close()


def test_motion_trails_follow_every_chain_tip_and_the_keys(qtbot, walker):
    w = walker
    rig = w.rig
    w.document.set_time(1.0)
    w.action_motion_trails.trigger()
    settle(qtbot, w)
    trails = w.motion.trail.trails
    tips = [rig.skeleton.index(rig.chain(n).joints[-1]) for n in rig.chain_names]
    assert [t.joint for t in trails] == tips
    frames = trails[0].frames
    assert list(frames) == list(range(0, 91))  # +-2 s around frame 30, within the clip's 0..90
    refs = {f: solved_at(rig, f) for f in frames[::7]}
    for t in trails:
        for k, f in enumerate(frames):
            if f in refs:
                np.testing.assert_allclose(t.points[k], refs[f][t.joint], atol=TOL, rtol=0)
    assert w.motion.trail.lines.visible() and w.motion.trail.ticks.visible() and w.motion.trail.now.visible()
    np.testing.assert_allclose(w.motion.trail.now.pos[0], trails[0].points[30], atol=1e-5)

    # A new goal keyed for the left hand at 1 s: its trail bends there.
    hand = rig.skeleton.index("LeftHand")
    before = next(t for t in trails if t.joint == hand).points.copy()
    w.document.select("left_arm")
    goal = np.asarray(rig.chain("left_arm").target) + (0.0, 0.25, 0.1)
    w.document.set_chain_live("left_arm", target=tuple(goal))
    assert w.timeline_dock.panel.key_target()
    settle(qtbot, w)
    after = next(t for t in w.motion.trail.trails if t.joint == hand).points
    assert np.linalg.norm(after[30] - before[30]) > 0.05
    np.testing.assert_allclose(after[30], solved_at(rig, 30)[hand], atol=TOL, rtol=0)
    np.testing.assert_allclose(after[30], goal, atol=1e-6)  # the keyed goal, reached
    for f in (12, 45):
        np.testing.assert_allclose(after[f], solved_at(rig, f)[hand], atol=TOL, rtol=0)

    w.action_motion_trails.trigger()  # off: nothing drawn
    assert w.motion.trail.trails == []
    assert not (w.motion.trail.lines.visible() or w.motion.trail.ticks.visible() or w.motion.trail.now.visible())


def test_a_drag_keeps_the_ghosts_until_it_is_let_go(qtbot, walker):
    w = walker
    rig, vp = w.rig, w.viewport
    w.document.set_time(1.0)
    wait_solved(qtbot, w)
    w.action_onion_skin.trigger()
    w.action_motion_trails.trigger()
    settle(qtbot, w)
    shown = [g.positions.copy() for g in w.motion.onion.ghosts]
    jobs = w.motion.thread.worker.jobs_run
    w.document.select("right_arm")
    start = screen(w, rig.chain("right_arm").target)
    end = QPointF(start.x() + 50, start.y() - 70)
    drag(vp, start, end, release=False)
    qtbot.wait(300)  # time enough for a job, had one been posted
    assert vp.drag.active is not None
    assert w.motion.thread.worker.jobs_run == jobs
    for g, pos in zip(w.motion.onion.ghosts, shown):
        np.testing.assert_array_equal(g.positions, pos)
    drag_end = end.toPoint()
    from PySide6.QtTest import QTest
    from PySide6.QtCore import Qt

    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, drag_end)
    settle(qtbot, w)
    assert w.motion.thread.worker.jobs_run > jobs
    hand = rig.skeleton.index("RightHand")
    for g, pos in zip(w.motion.onion.ghosts, shown):
        assert np.linalg.norm(g.positions[hand] - pos[hand]) > 0.01  # the new goal moved the hand
        np.testing.assert_allclose(g.positions, solved_at(rig, g.frame), atol=TOL, rtol=0)


def test_ghosts_and_trails_are_in_the_picture(qtbot, walker, tmp_path):
    from rigedit.app import capture
    from rigedit.app.viewport import palette

    from .test_screenshot import _grab_viewport, _pixel

    w = walker
    rig, vp = w.rig, w.viewport
    w.document.set_time(1.0)
    wait_solved(qtbot, w)
    vp.look_at(rig.world_position("Hips"), distance=3.2)
    vp.view_from("right")
    bg = np.array(palette.BACKGROUND[:3])
    head = rig.skeleton.index("HeadTop_End")
    hand = rig.skeleton.index("LeftHand")

    w.action_onion_skin.trigger()
    w.action_motion_trails.trigger()
    settle(qtbot, w)
    img, _ = _grab_viewport(w)
    img.save(str(tmp_path / "onion_and_trails.png"))
    ghosts = {g.offset: g for g in w.motion.onion.ghosts}
    early, late = (_pixel(w, img, vp.world_to_screen(ghosts[k].positions[head])) for k in (-2, 2))
    assert np.linalg.norm(early - bg) > 0.08 and early[0] > early[2]  # warm: before
    assert np.linalg.norm(late - bg) > 0.08 and late[2] > late[0]  # cool: after
    trail = next(t for t in w.motion.trail.trails if t.joint == hand)
    spots = [trail.points[f] for f in (10, 50, 75)]
    drawn = [_pixel(w, img, vp.world_to_screen(p)) for p in spots]
    assert all(np.linalg.norm(c - bg) > 0.08 for c in drawn)

    w.action_onion_skin.trigger()
    w.action_motion_trails.trigger()
    img, _ = _grab_viewport(w)
    gone = [_pixel(w, img, vp.world_to_screen(ghosts[k].positions[head])) for k in (-2, 2)]
    gone += [_pixel(w, img, vp.world_to_screen(p)) for p in spots]
    assert all(np.linalg.norm(c - bg) < 0.05 for c in gone)
    capture.pump(0.05)


def test_another_rig_gets_its_own_ghosts(qtbot, walker):
    from rigedit.io.preset import bundled_presets

    w = walker
    w.document.set_time(1.0)
    w.action_onion_skin.trigger()
    settle(qtbot, w)
    tentacle = next(p for p in bundled_presets() if p.stem == "tentacle")
    assert w.open_preset(tentacle)
    assert w.motion.onion.ghosts == []  # the walker's went with it
    w.document.set_time(1.0)
    settle(qtbot, w)
    ghosts = w.motion.onion.ghosts
    assert len(ghosts) == 4 and all(g.positions.shape == (len(w.rig.skeleton), 3) for g in ghosts)
    for g in ghosts:
        np.testing.assert_allclose(g.positions, solved_at(w.rig, g.frame), atol=TOL, rtol=0)


def test_a_selected_joints_trail_replaces_the_chain_tips(qtbot, walker):
    w = walker
    rig = w.rig
    w.document.set_time(1.0)
    w.action_motion_trails.trigger()
    settle(qtbot, w)
    w.viewport.select_joint("Head")  # what a click on the head's bone does
    settle(qtbot, w)
    head = rig.skeleton.index("Head")
    trails = w.motion.trail.trails
    assert [t.joint for t in trails] == [head]
    for k, f in enumerate(trails[0].frames):
        if f % 15 == 0:
            np.testing.assert_allclose(trails[0].points[k], solved_at(rig, f)[head], atol=TOL, rtol=0)
    w.viewport.select_joint("LeftHand", add=True)
    settle(qtbot, w)
    assert sorted(t.joint for t in w.motion.trail.trails) == sorted([head, rig.skeleton.index("LeftHand")])
