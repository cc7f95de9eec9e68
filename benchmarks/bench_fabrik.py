"""FABRIK speed and solve quality: `.venv/bin/python benchmarks/bench_fabrik.py`.

The chain is 10 joints (9 bones of 0.1 m: a 0.9 m tail or tentacle), tolerance 1 mm,
at most 10 passes, as fabrik()'s defaults.

- cold: the straight bind pose (along +Y) and a random reachable target (direction uniform,
  distance uniform in [0, reach]), as a chain is first solved after loading.
- warm: the target moves on a 20 cm circle (tilted, around a point half the reach out), a
  full turn every 120 frames (1 cm a frame: a drag at 0.5 m/s at 60 fps); each solve
  starts from the previous answer.
- limited: the same, with a 35-degree cone on every joint but the root (cold only).
- ccd: the same cold and warm cases (and cold with the cones) solved by `ccd`.

Single chains are timed per call (median); batches as 10,000 chains in one call, per chain
(median of repeats). Then issue #7's table: the share of random reachable targets still
outside the tolerance after 10 passes from the straight pose, plain FABRIK
(arc_start=False) against the arc start, for a few chain shapes and target spreads.
Last, limited chains: the share of targets reached from the straight pose, where each
target is the tip of a random pose the limits allow (so every one is reachable).
Timings are indicative: the machine has 2 cores and other work shares them.
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

from rigedit.core.ik import ChainLimits, ConeLimit, HingeLimit, ccd, fabrik, fabrik_batch  # noqa: E402

N_JOINTS = 10
BONE_M = 0.1
TOL_M = 1e-3
BATCH = 10_000
TARGET_US = {
    "fabrik cold": 40.0,
    "fabrik warm": 25.0,
    "fabrik_batch cold": 4.0,
    "fabrik_batch warm": 2.0,
}


def straight_chain(n=N_JOINTS, bone=BONE_M):
    pts = np.zeros((n, 3))
    pts[:, 1] = np.arange(n) * bone
    return pts


def random_targets(rng, count, reach, spread="radius"):
    d = rng.normal(size=(count, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    u = rng.uniform(0.0, 1.0, count)
    r = reach * (u if spread == "radius" else np.cbrt(u))  # "ball": uniform in the volume
    return d * r[:, None]


def circle_path(frames, reach, phase=0.0):
    a = phase + 2.0 * math.pi * np.arange(frames) / 120.0
    center = np.array([0.0, 0.5 * reach, 0.0])
    return center + 0.2 * np.stack([np.cos(a), 0.3 * np.sin(2 * a), np.sin(a)], axis=1)


def time_single_cold(targets, solve=fabrik, **kw):
    pts = straight_chain()
    times, reached, passes = [], 0, 0
    for t in targets:
        t0 = time.perf_counter_ns()
        r = solve(pts, t, tolerance=TOL_M, **kw)
        times.append((time.perf_counter_ns() - t0) / 1000.0)
        reached += r.reached
        passes += r.iterations
    return statistics.median(times), 1 - reached / len(targets), passes / len(targets)


def time_single_warm(frames, solve=fabrik):
    reach = BONE_M * (N_JOINTS - 1)
    path = circle_path(frames + 20, reach)
    pts = solve(straight_chain(), path[0], tolerance=TOL_M, max_iterations=100).points
    times, reached, passes = [], 0, 0
    for f, t in enumerate(path):
        t0 = time.perf_counter_ns()
        r = solve(pts, t, tolerance=TOL_M)
        dt = (time.perf_counter_ns() - t0) / 1000.0
        pts = r.points
        if f >= 20:
            times.append(dt)
            reached += r.reached
            passes += r.iterations
    return statistics.median(times), 1 - reached / frames, passes / frames


def time_batch_cold(rng, repeats):
    reach = BONE_M * (N_JOINTS - 1)
    pts = np.broadcast_to(straight_chain(), (BATCH, N_JOINTS, 3)).copy()
    times = []
    for _ in range(repeats):
        tgt = random_targets(rng, BATCH, reach)
        t0 = time.perf_counter_ns()
        r = fabrik_batch(pts, tgt, tolerance=TOL_M)
        times.append((time.perf_counter_ns() - t0) / 1000.0 / BATCH)
    return statistics.median(times), 1 - r.reached.mean(), r.iterations.mean()


def time_batch_warm(frames):
    reach = BONE_M * (N_JOINTS - 1)
    phases = np.linspace(0.0, 2.0 * math.pi, BATCH, endpoint=False)
    paths = np.stack([circle_path(frames + 3, reach, p) for p in phases], axis=1)  # (frames, N, 3)
    pts = fabrik_batch(np.broadcast_to(straight_chain(), (BATCH, N_JOINTS, 3)), paths[0], max_iterations=100).points
    times, unreached, passes = [], [], []
    for f in range(1, len(paths)):
        t0 = time.perf_counter_ns()
        r = fabrik_batch(pts, paths[f], tolerance=TOL_M)
        dt = (time.perf_counter_ns() - t0) / 1000.0 / BATCH
        pts = r.points
        if f >= 3:
            times.append(dt)
            unreached.append(1 - r.reached.mean())
            passes.append(r.iterations.mean())
    return statistics.median(times), float(np.mean(unreached)), float(np.mean(passes))


def unreached_share(rng, lengths, spread, count, arc_start):
    pts = np.zeros((count, len(lengths) + 1, 3))
    pts[:, 1:, 1] = np.cumsum(lengths)
    tgt = random_targets(rng, count, float(np.sum(lengths)), spread)
    r = fabrik_batch(pts, tgt, tolerance=TOL_M * float(np.sum(lengths)) / (BONE_M * (N_JOINTS - 1)), arc_start=arc_start)
    return 1 - r.reached.mean()


def bench_ik_cases(Case):
    """The FABRIK rows of benchmarks/bench_ik.py, built with its Case type: the same cold and
    warm cases as main(), timed by that script's harness."""
    reach = BONE_M * (N_JOINTS - 1)

    def cold():
        pts = straight_chain()
        targets = random_targets(np.random.default_rng(5), 4096, reach)
        it = iter(range(10**12))
        return lambda: fabrik(pts, targets[next(it) % len(targets)], tolerance=TOL_M)

    def warm():
        path = circle_path(120, reach)
        state = {"pts": fabrik(straight_chain(), path[0], max_iterations=100).points, "f": 0}

        def call():
            state["f"] += 1
            state["pts"] = fabrik(state["pts"], path[state["f"] % len(path)], tolerance=TOL_M).points

        return call

    def batch_cold():
        pts = np.broadcast_to(straight_chain(), (BATCH, N_JOINTS, 3)).copy()
        targets = random_targets(np.random.default_rng(6), BATCH, reach)
        return lambda: fabrik_batch(pts, targets, tolerance=TOL_M)

    def batch_warm():
        phases = np.linspace(0.0, 2.0 * math.pi, BATCH, endpoint=False)
        paths = np.stack([circle_path(120, reach, p) for p in phases], axis=1)
        start = np.broadcast_to(straight_chain(), (BATCH, N_JOINTS, 3))
        state = {"pts": fabrik_batch(start, paths[0], max_iterations=100).points, "f": 0}

        def call():
            state["f"] += 1
            state["pts"] = fabrik_batch(state["pts"], paths[state["f"] % len(paths)], tolerance=TOL_M).points

        return call

    def single(solve, limits=None, path=False):
        """A single-chain solve per call: cold from straight toward random targets, or warm
        along the path (each solve from the last answer)."""
        if not path:
            pts = straight_chain()
            targets = random_targets(np.random.default_rng(5), 4096, reach)
            it = iter(range(10**12))
            return lambda: solve(pts, targets[next(it) % len(targets)], tolerance=TOL_M, limits=limits)
        route = circle_path(120, reach)
        state = {"pts": solve(straight_chain(), route[0], max_iterations=100, limits=limits).points, "f": 0}

        def call():
            state["f"] += 1
            state["pts"] = solve(state["pts"], route[state["f"] % len(route)], tolerance=TOL_M, limits=limits).points

        return call

    cones = {k: ConeLimit(35.0) for k in range(1, N_JOINTS - 1)}
    hinges = ChainLimits({k: HingeLimit((1, 0, 0), -10, 60) for k in range(1, N_JOINTS - 1)})
    return [
        Case("fabrik 10 joints, cold (straight, random target)", cold, TARGET_US["fabrik cold"], number=500),
        Case("fabrik 10 joints, warm (target on a path)", warm, TARGET_US["fabrik warm"], number=500),
        Case("fabrik 10 joints, 35-degree cones, cold", lambda: single(fabrik, cones), None, number=200),
        Case("fabrik 10 joints, 35-degree cones, warm", lambda: single(fabrik, cones, path=True), None, number=200),
        Case("fabrik 10 joints, hinges (ChainLimits), warm", lambda: single(fabrik, hinges, path=True), None, number=200),
        Case("ccd 10 joints, cold", lambda: single(ccd), None, number=200),
        Case("ccd 10 joints, warm", lambda: single(ccd, path=True), None, number=500),
        Case("ccd 10 joints, 35-degree cones, warm", lambda: single(ccd, cones, path=True), None, number=200),
        Case("fabrik_batch 10k x 10 joints, cold, per chain", batch_cold, TARGET_US["fabrik_batch cold"], per=BATCH, number=1, repeat=11),
        Case("fabrik_batch 10k x 10 joints, warm, per chain", batch_warm, TARGET_US["fabrik_batch warm"], per=BATCH, number=1, repeat=11),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=3000, help="single-chain solves per case")
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(2024)
    reach = BONE_M * (N_JOINTS - 1)
    rows = []
    tg = random_targets(rng, args.count, reach)
    rows.append(("fabrik cold",) + time_single_cold(tg))
    rows.append(("fabrik warm",) + time_single_warm(args.frames))
    rows.append(("fabrik cold, plain (no arc start)",) + time_single_cold(tg, arc_start=False))
    cones = {k: ConeLimit(35.0) for k in range(1, N_JOINTS - 1)}
    rows.append(("fabrik cold, 35-degree cones",) + time_single_cold(tg[: args.count // 3], limits=cones))
    rows.append(("ccd cold",) + time_single_cold(tg, solve=ccd))
    rows.append(("ccd warm",) + time_single_warm(args.frames, solve=ccd))
    rows.append(("ccd cold, 35-degree cones",) + time_single_cold(tg[: args.count // 3], solve=ccd, limits=cones))
    rows.append(("fabrik_batch cold",) + time_batch_cold(rng, args.repeats))
    rows.append(("fabrik_batch warm",) + time_batch_warm(args.frames // 10))
    print(f"10-joint chain ({N_JOINTS - 1} x {BONE_M} m bones), tolerance {TOL_M} m, max 10 passes")
    print(f"{'case':<36} {'median us/chain':>15} {'target us':>9} {'unreached':>9} {'mean passes':>11}")
    for name, us, miss, passes in rows:
        target = TARGET_US.get(name)
        mark = "" if target is None else ("ok" if us <= target else "OVER")
        tgt = "" if target is None else f"{target:.0f}"
        print(f"{name:<36} {us:>15.2f} {tgt:>9} {miss:>9.3f} {passes:>11.2f} {mark}")

    print()
    print("Issue #7: share of random reachable targets outside tolerance after 10 passes, from straight")
    print(f"{'chain':<34} {'targets':<22} {'plain FABRIK':>12} {'arc start':>10}")
    count = 20_000
    shapes = [
        ("10 joints, equal bones", np.full(9, BONE_M)),
        ("10 joints, bones 0.05..0.15 m", np.random.default_rng(1).uniform(0.05, 0.15, 9)),
        ("10 joints, 2 of 9 bones zero", np.where(np.arange(9) % 4 == 1, 0.0, BONE_M)),
        ("6 joints, equal bones", np.full(5, BONE_M)),
    ]
    for label, lengths in shapes:
        for spread, what in (("radius", "distance uniform"), ("ball", "uniform in the ball")):
            plain = unreached_share(rng, lengths, spread, count, arc_start=False)
            arc = unreached_share(rng, lengths, spread, count, arc_start=True)
            print(f"{label:<34} {what:<22} {plain:>12.3f} {arc:>10.3f}")
    print("(tolerance scaled with the chain's reach: 1 mm per 0.9 m)")

    print()
    print("Limits: share of allowed-pose targets reached from the straight pose")
    print(f"{'chain':<44} {'passes':>6} {'reached':>8} {'median us':>10}")
    for label, pts, lim in limited_cases():
        tips = allowed_tips(rng, pts, lim, 200)
        for cap in (10, 100):
            times, hits = [], 0
            for t in tips:
                t0 = time.perf_counter_ns()
                r = fabrik(pts, t, tolerance=TOL_M, max_iterations=cap, limits=lim)
                times.append((time.perf_counter_ns() - t0) / 1000.0)
                hits += r.reached
            print(f"{label:<44} {cap:>6} {hits / len(tips):>8.3f} {statistics.median(times):>10.0f}")


def limited_cases():
    down = np.zeros((3, 3))
    down[:, 1] = -np.arange(3) * 0.45
    leg3 = np.vstack([down, [[0.0, -0.9, 0.12]]])
    tail = straight_chain()
    yield "leg: free hip, knee hinge 0..150", down, ChainLimits({1: HingeLimit((1, 0, 0), 0, 150)}, root_dir=(0, -1, 0))
    yield "leg + foot: knee hinge, ankle cone 30", leg3, ChainLimits(
        {1: HingeLimit((1, 0, 0), 0, 150), 2: ConeLimit(30)}, root_dir=(0, -1, 0)
    )
    yield "tail: 35-degree cones", tail, ChainLimits({k: ConeLimit(35.0) for k in range(1, N_JOINTS - 1)})
    yield "tail: hinges -10..60 about X", tail, ChainLimits({k: HingeLimit((1, 0, 0), -10, 60) for k in range(1, N_JOINTS - 1)})


def allowed_tips(rng, pts, lim, count):
    """Tips of random poses the limits allow, in the frames a solve from `pts` uses: random
    bone directions conformed to the limits (fabrik with no pass conforms its start)."""
    lengths = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    tips = []
    for _ in range(count):
        d = rng.normal(size=(len(lengths), 3))
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        aim = pts[0] + np.concatenate(([[0.0, 0.0, 0.0]], np.cumsum(d * lengths[:, None], axis=0)))
        tips.append(fabrik(aim, aim[-1], lengths=lengths, limits=lim, max_iterations=0).points[-1])
    return tips


if __name__ == "__main__":
    main()
