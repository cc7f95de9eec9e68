"""Lint and fix time of the shared walks: `.venv/bin/python benchmarks/bench_lint.py`.

For each walk: reading the file (once, outside the timings), `lint_clip` on it as recorded,
and `lint_clip` + `fix_clip` (which lints the repair again) on the same walk with a pole
flip, a knee pop and a foot slide injected (tests/core/lint_faults.py), so the fix has spans
to re-solve. Prints the best and median of several runs; indicative, as other work shares
the cores. The first run compiles nothing new (FK is warmed up before the timings).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rigedit.core.lint import lint_clip  # noqa: E402
from rigedit.core.lint.fix import fix_clip  # noqa: E402
from rigedit.io.bvh import read_bvh  # noqa: E402
from rigedit.io.export import bvh_angles  # noqa: E402
from tests.core.lint_faults import BANDAI, CMU, drift_root, flip_thigh, snap_straight  # noqa: E402
from tests.core.test_lint import _sideways, bent_frames  # noqa: E402


def faulty(imp, clean):
    sk = imp.skeleton
    left, flip = bent_frames(clean, "left_leg", 4)
    right, pop = bent_frames(clean, "right_leg", 2, around=3)
    a, b = clean.contacts["left_leg"][1]
    clip = flip_thigh(sk, imp.clip, left.root, left.mid, left.end, flip)
    clip = snap_straight(sk, clip, right.root, right.mid, right.end, pop)
    return drift_root(clip, a + (b - a) // 8, a + 5 * (b - a) // 8, 0.06, _sideways(clean))


def timed(fn, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print(f"{'clip':<40} {'frames':>6} {'fps':>5}  {'lint best/median s':>19}  {'lint+fix best/median s':>23}  findings  repaired")
    for path in (CMU, BANDAI):
        imp = read_bvh(path)
        euler = bvh_angles(path)
        clean = lint_clip(imp.skeleton, imp.clip, euler=euler)  # warms FK up
        bad = faulty(imp, clean)
        lint_best, lint_med = timed(lambda: lint_clip(imp.skeleton, imp.clip, euler=euler), args.runs)
        box = {}

        def lint_and_fix():
            box["report"] = lint_clip(imp.skeleton, bad)
            box["fixed"] = fix_clip(box["report"])

        fix_best, fix_med = timed(lint_and_fix, args.runs)
        print(f"{path.name:<40} {imp.clip.n_frames:>6} {imp.clip.frame_rate:>5.0f}  {lint_best:>8.3f} / {lint_med:<8.3f}  "
              f"{fix_best:>10.3f} / {fix_med:<10.3f}  {len(box['report'].findings):>8}  {len(box['fixed'].repaired):>8}")


if __name__ == "__main__":
    main()
