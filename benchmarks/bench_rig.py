"""Rig.solve() per frame on the bundled rigs: `.venv/bin/python benchmarks/bench_rig.py`.

Three cases per rig, each over the same frames:
  still     targets stay put once reached (the editor redrawing an idle rig)
  drag one  each frame one chain's target moves (round robin), as when a gizmo is dragged
  drag all  every chain's target moves each frame, each on its own small loop

A moving target follows a 5 cm loop, a full turn every 120 frames, around a point 4 cm from
the chain's tip toward its root (limbs rest near full stretch; this keeps the loop in
reach), so every moved chain solves warm-started from its last solution. Printed: the median microseconds per frame, the
part of it spent inside the IK solvers (the compiled frame's one call, or on the Python path the compiled limb and
FABRIK calls; timed through thin wrappers, in a
second run of the same frames so the wrappers' own cost stays out of the frame times),
the budget (300 us humanoid, 500 us the biggest bundled rig), and the share of chain solves
that ended short of the target. Numbers are indicative: the machine has 2 cores and other
work runs on them; run it two or three times. The "cpu" column (median process CPU time per
frame) shows what the wall clock would be on an idle machine when the two disagree.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rigedit.core.ik import frame_kernel  # noqa: E402
from rigedit.core.rig import BUNDLED_PRESETS  # noqa: E402
from rigedit.io.preset import load_preset  # noqa: E402
from drag_loop import DragLoop  # noqa: E402 (beside this script)

BUDGET_US = {"humanoid": 300.0}
BIGGEST_BUDGET_US = 500.0
WARMUP = 20

_solver_ns = [0]


def _timed(fn):
    def run(*args, **kwargs):
        t0 = time.perf_counter_ns()
        try:
            return fn(*args, **kwargs)
        finally:
            _solver_ns[0] += time.perf_counter_ns() - t0

    return run


# The solver call, where Rig.solve looks it up: the compiled frame (rig_frame.py calls
# ik/frame_kernel.solve_frame, every chain of every frame in one call).
_SOLVERS = {"solve_frame": frame_kernel}
_PLAIN = {name: getattr(module, name) for name, module in _SOLVERS.items()}
_TIMED = {name: _timed(fn) for name, fn in _PLAIN.items()}


def _wrap_solvers(on: bool) -> None:
    for name, fn in (_TIMED if on else _PLAIN).items():
        setattr(_SOLVERS[name], name, fn)


def bench(path: Path, frames: int, case: str) -> tuple[float, float, float, float]:
    """(median us/frame, median cpu us/frame, median us/frame inside the solvers, share of
    moved chains short of their target). The frame times come from a run without the
    timing wrappers (they cost a microsecond or so a call); the solvers' share from a
    second, wrapped run of the same frames."""
    _wrap_solvers(False)
    total, cpu, _, short = _run(path, frames, case)
    _wrap_solvers(True)
    try:
        _, _, inside, _ = _run(path, frames, case)
    finally:
        _wrap_solvers(False)
    return total, cpu, inside, short


def _run(path: Path, frames: int, case: str) -> tuple[float, float, float, float]:
    rig = load_preset(path)
    loop = DragLoop(rig)
    names = loop.names
    total, cpu, inside, misses, solves = [], [], [], 0, 0
    for f in range(frames + WARMUP):
        if case == "drag all":
            moving = names
        elif case == "drag one":
            moving = [names[f % len(names)]]
        else:
            moving = []
        loop.move(f, moving)
        _solver_ns[0] = 0
        c0 = time.process_time_ns()
        t0 = time.perf_counter_ns()
        reports = rig.solve()
        t1 = time.perf_counter_ns()
        c1 = time.process_time_ns()
        if f >= WARMUP:
            total.append((t1 - t0) / 1000.0)
            cpu.append((c1 - c0) / 1000.0)
            inside.append(_solver_ns[0] / 1000.0)
            misses += sum(not reports[n].reached for n in moving)
            solves += len(moving)
    short = misses / solves if solves else 0.0
    return statistics.median(total), statistics.median(cpu), statistics.median(inside), short


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=600)
    args = ap.parse_args()
    paths = sorted(BUNDLED_PRESETS.glob("*.json"))
    rigs = {p.stem: load_preset(p) for p in paths}
    biggest = max(rigs, key=lambda n: len(rigs[n].skeleton))
    print(f"{'rig':<9} {'joints':>6} {'chains':>6}  {'case':<8} {'median us/frame':>15} {'cpu':>6} {'in solvers':>10} {'target':>6} {'short':>6}")
    for p in paths:
        rig = rigs[p.stem]
        budget = BUDGET_US.get(p.stem, BIGGEST_BUDGET_US if p.stem == biggest else None)
        for case in ("still", "drag one", "drag all"):
            med, cpu, solver, short = bench(p, args.frames, case)
            target = f"{budget:.0f}" if budget else "-"
            print(
                f"{p.stem:<9} {len(rig.skeleton):>6} {len(rig.chain_names):>6}  {case:<8} {med:>15.1f} {cpu:>6.0f} "
                f"{solver:>10.1f} {target:>6} {short:>6.0%}"
            )


if __name__ == "__main__":
    main()
