"""What a slow solve is doing, for the status bar: numba compiling kernels, or just solving.

The first solve after a source change (or on a fresh install) compiles the solver kernels in
the solver thread, up to a minute; "spine: solving…" alone then reads as a hang. numba
broadcasts a "numba:compile" event around each real compile (never around a load from its
cache), so a listener here counts them: `compiled_since(t)` says whether one ran, or runs,
since time `t` (time.perf_counter), in whichever thread. A solve that compiled nothing is
only called slow (status.py), never said to compile.
"""
from __future__ import annotations

import threading
import time

from numba.core import event

SLOW_SOLVE_S = 1.0  # a solve running longer than this says what it is doing
COMPILING_NOTE = "compiling the solver kernels on first use, once"


class _CompileListener(event.Listener):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._last_end = float("-inf")

    def on_start(self, _event) -> None:
        with self._lock:
            self._active += 1

    def on_end(self, _event) -> None:
        with self._lock:
            self._active -= 1
            self._last_end = time.perf_counter()

    def compiled_since(self, t: float) -> bool:
        with self._lock:
            return self._active > 0 or self._last_end >= t


_listener = _CompileListener()
event.register("numba:compile", _listener)


def compiled_since(t: float) -> bool:
    """Whether numba compiled something since perf_counter time `t`, or is compiling now."""
    return _listener.compiled_since(t)


def slow_note(busy_since: float | None, now: float | None = None) -> str:
    """The status bar's note on the solve running since `busy_since` (None: none runs): ""
    under SLOW_SOLVE_S, else why it is slow when the app can tell (COMPILING_NOTE), else how
    long it has run."""
    if busy_since is None:
        return ""
    now = time.perf_counter() if now is None else now
    if now - busy_since <= SLOW_SOLVE_S:
        return ""
    if compiled_since(busy_since):
        return COMPILING_NOTE
    return f"{now - busy_since:.0f} s so far"
