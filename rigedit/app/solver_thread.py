"""The solver thread: solves the newest goals off the GUI thread and hands poses back.

The GUI posts goals (every chain's settings) into a one-item slot guarded by a lock and wakes
the worker with a queued signal. Goals the worker has not taken yet are replaced, never
queued: while a target is dragged only the latest mouse position matters, and a queue would
make the arm trail further behind the longer the drag goes on. The worker owns its own copy
of the rig (`rig.copy()`), so it never shares mutable state with the GUI, and solves from its
previous pose (the rig's warm start).

The worker runs in this Python process, so every solve holds the GIL against the GUI thread.
Two things keep the GUI drawing during a drag: the worker does not start a new solve until
the GUI thread has taken the last solution (a pose solved while the GUI is still busy with
the previous one would only be replaced unseen; the newest-goal slot loses nothing by
waiting), and the interpreter's switch interval is shortened so a solve gives up the GIL
every millisecond instead of every five.
"""
from __future__ import annotations

import atexit
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QThread, Qt, Signal, Slot

from rigedit import ChainSettings, Rig
from rigedit.core import rig_full_body
from rigedit.core.ik import registry

from .body import BodyState, apply_body

SWITCH_INTERVAL_S = 0.001  # Python's default, 5 ms, lets one solve hold the GIL for a whole 60 Hz frame third
HANDOFF_TIMEOUT_S = 0.25  # a GUI that never takes a solution (a blocked event loop) still gets the next one


@dataclass(frozen=True)
class Goals:
    generation: int  # which rig these are for (the document bumps it on File > Open)
    settings: dict[str, ChainSettings]
    plot_chain: str = ""  # the chain whose per-iteration FABRIK errors the GUI wants
    time: float | None = None  # animation time for the pose under the IK; None keeps it
    serial: int = 0  # the poster's count, handed back so it can tell when it has caught up
    body: BodyState | None = None  # where the body handle put the root; None keeps it
    full_body: bool | None = None  # the rig's full-body switch (issue 16); None keeps it
    # The pose layer (issue 25: FK rotations over the clip), an immutable value: the worker's
    # rig takes it when it is another object than the last it took. None keeps it.
    layer: object = None


@dataclass
class Solution:
    generation: int
    pose: object  # rigedit.core.skeleton.Pose
    reports: dict
    errors: dict[str, tuple[float, ...]]
    seconds: float  # time the solve took
    serial: int = 0
    solved: object = None  # rigedit.core.rig_pose.SolvedPose: the warm starts behind `pose`, for saving


@dataclass
class SolverStats:
    posted: int = 0
    dropped: int = 0  # replaced in the slot before the worker took them
    solved: int = 0
    solve_seconds: float = 0.0
    failures: list[str] = field(default_factory=list)


