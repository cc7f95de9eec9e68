"""The solver thread: newest goals win, poses come back, the thread stops cleanly."""
from __future__ import annotations

import dataclasses
import threading

import numpy as np
from PySide6.QtCore import QObject, Slot
import rigedit
from rigedit.app.solver_thread import Goals, SolverThread, SolverWorker


def goals_for(rig, generation=0, serial=0, **targets):
    settings = {n: rig.chain(n).settings() for n in rig.chain_names}
    for name, t in targets.items():
        settings[name] = dataclasses.replace(settings[name], target=tuple(t))
    return Goals(generation, settings, "", None, serial)


def test_goals_not_yet_taken_are_replaced_not_queued():
    rig = rigedit.Rig.default()
    worker = SolverWorker()  # not started: _run is called by hand, in this thread
    got = []
    worker.solved.connect(got.append)
    worker.post_rig(rig.copy(), 0)
    for k in range(5):
        worker.post(goals_for(rig, serial=k, left_arm=(0.3, 1.0 + 0.05 * k, 0.2)))
    worker._run()
    worker._run()  # nothing left to take
    assert [s.serial for s in got] == [4]
    stats = worker.stats_snapshot()
    assert (stats.posted, stats.dropped, stats.solved) == (5, 4, 1)


def test_a_solution_answers_the_goals_it_was_given():
    rig = rigedit.Rig.default()
    worker = SolverWorker()
    got = []
    worker.solved.connect(got.append)
    worker.post_rig(rig.copy(), 3)
    goal = (0.35, 1.25, 0.3)
    worker.post(goals_for(rig, generation=3, left_arm=goal))
    worker._run()
    (s,) = got
    assert s.generation == 3 and s.reports["left_arm"].reached
    check = rig.copy()
    check.pose = s.pose
    np.testing.assert_allclose(check.world_position("LeftHand"), goal, atol=1e-6)


def test_goals_for_another_rig_are_ignored():
    rig = rigedit.Rig.default()
    worker = SolverWorker()
    got = []
    worker.solved.connect(got.append)
    worker.post_rig(rig.copy(), 1)
    worker.post(goals_for(rig, generation=0))
    worker._run()
    assert got == []


def test_a_failing_solve_is_reported_and_the_worker_keeps_going():
    rig = rigedit.Rig.default()
    worker = SolverWorker()
    failed, got = [], []
    worker.failed.connect(failed.append)
    worker.solved.connect(got.append)
    worker.post_rig(rig.copy(), 0)
    bad = goals_for(rig)
    bad.settings["nope"] = bad.settings["left_arm"]
    worker.post(bad)
    worker._run()
    assert failed and "nope" in failed[0]
    worker.post(goals_for(rig))
    worker._run()
    assert len(got) == 1


class Receiver(QObject):
    """Lives in the GUI thread, so signals from the worker are queued to it."""

    def __init__(self):
        super().__init__()
        self.got = []

    @Slot(object)
    def take(self, solution):
        self.got.append((threading.current_thread() is threading.main_thread(), solution))


def test_the_thread_solves_off_the_gui_thread_and_stops(qtbot):
    rig = rigedit.Rig.default()
    st = SolverThread()
    receiver = Receiver()
    where = receiver.got
    st.worker.solved.connect(receiver.take)
    seen_in_worker = []
    original = st.worker._solve

    def spy(goals):
        seen_in_worker.append(threading.current_thread() is threading.main_thread())
        return original(goals)

    st.worker._solve = spy
    try:
        st.post_rig(rig.copy(), 0)
        st.post(goals_for(rig, left_arm=(0.3, 1.1, 0.3)))
        qtbot.waitUntil(lambda: len(where) == 1, timeout=5000)
    finally:
        st.stop()
    assert not st.is_running()
    assert seen_in_worker == [False]  # solved in the solver thread
    assert where[0][0] is True  # handed back to the GUI thread
