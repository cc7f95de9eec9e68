"""Bake time over the CMU walk (524 frames, 120 fps): `.venv/bin/python benchmarks/bench_bake.py`.

File reading is done once, outside the timing. Cases: the four auto-proposed two-bone limbs
(the target: at most 0.2 s), the same with the FABRIK spine (solved frame by frame), and
the limbs with a knee hinge (a limited limb also goes frame by frame). Prints the best and
median of several runs; the numbers are indicative, as other work shares the two cores.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rigedit.core.autochains import propose_chains  # noqa: E402
from rigedit.core.bake import bake  # noqa: E402
from rigedit.core.ik.limits import HingeLimit  # noqa: E402
from rigedit.core.rig import Rig  # noqa: E402
from rigedit.io.bvh import read_bvh  # noqa: E402

WALK = Path("/work/shared/data/cmu_12_01_walk.bvh")
TARGET_S = 0.2  # four two-bone limbs over the whole walk
LIMBS = {"left_arm", "right_arm", "left_leg", "right_leg"}


def make_rig(imp, names, hinge=False) -> Rig:
    rig = Rig(imp.skeleton, clip=imp.clip)
    for p in propose_chains(imp.skeleton, imp.clip.frame(0)):
        if p.name in names:
            rig.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole)
    if hinge:
        rig.chain("left_leg").limits = {"LeftLeg": HingeLimit((1.0, 0.0, 0.0), 0.0, 150.0)}
    return rig


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    imp = read_bvh(WALK)
    cases = [
        ("4 two-bone limbs", make_rig(imp, LIMBS)),
        ("4 limbs + FABRIK spine", make_rig(imp, LIMBS | {"spine"})),
        ("4 limbs, left knee hinged", make_rig(imp, LIMBS, hinge=True)),
    ]
    frames = imp.clip.n_frames
    print(f"bake of {WALK.name}: {frames} frames, {len(imp.skeleton)} joints, best and median of {args.runs} runs")
    print(f"{'case':<28}{'best ms':>9}{'median ms':>11}{'us/frame':>10}  target")
    for label, rig in cases:
        bake(rig)  # warm-up: first calls pay for imports and caches
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            bake(rig)
            times.append(time.perf_counter() - t0)
        best, median = min(times), statistics.median(times)
        note = ""
        if label == cases[0][0]:
            note = f"<= {TARGET_S * 1000:.0f} ms: {'ok' if median <= TARGET_S else 'OVER'}"
        print(f"{label:<28}{best * 1000:>9.1f}{median * 1000:>11.1f}{median / frames * 1e6:>10.1f}  {note}")


if __name__ == "__main__":
    main()
