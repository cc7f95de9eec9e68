"""Two-bone speed against a plain-float reference: `.venv/bin/python benchmarks/bench_two_bone_core.py`.

Rows (medians of many timed samples after a warm-up; the machine has 2 cores shared with
other work, so run it two or three times):

  two_bone_ik with pole         us per call, numpy (3,) inputs as a script passes them
  reference plain-float Python  us per call: the same closed form (pole, Heron's height)
                                written below on float tuples, no validation, tuples out
  two_bone_ik_batch 100k        ns per limb, with poles
  humanoid Rig.solve drag all   us per frame, every chain's target moving on a small loop
                                (as benchmarks/bench_rig.py's "drag all")

Uses only the public API, so the same script times any revision (`git stash` to compare).
"""
from __future__ import annotations

import statistics
import sys
import time
from math import sqrt
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rigedit  # noqa: E402
from rigedit.core.ik import two_bone_ik, two_bone_ik_batch  # noqa: E402
from bench_ik import _limb_inputs  # noqa: E402 (the same random limbs as bench_ik's batch rows)
from drag_loop import DragLoop  # noqa: E402 (beside this script)


def reference_two_bone(root, mid, end, target, pole):
    """The plain-float Python two-bone the single call is held against: the closed form
    with a pole (no fallbacks for degenerate limbs, no input checks)."""
    rx, ry, rz = root
    wx, wy, wz = mid[0] - rx, mid[1] - ry, mid[2] - rz
    bx, by, bz = end[0] - mid[0], end[1] - mid[1], end[2] - mid[2]
    tx, ty, tz = target[0] - rx, target[1] - ry, target[2] - rz
    a = sqrt(wx * wx + wy * wy + wz * wz)
    b = sqrt(bx * bx + by * by + bz * bz)
    d = sqrt(tx * tx + ty * ty + tz * tz)
    hi, lo = a + b, abs(a - b)
    ux, uy, uz = tx / d, ty / d, tz / d
    px, py, pz = pole[0] - rx, pole[1] - ry, pole[2] - rz
    pu = px * ux + py * uy + pz * uz
    qx, qy, qz = px - pu * ux, py - pu * uy, pz - pu * uz
    qn = sqrt(qx * qx + qy * qy + qz * qz)
    vx, vy, vz = qx / qn, qy / qn, qz / qn
    if d >= hi:
        dc, mu, mv = hi, a, 0.0
    elif d <= lo:
        dc, mu, mv = lo, (a if a >= b else -a), 0.0
    else:
        dc = d
        h = 0.5 / dc
        mu = ((a - b) * hi + dc * dc) * h
        mv = sqrt((hi - dc) * (dc - lo) * (hi + dc) * (dc + lo)) * h
    new_mid = (rx + mu * ux + mv * vx, ry + mu * uy + mv * vy, rz + mu * uz + mv * vz)
    new_end = (rx + dc * ux, ry + dc * uy, rz + dc * uz)
    return new_mid, new_end, lo <= d <= hi


def per_call_us(fns, number=200, repeat=300) -> list[tuple[float, float]]:
    """(median, best) us per call of each function. Their samples are interleaved, so a
    busy moment on the machine (2 cores, shared) falls on all of them alike and their
    ratio holds even when the absolute times do not."""
    samples = [[] for _ in fns]
    for fn in fns:
        fn()
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples[k].append((time.perf_counter() - t0) / number * 1e6)
    return [(statistics.median(t), min(t)) for t in samples]


def humanoid_drag_all_us(frames=600, warmup=20) -> float:
    rig = rigedit.Rig.default()
    loop = DragLoop(rig)
    times = []
    for f in range(frames + warmup):
        loop.move(f)
        t0 = time.perf_counter_ns()
        rig.solve()
        t1 = time.perf_counter_ns()
        if f >= warmup:
            times.append((t1 - t0) / 1000.0)
    return statistics.median(times)


def main() -> None:
    root, mid, end, target, pole = (a[0] for a in _limb_inputs(1))
    floats = [tuple(v.tolist()) for v in (root, mid, end, target, pole)]
    (single, single_best), (reference, reference_best) = per_call_us(
        [lambda: two_bone_ik(root, mid, end, target, pole), lambda: reference_two_bone(*floats)]
    )

    R, M, E, T, P = _limb_inputs(100_000)
    two_bone_ik_batch(R, M, E, T, P)
    batch = []
    for _ in range(41):
        t0 = time.perf_counter()
        two_bone_ik_batch(R, M, E, T, P)
        batch.append((time.perf_counter() - t0) / len(R) * 1e9)
    rig_us = humanoid_drag_all_us()

    print(f"{'case':<42} {'median':>10} {'best':>10}")
    print(f"{'two_bone_ik with pole':<42} {single:>7.2f} us {single_best:>7.2f} us")
    print(f"{'reference plain-float Python two-bone':<42} {reference:>7.2f} us {reference_best:>7.2f} us   (median ratio {single / reference:.2f}x)")
    print(f"{'two_bone_ik_batch 100k + pole':<42} {statistics.median(batch):>7.1f} ns {min(batch):>7.1f} ns  per limb")
    print(f"{'humanoid Rig.solve, every target moving':<42} {rig_us:>7.1f} us  per frame")


if __name__ == "__main__":
    main()
