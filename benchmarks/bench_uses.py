"""Frame cost of the issue-8 scenes, headless: `.venv/bin/python benchmarks/bench_uses.py`.

Plays each bundled scene frame by frame as the editor's timeline does (timeline keys or
clip time, the gait stepped, then Rig.solve) and prints milliseconds per frame; then the
look_at scene's head target dragged (a new target before each Rig.solve). Indicative
only: run it 2-3 times on a quiet machine.
"""
from __future__ import annotations

import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rigedit  # noqa: E402,F401
from rigedit.core.rig import BUNDLED_PRESETS, Rig  # noqa: E402

SCENES = ["look_at", "uneven_ground_walk", "creature_gait"]


def play(stem: str) -> list[float]:
    rig = Rig.load(BUNDLED_PRESETS / f"{stem}.json")
    tl = rig.timeline
    times = []
    for f in range(tl.first_frame, tl.last_frame + 1):
        t = tl.time_of_frame(f)
        t0 = time.perf_counter()
        tl.apply(rig, t)
        rig.advance_gait()
        rig.solve()
        times.append((time.perf_counter() - t0) * 1000.0)
    return times


def drag_look_at(n: int = 300) -> list[float]:
    """The look_at scene's head target moved a little before every solve, as a live drag
    does (no timeline: the solver thread sees only the new goal)."""
    rig = Rig.load(BUNDLED_PRESETS / "look_at.json")
    ch = rig.chain("look")
    x0, y0, z0 = ch.target
    times = []
    for i in range(n):
        ch.target = (x0 + 0.8 * math.sin(i * 0.05), y0 + 0.3 * math.cos(i * 0.07), z0)
        t0 = time.perf_counter()
        rig.solve()
        times.append((time.perf_counter() - t0) * 1000.0)
    return times


def main() -> None:
    print(f"{'scene':<22}{'frames':>8}{'median ms':>12}{'p95 ms':>10}{'max ms':>10}")
    for stem in SCENES:
        ms = sorted(play(stem))
        p95 = ms[int(0.95 * (len(ms) - 1))]
        print(f"{stem:<22}{len(ms):>8}{statistics.median(ms):>12.2f}{p95:>10.2f}{ms[-1]:>10.2f}")
    ms = sorted(drag_look_at())
    p95 = ms[int(0.95 * (len(ms) - 1))]
    print(f"{'look_at drag (solve)':<22}{len(ms):>8}{statistics.median(ms):>12.2f}{p95:>10.2f}{ms[-1]:>10.2f}")


if __name__ == "__main__":
    main()