class SolverWorker(QObject):
    solved = Signal(object)  # Solution
    failed = Signal(str)
    _wake = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._goals: Goals | None = None
        self._new_rig: tuple[Rig, int] | None = None
        self._rig: Rig | None = None
        self._generation = -1
        self._body: BodyState | None = None  # the last body applied to self._rig
        self._layer = None  # the last pose layer applied to self._rig
        self._last: tuple[Goals, Solution] | None = None  # the last goals solved and their solution
        self.stats = SolverStats()
        self._busy_since: float | None = None  # perf_counter when the solve running began
        self._taken = threading.Event()  # the GUI thread has the last solution (set: none pending)
        self._taken.set()
        # Queued even though both ends live in this object: the worker lives in the solver
        # thread, so the slot runs there, never in the poster's thread.
        self._wake.connect(self._run, Qt.ConnectionType.QueuedConnection)

    # --- called from the GUI thread ------------------------------------------------------

    def post_rig(self, rig: Rig, generation: int) -> None:
        """Solve a new rig from now on (File > Open); takes ownership of `rig` (pass a copy)."""
        with self._lock:
            self._new_rig = (rig, generation)
            self._goals = None
        self._wake.emit()

    def post(self, goals: Goals) -> None:
        with self._lock:
            self.stats.posted += 1
            if self._goals is not None:
                self.stats.dropped += 1
            self._goals = goals
        self._wake.emit()

    def busy_since(self) -> float | None:
        """When the solve running now began (time.perf_counter), or None: the status bar
        says what a slow one is doing (solve_watch.py)."""
        with self._lock:
            return self._busy_since

    def stats_snapshot(self) -> SolverStats:
        with self._lock:
            s = self.stats
            return SolverStats(s.posted, s.dropped, s.solved, s.solve_seconds, list(s.failures))

    # --- the solver thread ---------------------------------------------------------------

    def taken(self) -> None:
        """The GUI thread has received the last solution: the next solve may start."""
        self._taken.set()

    @Slot()
    def _run(self) -> None:
        self._taken.wait(HANDOFF_TIMEOUT_S)
        with self._lock:
            goals, self._goals = self._goals, None
            new_rig, self._new_rig = self._new_rig, None
        if new_rig is not None:
            (self._rig, self._generation), self._body, self._layer, self._last = new_rig, None, None, None
        if goals is None or self._rig is None or goals.generation != self._generation:
            return
        start = time.perf_counter()
        with self._lock:
            self._busy_since = start
        try:
            solution = self._solve(goals)
        except Exception as e:  # a bad goal must not kill the thread; the GUI shows why
            with self._lock:
                self.stats.failures.append(str(e))
                self._busy_since = None
            self.failed.emit(f"{type(e).__name__}: {e}")
            return
        solution.seconds = time.perf_counter() - start
        with self._lock:
            self._busy_since = None
            self.stats.solved += 1
            self.stats.solve_seconds += solution.seconds
        self._taken.clear()
        self.solved.emit(solution)

    def _solve(self, goals: Goals) -> Solution:
        rig = self._rig
        if self._last is not None and _same_goals(self._last[0], goals):
            return self._repeat(goals)
        if goals.body is not None and goals.body is not self._body:
            apply_body(rig, goals.body)
            self._body = goals.body
        if goals.layer is not None and goals.layer is not self._layer:
            rig.pose_layer = goals.layer
            self._layer = goals.layer
        if goals.full_body is not None and goals.full_body != rig.full_body:
            rig.full_body = goals.full_body
        for name, settings in goals.settings.items():
            rig.chain(name).apply(settings)
        if goals.time is not None:
            rig.time = goals.time
        reports = rig.solve()
        errors = {}
        if goals.plot_chain in reports:
            curve = _error_curve(rig, goals.plot_chain, reports[goals.plot_chain])
            if curve is not None:
                errors[goals.plot_chain] = curve
        solution = Solution(goals.generation, rig.pose, reports, errors, 0.0, goals.serial, rig.solved_state())
        self._last = (goals, solution)
        return solution

    def _repeat(self, goals: Goals) -> Solution:
        """The goals just solved, posted again (a drag's release re-posts its last move): the
        last solution, figures and all. Solved again, the rig would report the passes of a
        solve that had nothing left to do ("0 body passes" after a full-body drag)."""
        last_goals, last = self._last
        errors = last.errors
        if goals.plot_chain != last_goals.plot_chain and goals.plot_chain in last.reports:
            curve = _error_curve(self._rig, goals.plot_chain, last.reports[goals.plot_chain])
            errors = {goals.plot_chain: curve} if curve is not None else {}
        self._last = (goals, last)
        return Solution(goals.generation, last.pose, last.reports, errors, 0.0, goals.serial, last.solved)


def _same_goals(a: Goals, b: Goals) -> bool:
    """Whether solving `b` after `a` has nothing to do: the same settings, time, full-body
    switch, body and pose layer (the same BodyState and PoseLayer objects: the document makes
    a new one per move)."""
    if (a.generation, a.time, a.full_body) != (b.generation, b.time, b.full_body) or a.body is not b.body \
            or a.layer is not b.layer:
        return False
    try:
        return a.settings == b.settings
    except ValueError:  # a field holding an array compares element-wise: call it changed
        return False


def _error_curve(rig: Rig, name: str, report) -> tuple[float, ...] | None:
    """The tip error after each FABRIK pass of the last solve, for the property dock's plot;
    under full body, the chain's own tip error after each whole-body pass (any solver: the
    body's passes move every chain)."""
    curve = rig_full_body.chain_curve(rig, name)
    if curve is not None:
        return curve
    if not registry.get(rig.chain(name).solver).iterations:
        return None
    return tuple(float(e) for e in getattr(report, "errors", ()))


_running: "weakref.WeakSet[SolverThread]" = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    """A script that never closes its window still exits cleanly: Qt aborts the process when
    a QThread object is destroyed while its thread runs."""
    for t in list(_running):
        t.stop()


class SolverThread(QObject):
    """Owns the QThread and its worker; `stop()` (called when the window closes) joins it."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        _running.add(self)
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
        self._thread = QThread()
        self._thread.setObjectName("rigedit-solver")
        self.worker = SolverWorker()
        # This object lives in the GUI thread, so the queued slot runs there: it tells the
        # worker the GUI has its solution.
        self.worker.solved.connect(self._taken)
        self.worker.moveToThread(self._thread)
        self._thread.finished.connect(self.worker.deleteLater)
        self._thread.start()

    @Slot(object)
    def _taken(self, _solution) -> None:
        self.worker.taken()

    def post_rig(self, rig: Rig, generation: int) -> None:
        self.worker.post_rig(rig, generation)

    def post(self, goals: Goals) -> None:
        self.worker.post(goals)

    def is_running(self) -> bool:
        return self._thread.isRunning()

    def stop(self) -> None:
        _running.discard(self)
        self.worker.taken()  # a worker waiting on a GUI that will never take its solution
        if self._thread.isRunning():
            self._thread.quit()
            self._thread.wait()
