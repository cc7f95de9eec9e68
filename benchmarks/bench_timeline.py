"""Timeline evaluation cost: `.venv/bin/python benchmarks/bench_timeline.py`.

Rows: evaluating one weight curve at many times one by one (`Curve.at`) and all at once
(`Curve.sample`, what a bake or the dock's plot uses), and per-frame `Timeline.apply` on the
bundled humanoid with every chain's weight and target keyed (what scrubbing and playback do
before each solve). Best and median of several runs; indicative only, as other work shares
the two cores.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rigedit  # noqa: E402
from rigedit.core.curve import INTERPOLATIONS, Key, weight_curve  # noqa: E402

RUNS = 7


def timed(fn) -> tuple[float, float]:
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def curve_with(n_keys: int):
    rng = np.random.default_rng(1)
    times = np.sort(rng.choice(10_000, n_keys, replace=False)) / 1000.0
    return weight_curve(Key(t, float(rng.random()), INTERPOLATIONS[i % 3]) for i, t in enumerate(times))


def main() -> None:
    print(f"{'case':52s} {'best':>12s} {'median':>12s}")
    for n_keys in (4, 64):
        curve = curve_with(n_keys)
        for m in (1_000, 100_000):
            ts = np.linspace(-0.5, 10.5, m)
            if m <= 1_000:
                best, med = timed(lambda: [curve.at(t) for t in ts])
                print(f"{f'at() x {m} times, {n_keys} keys':52s} {best * 1e3:9.2f} ms {med * 1e3:9.2f} ms")
            best, med = timed(lambda: curve.sample(ts))
            print(f"{f'sample() {m} times, {n_keys} keys':52s} {best * 1e3:9.2f} ms {med * 1e3:9.2f} ms")

    rig = rigedit.Rig.default()
    tl = rig.timeline
    for name in rig.chain_names:
        tl.ease_in(name, 0.5)
        tl.ease_out(name, 1.5)
        tl.key_target(name, 0.0, rig.chain(name).target)
        tl.key_target(name, 2.0, tuple(np.asarray(rig.chain(name).target) + 0.05))
    frames = np.arange(tl.first_frame, tl.last_frame + 1) / tl.frame_rate

    def apply_all():
        for t in frames:
            tl.apply(rig, t)

    def apply_and_solve():
        for t in frames:
            tl.apply(rig, t)
            rig.solve()

    n = len(frames)
    for label, fn in ((f"apply() per frame, humanoid, 5 chains keyed", apply_all),
                      (f"apply() + solve() per frame, humanoid", apply_and_solve)):
        best, med = timed(fn)
        print(f"{label:52s} {best / n * 1e6:9.1f} us {med / n * 1e6:9.1f} us")


if __name__ == "__main__":
    main()
