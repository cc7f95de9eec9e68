"""A solve that runs past a second says on the status bar what it is doing: compiling the
solver kernels (numba compiled something meanwhile) or just how long it has run. The solver
thread's solve is held on an event, so no assertion depends on how fast the machine is."""
from __future__ import annotations

import threading

import numba
import numpy as np
import pytest

from rigedit.app import solve_watch
from rigedit.app.solver_thread import SolverWorker

from .helpers import wait_solved
from .joints import ARM


@pytest.fixture
def held_solve(qtbot, window, monkeypatch):
    """The solver thread's next solves wait for `release` (after `before()` runs in that thread)."""
    wait_solved(qtbot, window)  # the window's first solve, unheld
    release = threading.Event()
    hooks = {"before": lambda: None}
    solve = SolverWorker._solve

    def held(worker, goals):
        hooks["before"]()
        release.wait(60)  # a safety net: the test sets it
        return solve(worker, goals)

    monkeypatch.setattr(SolverWorker, "_solve", held)
    yield release, hooks
    release.set()


def _readout(window) -> str:
    return window.status.chain.text()


def test_a_slow_solve_says_how_long_it_has_run_and_not_that_it_compiles(qtbot, window, held_solve):
    release, _ = held_solve
    window.document.select(ARM)
    window.document.edit_chain(ARM, "weight", {"weight": 0.5})
    qtbot.waitUntil(lambda: "s so far" in _readout(window), timeout=20_000)
    text = _readout(window)
    assert text.startswith(f"{ARM}: solving… (") and solve_watch.COMPILING_NOTE not in text
    release.set()
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: "solving" not in _readout(window), timeout=10_000)
    assert "weight 0.5" in _readout(window)


def test_a_solve_that_compiles_kernels_says_so(qtbot, window, held_solve):
    release, hooks = held_solve

    def compile_a_kernel() -> None:  # a real numba compile (never cached) in the solver thread
        def doubled_sum(a):
            return a.sum() * 2.0

        numba.njit(doubled_sum)(np.ones(3))

    hooks["before"] = compile_a_kernel
    window.document.select(ARM)
    window.document.edit_chain(ARM, "weight", {"weight": 0.5})
    qtbot.waitUntil(lambda: solve_watch.COMPILING_NOTE in _readout(window), timeout=30_000)
    assert _readout(window) == f"{ARM}: solving… ({solve_watch.COMPILING_NOTE})"
    release.set()
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: "solving" not in _readout(window), timeout=10_000)


def test_the_note_waits_for_a_second_and_is_empty_when_idle():
    assert solve_watch.slow_note(None) == ""
    assert solve_watch.slow_note(100.0, now=100.0 + solve_watch.SLOW_SOLVE_S / 2) == ""
