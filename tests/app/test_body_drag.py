"""Dragging the creature's body handle with the mouse: the body slides on the ground plane and
the legs step live (issue 8), one undo step per drag, Esc puts it back, saving keeps it."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QObject, QPointF, Qt, Slot
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from rigedit import Rig
from rigedit.core.rig import BUNDLED_PRESETS
from rigedit.core.transforms import quat_rotate

from .helpers import LEFT, drag, move_with_buttons, screen, wait_solved

SHIFT = Qt.KeyboardModifier.ShiftModifier

FOOT_MM = 1e-3  # a planted foot may not move more than this


class SolutionLog(QObject):
    """Every goal posted (the leg targets, by serial) and every pose handed back (by the
    serial of the goals it answers), so a foot's position can be held against its target."""

    def __init__(self, window) -> None:
        super().__init__()
        self.window = window
        self.rig = window.rig
        self.legs = list(self.rig.gait.legs)
        self.tips = [self.rig.skeleton.index(self.rig.chain(leg).joints[-1]) for leg in self.legs]
        self.goals: dict[int, np.ndarray] = {}
        self.poses: list[tuple[int, np.ndarray]] = []
        # Connected after the window's own slots: the window has counted the post (and
        # adopted the pose) by the time these run.
        window.document.goals_changed.connect(self.goal)
        window.solver.worker.solved.connect(self.solved, Qt.ConnectionType.QueuedConnection)

    @Slot()
    def goal(self) -> None:
        self.goals[self.window.posted_serial] = np.array([self.rig.chain(leg).target for leg in self.legs])

    @Slot(object)
    def solved(self, s) -> None:
        pos = self.rig.skeleton.fk(s.pose)[0]
        self.poses.append((s.serial, pos[self.tips].copy()))


    def targets(self) -> np.ndarray:
        """(posts, legs, 3) in the order posted."""
        return np.array([self.goals[k] for k in sorted(self.goals)])


@pytest.fixture
def creature(make_window):
    return make_window(Rig.load(BUNDLED_PRESETS / "creature_gait.json"))


def rest_offsets(rig) -> np.ndarray:
    """Each foot's rest spot relative to the body, from the skeleton at rest (no gait code)."""
    pos = rig.skeleton.fk(rig.skeleton.rest_pose())[0]
    body = pos[rig.skeleton.index("Body")]
    return np.array([pos[rig.skeleton.index(rig.chain(leg).joints[-1])] - body for leg in rig.gait.legs])


def settle(qtbot, window, timeout=10_000) -> None:
    """Until the legs have stopped stepping and the pose answers the last goals."""
    qtbot.waitUntil(lambda: not window.viewport.drag.gait.running, timeout=timeout)
    wait_solved(qtbot, window)


def paced_drag(qtbot, vp, a: QPointF, b: QPointF, steps: int = 50, wait_ms: int = 70) -> None:
    """Press at a, move to b at a walking pace (at least wait_ms between moves: a slow
    machine only makes it slower), the button still held. A body dragged faster than its
    legs can step leaves feet behind out of reach; that is not what this test is about."""
    QTest.mouseMove(vp, a.toPoint())
    QTest.mousePress(vp, LEFT, Qt.KeyboardModifier.NoModifier, a.toPoint())
    for i in range(1, steps + 1):
        u = i / steps
        move_with_buttons(vp, QPointF(a.x() + (b.x() - a.x()) * u, a.y() + (b.y() - a.y()) * u))
        qtbot.wait(wait_ms)
        applied(qtbot, vp)


def applied(qtbot, vp) -> None:
    """Until the viewport has applied the last move (it may wait for a frame to be drawn)."""
    qtbot.waitUntil(lambda: not getattr(vp, "move_pending", False), timeout=5000)


def look_at_creature(window) -> None:
    """Frame the creature from above and in front, so the ground plane is well in view."""
    vp = window.viewport
    body = window.document.body_position()
    vp.frame_points(np.array([body - 0.9, body + 0.9]), azimuth=-60.0, elevation=35.0)
    vp.sync()


def test_the_body_handle_sits_on_the_root_and_is_picked_there(creature):
    vp = creature.viewport
    look_at_creature(creature)
    body = creature.document.body_position()
    np.testing.assert_array_equal(body, creature.rig.world_position("Body"))
    from rigedit.app.viewport import Handle

    assert vp.handle_at(screen(creature, body)) == Handle("", "body")
    # A leg's target sphere is still its own handle, not the body's.
    foot = creature.rig.chain("leg_L1").target
    assert vp.handle_at(screen(creature, foot)) == Handle("leg_L1", "target")


