"""A drag keeps the GUI drawing: mouse moves coalesce to one goal per event-loop turn, and the
solver thread waits for the GUI to take a pose before solving the next goals."""
from __future__ import annotations

import threading

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

import rigedit
from rigedit.app import solver_thread
from rigedit.app.solver_thread import SolverThread, SolverWorker

from .helpers import LEFT, move_with_buttons, screen, wait_solved
from .test_solver_thread import goals_for

ARM = "left_arm"


def _press_on_target(window) -> QPointF:
    start = screen(window, window.rig.chain(ARM).target)
    QTest.mouseMove(window.viewport, start.toPoint())
    QTest.mousePress(window.viewport, LEFT, Qt.KeyboardModifier.NoModifier, start.toPoint())
    assert window.viewport.drag.active is not None
    return start


def test_moves_delivered_together_post_one_goal_for_the_last_position(qtbot, window):
    vp = window.viewport
    start = _press_on_target(window)
    QApplication.processEvents()
    posted = window.posted_serial
    ends = [QPointF(start.x() + 7 * k, start.y() - 5 * k) for k in range(1, 9)]
    for p in ends:  # a busy GUI gets these in one go
        move_with_buttons(vp, p)
    QApplication.processEvents()
    assert window.posted_serial == posted + 1
    under = screen(window, window.rig.chain(ARM).target)
    assert abs(under.x() - ends[-1].x()) < 1.0 and abs(under.y() - ends[-1].y()) < 1.0
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, ends[-1].toPoint())
    wait_solved(qtbot, window)


def test_a_release_before_the_event_loop_turns_lands_on_the_last_move(qtbot, window):
    vp = window.viewport
    start = _press_on_target(window)
    end = QPointF(start.x() + 50, start.y() + 30)
    move_with_buttons(vp, end)
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, end.toPoint())
    under = screen(window, window.rig.chain(ARM).target)
    assert abs(under.x() - end.x()) < 1.0 and abs(under.y() - end.y()) < 1.0
    assert window.undo_stack.count() == 1
    wait_solved(qtbot, window)


def test_escape_drops_a_move_not_yet_applied(qtbot, window):
    vp = window.viewport
    before = np.asarray(window.rig.chain(ARM).target).copy()
    start = _press_on_target(window)
    move_with_buttons(vp, QPointF(start.x() + 60, start.y()))
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    QApplication.processEvents()
    np.testing.assert_array_equal(window.rig.chain(ARM).target, before)
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, QPointF(start.x() + 60, start.y()).toPoint())
    assert window.undo_stack.count() == 0
    wait_solved(qtbot, window)


def test_the_worker_waits_for_the_gui_to_take_a_pose_then_solves_the_newest_goals(qtbot, monkeypatch):
    monkeypatch.setattr(solver_thread, "HANDOFF_TIMEOUT_S", 30.0)  # only taken() may release it here
    rig = rigedit.Rig.default()
    worker = SolverWorker()  # not started: _run is called by hand
    got = []
    worker.solved.connect(got.append)
    worker.post_rig(rig.copy(), 0)
    worker.post(goals_for(rig, serial=1, left_arm=(0.3, 1.1, 0.2)))
    worker._run()
    assert [s.serial for s in got] == [1]
    worker.post(goals_for(rig, serial=2, left_arm=(0.3, 1.15, 0.2)))
    runner = threading.Thread(target=worker._run)
    runner.start()
    runner.join(0.3)
    assert runner.is_alive() and worker.stats_snapshot().solved == 1  # the GUI has not taken solution 1 yet
    worker.post(goals_for(rig, serial=3, left_arm=(0.3, 1.2, 0.2)))  # arrives while it waits
    worker.taken()
    runner.join(10)
    assert not runner.is_alive()
    # The posts also queued wake-ups for this thread's event loop; with solution 3 taken they
    # find the slot empty and return at once.
    worker.taken()
    qtbot.waitUntil(lambda: len(got) == 2, timeout=5000)  # emitted from another thread: queued here
    assert [s.serial for s in got] == [1, 3]
    stats = worker.stats_snapshot()
    assert (stats.posted, stats.dropped, stats.solved) == (3, 1, 2)


def test_the_gui_thread_tells_the_worker_it_has_the_pose(qtbot):
    rig = rigedit.Rig.default()
    st = SolverThread()
    try:
        st.post_rig(rig.copy(), 0)
        with qtbot.waitSignal(st.worker.solved, timeout=5000):
            st.post(goals_for(rig, left_arm=(0.3, 1.1, 0.3)))
        qtbot.waitUntil(st.worker._taken.is_set, timeout=5000)
    finally:
        st.stop()
    assert not st.is_running()


def test_a_move_waits_for_the_frame_of_the_move_before(qtbot, make_window, monkeypatch):
    """At most one move is applied per drawn frame; the newest position still lands."""
    from rigedit.app.viewport import view

    monkeypatch.setattr(view, "MAX_MOVE_WAIT_MS", 60_000)  # only frames may release a move here
    window = make_window()
    vp = window.viewport
    start = _press_on_target(window)
    applied_at = []  # the frame count when each move was applied (it posts goals)
    window.document.goals_changed.connect(lambda: applied_at.append(vp.frames))
    posted = window.posted_serial
    ends = [QPointF(start.x() + 10 * k, start.y() - 7 * k) for k in range(1, 7)]
    for p in ends:
        move_with_buttons(vp, p)
        QApplication.processEvents()
    qtbot.waitUntil(lambda: not vp.move_pending, timeout=5000)
    assert 1 <= window.posted_serial - posted == len(applied_at) <= len(ends)
    assert all(b > a for a, b in zip(applied_at, applied_at[1:]))  # a frame between any two
    under = screen(window, window.rig.chain(ARM).target)
    assert abs(under.x() - ends[-1].x()) < 1.0 and abs(under.y() - ends[-1].y()) < 1.0
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.NoModifier, ends[-1].toPoint())
    wait_solved(qtbot, window)
