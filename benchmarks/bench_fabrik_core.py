"""The FABRIK core's speed: `.venv/bin/python benchmarks/bench_fabrik_core.py [--label NAME]`.

Only the public API is used, so the same script runs on an older tree for a before/after
table (copy it there and run it with that tree first on sys.path).

Rows (tolerance 1 mm, at most 10 passes, a 10-joint chain of 9 x 0.1 m bones):
  fabrik cold          the straight bind pose and a random reachable target, per call
  fabrik limited       the same chain with hinges (-10..60 deg about X) and 35-degree cones
                       on alternate joints, cold from straight, per call
  fabrik_batch cold    10,000 such cold chains in one call, per chain
  Rig.solve drag all   every chain's target moving each frame (bench_rig.py's "drag all"),
                       humanoid and creature, per frame
Medians of wall time and of CPU time (the thread's for single calls and rig frames, the
process's, all threads summed, for a batch): on a machine busy with other work the wall
clock waits for the CPU, and the CPU column is what an idle machine would show (a batch's
wall time there is its CPU time over the cores it runs on).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rigedit  # noqa: E402
from rigedit.core.ik import ChainLimits, ConeLimit, HingeLimit, fabrik, fabrik_batch  # noqa: E402
from drag_loop import DragLoop  # noqa: E402 (beside this script)

N_JOINTS = 10
BONE_M = 0.1
TOL_M = 1e-3
BATCH = 10_000
PRESETS = Path(rigedit.__file__).resolve().parent.parent / "resources" / "presets"


def straight_chain():
    pts = np.zeros((N_JOINTS, 3))
    pts[:, 1] = np.arange(N_JOINTS) * BONE_M
    return pts


def random_targets(rng, count, reach):
    d = rng.normal(size=(count, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    return d * (reach * rng.uniform(0.0, 1.0, count))[:, None]


def per_call(targets, **kw):
    pts = straight_chain()
    for t in targets[:50]:  # compile / warm caches
        fabrik(pts, t, tolerance=TOL_M, **kw)
    times, cpu, hits = [], [], 0
    for t in targets:
        c0 = time.thread_time_ns()
        t0 = time.perf_counter_ns()
        r = fabrik(pts, t, tolerance=TOL_M, **kw)
        times.append((time.perf_counter_ns() - t0) / 1000.0)
        cpu.append((time.thread_time_ns() - c0) / 1000.0)
        hits += r.reached
    return statistics.median(times), statistics.median(cpu), hits / len(targets)


def batch_cold(rng, repeats):
    reach = BONE_M * (N_JOINTS - 1)
    pts = np.broadcast_to(straight_chain(), (BATCH, N_JOINTS, 3)).copy()
    fabrik_batch(pts[:10], random_targets(rng, 10, reach), tolerance=TOL_M)
    times, cpu = [], []
    for _ in range(repeats):
        tgt = random_targets(rng, BATCH, reach)
        c0 = time.process_time_ns()
        t0 = time.perf_counter_ns()
        r = fabrik_batch(pts, tgt, tolerance=TOL_M)
        times.append((time.perf_counter_ns() - t0) / 1000.0 / BATCH)
        cpu.append((time.process_time_ns() - c0) / 1000.0 / BATCH)
    return statistics.median(times), statistics.median(cpu), float(r.reached.mean())


def rig_drag_all(name, frames):
    """bench_rig.py's "drag all": each chain's target on a 5 cm loop around a point 4 cm in
    from its tip, a full turn every 120 frames; us per Rig.solve, share of solves short."""
    rig = rigedit.Rig.load(PRESETS / f"{name}.json")
    loop = DragLoop(rig)
    names = loop.names
    times, cpu, misses = [], [], 0
    warmup = 20
    for f in range(frames + warmup):
        loop.move(f)
        c0 = time.thread_time_ns()
        t0 = time.perf_counter_ns()
        reports = rig.solve()
        dt = (time.perf_counter_ns() - t0) / 1000.0
        dc = (time.thread_time_ns() - c0) / 1000.0
        if f >= warmup:
            times.append(dt)
            cpu.append(dc)
            misses += sum(not r.reached for r in reports.values())
    return statistics.median(times), statistics.median(cpu), 1.0 - misses / (frames * len(names))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default=str(Path(__file__).resolve().parents[1].name))
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(2024)
    reach = BONE_M * (N_JOINTS - 1)
    targets = random_targets(rng, args.count, reach)
    limits = ChainLimits(
        {k: (HingeLimit((1.0, 0.0, 0.0), -10.0, 60.0) if k % 2 else ConeLimit(35.0)) for k in range(1, N_JOINTS - 1)},
        root_dir=(0.0, 1.0, 0.0),
    )
    rows = [
        ("fabrik N=10 cold from straight", "us/call") + per_call(targets),
        ("fabrik N=10 limited (hinge+cone), cold", "us/call") + per_call(targets[: args.count // 3], limits=limits),
        ("fabrik_batch N=10 cold", "us/chain") + batch_cold(rng, args.repeats),
        ("humanoid Rig.solve, drag all", "us/frame") + rig_drag_all("humanoid", args.frames),
        ("creature Rig.solve, drag all", "us/frame") + rig_drag_all("creature", args.frames),
    ]
    print(f"[{args.label}] 10-joint chain ({N_JOINTS - 1} x {BONE_M} m bones), tolerance {TOL_M} m, max 10 passes")
    print(f"{'case':<40} {'wall':>9} {'cpu':>9} {'unit':<9} {'reached':>7}")
    for name, unit, us, cpu, hit in rows:
        print(f"{name:<40} {us:>9.2f} {cpu:>9.2f} {unit:<9} {hit:>7.3f}")


if __name__ == "__main__":
    main()