def test_dragging_the_body_walks_the_legs_and_one_undo_puts_it_back(qtbot, creature):
    rig, doc, vp = creature.rig, creature.document, creature.viewport
    look_at_creature(creature)
    log = SolutionLog(creature)
    start_body = doc.body_position()
    start_state = doc.body_state()
    offsets = rest_offsets(rig)
    start_feet = np.array([rig.chain(leg).target for leg in rig.gait.legs])
    ground_y = start_feet[:, 1].copy()

    # Drag the body about half a metre along the ground, in small moves as a hand would.
    # Whole pixels: the release comes at a whole pixel, and must not move the body again.
    a = QPointF(screen(creature, start_body).toPoint())
    b = QPointF(screen(creature, start_body + np.array([0.35, 0.0, 0.4])).toPoint())
    paced_drag(qtbot, vp, a, b)
    mid = doc.body_position()
    _grab(vp).save(str(_shot("body_drag_mid.png")))
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, b.toPoint())
    settle(qtbot, creature)
    _grab(vp).save(str(_shot("body_drag_after.png")))

    # The body is where the mouse let go of it, at its own height, and the solved root is there.
    end_body = doc.body_position()
    np.testing.assert_array_equal(end_body, mid)  # the release added nothing
    assert end_body[1] == start_body[1]
    p = screen(creature, end_body) - screen(creature, start_body)
    assert abs(p.x() - (b.x() - a.x())) < 0.5 and abs(p.y() - (b.y() - a.y())) < 0.5  # under the cursor
    step_length = rig.gait.step_length
    assert np.linalg.norm(end_body - start_body) > 2 * step_length
    np.testing.assert_allclose(rig.world_position("Body"), end_body, atol=1e-12)

    targets = log.targets()
    # Every foot stepped, and after settling stands near its new rest spot.
    moved = np.linalg.norm(targets[-1] - start_feet, axis=1)
    assert np.all(moved > step_length), moved
    homes = end_body + quat_rotate(rig.animated_pose().rotations[rig.skeleton.index("Body")], offsets)
    homes[:, 1] = ground_y
    assert np.all(np.linalg.norm(targets[-1] - homes, axis=1) <= 0.01 + 1e-9)
    # Never every leg of one side in the air at once (a foot in the air is above the ground).
    air = targets[:, :, 1] > ground_y + 1e-9
    assert air.any()  # the check below is not vacuous: feet did lift
    for side in ("L", "R"):
        cols = [i for i, leg in enumerate(rig.gait.legs) if leg.startswith(f"leg_{side}")]
        assert len(cols) == 4 and not np.any(np.all(air[:, cols], axis=1))
    # A planted foot stays put: each pose puts every foot within 1 mm of the target it was
    # solved for, and a target only moves when its foot steps.
    # How many poses come back during the drag is the machine's speed (the solver takes the
    # newest goals and drops the rest); a few are enough for the check below to mean something.
    assert len(log.poses) >= 5
    for serial, tips in log.poses:
        if serial in log.goals:
            assert np.all(np.linalg.norm(tips - log.goals[serial], axis=1) <= FOOT_MM)
    on_ground = ~air[1:] & ~air[:-1]
    changed = np.any(np.diff(targets, axis=0) != 0.0, axis=2)
    assert not np.any(on_ground & changed)  # no foot slides along the ground
    assert on_ground.sum() > 10 * len(rig.gait.legs)

    # One undo step for the whole drag puts the body back exactly, the feet around it.
    assert creature.undo_stack.count() == 1
    creature.undo_stack.undo()
    np.testing.assert_array_equal(doc.body_position(), start_body)
    np.testing.assert_array_equal(doc.body_state().offset, start_state.offset)
    np.testing.assert_array_equal(doc.body_state().path, start_state.path)
    wait_solved(qtbot, creature)
    np.testing.assert_allclose(rig.world_position("Body"), start_body, atol=1e-12)
    feet = np.array([rig.chain(leg).target for leg in rig.gait.legs])
    turn = rig.animated_pose().rotations[rig.skeleton.index("Body")]  # the walk's heading at this time
    np.testing.assert_allclose(feet[:, [0, 2]], (start_body + quat_rotate(turn, offsets))[:, [0, 2]], atol=1e-9)
    creature.undo_stack.redo()
    np.testing.assert_array_equal(doc.body_position(), end_body)


def test_escape_during_a_body_drag_puts_it_back(qtbot, creature):
    doc, vp = creature.document, creature.viewport
    look_at_creature(creature)
    start = doc.body_position()
    state = doc.body_state()
    a = screen(creature, start)
    b = QPointF(a.x() + 120, a.y() + 40)
    drag(vp, a, b, steps=15, release=False)
    applied(qtbot, vp)
    assert np.linalg.norm(doc.body_position() - start) > 0.1
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    np.testing.assert_array_equal(doc.body_position(), start)
    np.testing.assert_array_equal(doc.body_state().path, state.path)
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, b.toPoint())
    np.testing.assert_array_equal(doc.body_position(), start)
    assert creature.undo_stack.count() == 0
    settle(qtbot, creature)
    np.testing.assert_allclose(creature.rig.world_position("Body"), start, atol=1e-12)


