"""Rig.solve() per frame on the bundled rigs: `.venv/bin/python benchmarks/bench_rig.py`.

Two cases per rig. "drag": every chain's target moves along its own small circle (5 cm
radius, a full turn every 120 frames), as when targets are dragged or keyed, so every
chain solves from its last solution each frame. "still": the targets stay put once
reached, the editor's idle redraw. Prints the median microseconds per frame against the
budget (300 us humanoid, 500 us the biggest bundled rig) on this machine; the numbers are
indicative, as other work shares the cores.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rigedit.core.rig import BUNDLED_PRESETS  # noqa: E402
from rigedit.io.preset import load_preset  # noqa: E402

BUDGET_US = {"humanoid": 300.0}
BIGGEST_BUDGET_US = 500.0
RADIUS_M = 0.05
PERIOD_FRAMES = 120


def bench(path: Path, frames: int, moving: bool) -> tuple[float, float]:
    rig = load_preset(path)
    home = {name: rig.chain(name).target.copy() for name in rig.chain_names}
    phase = {name: 2.0 * math.pi * k / max(1, len(home)) for k, name in enumerate(home)}
    times = []
    misses = 0
    for f in range(frames + 20):
        if moving:
            a = 2.0 * math.pi * f / PERIOD_FRAMES
            for name, t in home.items():
                p = phase[name] + a
                rig.chain(name).target = t + RADIUS_M * np.array([math.cos(p), 0.5 * math.sin(2 * p), math.sin(p)])
        t0 = time.perf_counter_ns()
        reports = rig.solve()
        t1 = time.perf_counter_ns()
        if f >= 20:
            times.append((t1 - t0) / 1000.0)
            misses += sum(not r.reached for r in reports.values())
    return statistics.median(times), misses / (frames * max(1, len(home)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=500)
    args = ap.parse_args()
    paths = sorted(BUNDLED_PRESETS.glob("*.json"))
    sizes = {p.stem: len(load_preset(p).skeleton) for p in paths}
    biggest = max(sizes, key=sizes.get)
    print(f"{'rig':<10} {'joints':>6} {'chains':>6} {'case':<6} {'median us/frame':>16} {'target us':>10} {'unreached':>10}")
    for p in paths:
        budget = BUDGET_US.get(p.stem, BIGGEST_BUDGET_US if p.stem == biggest else None)
        n_chains = len(load_preset(p).chain_names)
        for moving in (True, False):
            med, miss = bench(p, args.frames, moving)
            target = f"{budget:.0f}" if budget else "-"
            case = "drag" if moving else "still"
            print(f"{p.stem:<10} {sizes[p.stem]:>6} {n_chains:>6} {case:<6} {med:>16.1f} {target:>10} {miss:>9.1%}")


if __name__ == "__main__":
    main()
