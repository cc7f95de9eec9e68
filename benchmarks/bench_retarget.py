"""Retarget time and foot slide of the shared clips onto the bundled humanoid:
`.venv/bin/python benchmarks/bench_retarget.py`.

For each file in /work/shared/data with a two-legged figure: reading it (once, outside the
timings), then `retarget_clip` onto the humanoid, best and median of several runs. Foot
slide is the largest distance an ankle strays over the ground from where it was at the
start of a contact: over the source's contacts (what the lock holds), and over contacts found
again on the result by lint's detection (what a lint of the output would call planted).
Indicative times: other work shares the cores. FK and the two-bone kernel are warmed up first.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rigedit.core.retarget import retarget_clip
from rigedit.core.retarget.feet import contacts_of, slides
from rigedit.core.retarget.roles import LEGS, find_roles
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Pose
from rigedit.lint_cli import load_clip

DATA = Path("/work/shared/data")
FILES = ("cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh", "CesiumMan.glb")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    target = Rig.default().skeleton
    t = find_roles(target, None, "humanoid")
    print(f"{'clip':<38} {'frames':>6} {'fps':>5}  {'best ms':>8} {'median ms':>9} {'ms/frame':>8}  "
          f"{'contacts':>8}  {'slide src mm':>12}  {'slide found mm':>14}  {'unlocked mm':>11}  {'leg ratio':>9}")
    for name in FILES:
        src = load_clip(str(DATA / name))
        retarget_clip(src.skeleton, src.clip, target)  # warm-up
        times, result = [], None
        for _ in range(args.runs):
            start = time.perf_counter()
            result = retarget_clip(src.skeleton, src.clip, target)
            times.append(time.perf_counter() - start)
        pos, _ = target.fk(Pose(result.clip.rotations, result.clip.translations))
        found = contacts_of(target, result.clip, {r: t.limbs[r] for r in LEGS})
        again = max((s for r in LEGS for s in slides(pos[:, t.limbs[r][-1]], found[r])), default=0.0)
        unlocked = retarget_clip(src.skeleton, src.clip, target, lock_feet=False).max_slide
        n = src.clip.n_frames
        best, med = 1000 * min(times), 1000 * statistics.median(times)
        count = sum(len(c) for c in result.contacts.values())
        print(f"{name:<38} {n:>6} {src.clip.frame_rate:>5.0f}  {best:>8.1f} {med:>9.1f} {best / n:>8.3f}  "
              f"{count:>8}  {1000 * result.max_slide:>12.3f}  {1000 * again:>14.3f}  {1000 * unlocked:>11.1f}  {result.leg_ratio:>9.3f}")


if __name__ == "__main__":
    main()