def test_shift_drags_the_body_up_and_down(qtbot, creature):
    doc, vp = creature.document, creature.viewport
    look_at_creature(creature)
    start = doc.body_position()
    a = screen(creature, start)
    # Shift held through the press (the window system delivers the modifiers with the press,
    # and the editor reads them as the keyboard's state).
    QTest.mouseMove(vp, a.toPoint())
    QTest.mousePress(vp, LEFT, SHIFT, a.toPoint())
    for i in range(1, 9):
        move_with_buttons(vp, QPointF(a.x(), a.y() - 5 * i))
        QApplication.processEvents()
        applied(qtbot, vp)
    QTest.mouseRelease(vp, LEFT, SHIFT, QPointF(a.x(), a.y() - 40).toPoint())
    end = doc.body_position()
    assert end[1] > start[1] + 0.02
    assert end[0] == start[0] and end[2] == start[2]
    settle(qtbot, creature)
    np.testing.assert_allclose(creature.rig.world_position("Body"), end, atol=1e-12)


def test_saving_after_a_body_drag_keeps_the_body_where_it_was_dragged(qtbot, creature, tmp_path):
    doc, vp = creature.document, creature.viewport
    look_at_creature(creature)
    start = doc.body_position()
    a = screen(creature, start)
    drag(vp, a, QPointF(a.x() - 80, a.y() + 30), steps=10)
    moved = doc.body_position()
    assert np.linalg.norm(moved - start) > 0.05
    settle(qtbot, creature)
    path = tmp_path / "moved.json"
    assert creature.save_preset(path)
    again = Rig.load(path)
    root = again.skeleton.index("Body")
    np.testing.assert_allclose(again.animated_pose().translations[root], moved, atol=1e-12)
    # The whole walk moved with it: the clip's path is shifted by the drag, frame by frame.
    shift = moved - start
    original = Rig.load(BUNDLED_PRESETS / "creature_gait.json").clip.translations[:, root]
    np.testing.assert_allclose(again.clip.translations[:, root], original + shift, atol=1e-12)


def test_a_rig_without_a_gait_has_a_body_handle_that_moves_the_root(qtbot, window):
    doc, vp = window.document, window.viewport
    start = doc.body_position()
    np.testing.assert_array_equal(start, window.rig.world_position("Hips"))
    feet = window.rig.chain("left_leg").target
    a = screen(window, start)
    drag(vp, a, QPointF(a.x() + 30, a.y()), steps=6)
    end = doc.body_position()
    assert end[1] == start[1] and np.linalg.norm(end - start) > 0.02
    assert not vp.drag.gait.running  # nothing to walk
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position("Hips"), end, atol=1e-12)
    np.testing.assert_array_equal(window.rig.chain("left_leg").target, feet)  # IK feet stay where they were
    window.undo_stack.undo()
    np.testing.assert_array_equal(doc.body_position(), start)


def _shot(name: str):
    """Screenshots land beside the other test artefacts for a person to look at."""
    from pathlib import Path

    out = Path(__file__).resolve().parents[2] / "build" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out / name


def _grab(vp):
    grab = getattr(vp, "grab_image", None)  # a GL window draws into its back buffer for a grab
    return grab() if grab is not None else vp.grabFramebuffer()


def test_a_body_drag_moves_the_solvers_rig_without_handing_it_a_new_copy(qtbot, creature, monkeypatch):
    # A fresh rig copy per mouse move (and the timeline refitting to it) cost more than the
    # solve; the goals carry the body instead, and the solved root must still follow it.
    doc, vp = creature.document, creature.viewport
    look_at_creature(creature)
    copies = []
    post_rig = creature.solver.post_rig
    monkeypatch.setattr(creature.solver, "post_rig", lambda rig, gen: (copies.append(gen), post_rig(rig, gen)))
    start = doc.body_position()
    a = screen(creature, start)
    drag(vp, a, QPointF(a.x() + 60, a.y() + 20), steps=8)
    end = doc.body_position()
    assert np.linalg.norm(end - start) > 0.05
    settle(qtbot, creature)
    assert copies == []
    np.testing.assert_allclose(creature.rig.world_position("Body"), end, atol=1e-12)
    creature.undo_stack.undo()
    settle(qtbot, creature)
    assert copies == []
    np.testing.assert_allclose(creature.rig.world_position("Body"), start, atol=1e-12)
