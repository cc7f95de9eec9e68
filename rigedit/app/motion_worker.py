"""The motion thread: solves the rig at other frames (onion skin ghosts, motion trails) off
the GUI thread, as the solver thread solves the current one.

The GUI posts a job (a copy of the rig it owns from then on, and the frames wanted) into a
one-item slot; a newer job replaces one not started. The worker hands back every joint's
world positions at those frames (core/motion_frames.py, the bake's solve) with the job's
key, so the GUI can tell a result for inputs that have changed since and drop it. The thread
starts with the first job: an editor with both overlays off runs no extra thread.
"""
from __future__ import annotations

import atexit
import threading
import weakref
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, QThread, Qt, Signal, Slot

from rigedit.core.motion_frames import frame_positions


@dataclass(frozen=True, eq=False)
class MotionJob:
    key: object  # what the frames depend on besides the time (the GUI's signature)
    rig: object  # a copy of the document's rig: the worker's alone
    frames: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class MotionResult:
    key: object
    frames: tuple[int, ...]
    positions: np.ndarray  # (len(frames), joints, 3) world positions


class MotionWorker(QObject):
    done = Signal(object)  # MotionResult
    failed = Signal(str)
    _wake = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._job: MotionJob | None = None
        self.jobs_run = 0
        self._wake.connect(self._run, Qt.ConnectionType.QueuedConnection)  # runs in the worker's thread

    def post(self, job: MotionJob) -> None:
        with self._lock:
            self._job = job
        self._wake.emit()

    @Slot()
    def _run(self) -> None:
        with self._lock:
            job, self._job = self._job, None
        if job is None:
            return
        try:
            positions = frame_positions(job.rig, job.frames)
        except Exception as e:  # a rig the bake refuses must not kill the thread; the GUI says why
            self.failed.emit(f"{type(e).__name__}: {e}")
            return
        self.jobs_run += 1
        self.done.emit(MotionResult(job.key, job.frames, positions))


_running: "weakref.WeakSet[MotionThread]" = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    """Qt aborts the process when a QThread object goes while its thread runs."""
    for t in list(_running):
        t.stop()


class MotionThread(QObject):
    """Owns the QThread and its worker; `stop()` (the window closing) joins it."""

    done = Signal(object)  # MotionResult, in the GUI thread
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self.worker: MotionWorker | None = None

    def post(self, job: MotionJob) -> None:
        if self._thread is None:
            self._start()
        self.worker.post(job)

    def _start(self) -> None:
        _running.add(self)
        self._thread = QThread()
        self._thread.setObjectName("rigedit-motion")
        self.worker = MotionWorker()
        # This object lives in the GUI thread: the queued signals reach it there.
        self.worker.done.connect(self.done)
        self.worker.failed.connect(self.failed)
        self.worker.moveToThread(self._thread)
        self._thread.finished.connect(self.worker.deleteLater)
        self._thread.start()

    def is_running(self) -> bool:
        return self._thread is not None and self._thread.isRunning()

    def stop(self) -> None:
        _running.discard(self)
        if self._thread is not None and self._thread.isRunning():
            self._thread.quit()
            self._thread.wait()
