"""Export time of the CMU walk (524 frames, 120 fps) to each format: `.venv/bin/python benchmarks/bench_export.py`.

What `rigedit export cmu_12_01_walk.bvh -o OUT` does after reading the file: bake (no chains:
the clip as recorded), then write. Two rigs: the file alone, and with the four proposed
two-bone limbs (the IK baked over every frame). The target is 1 s a format. Reading the
file is done once, outside the timing; USD is skipped when usd-core is not installed.
Prints the best and median of several runs; indicative, as other work shares the cores.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rigedit.core.autochains import propose_chains  # noqa: E402
from rigedit.io.export import export_rig, load_for_export  # noqa: E402

WALK = Path("/work/shared/data/cmu_12_01_walk.bvh")
TARGET_S = 1.0
SUFFIXES = [".glb", ".gltf", ".bvh", ".usda", ".usdc"]
LIMBS = {"left_arm", "right_arm", "left_leg", "right_leg"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    try:
        import pxr  # noqa: F401

        suffixes = SUFFIXES
    except ImportError:
        print("usd-core is not installed: USD rows skipped (pip install 'rigedit[usd]')")
        suffixes = [s for s in SUFFIXES if not s.startswith(".usd")]
    plain, source = load_for_export(WALK)
    limbs, _ = load_for_export(WALK)
    for p in propose_chains(limbs.skeleton, limbs.clip.frame(0)):
        if p.name in LIMBS:
            limbs.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole)
    print(f"export of {WALK.name}: {plain.clip.n_frames} frames, {len(plain.skeleton)} joints, best and median of {args.runs} runs")
    print(f"{'rig':<18}{'format':<8}{'best ms':>9}{'median ms':>11}{'size kB':>9}  target {TARGET_S:g} s")
    with tempfile.TemporaryDirectory() as tmp:
        for label, rig in (("the clip alone", plain), ("4 IK limbs", limbs)):
            for suffix in suffixes:
                out = Path(tmp) / f"walk{suffix}"
                export_rig(rig, out, source)  # warm-up: imports, numba's cache, pxr's plugins
                times = []
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    export_rig(rig, out, source)
                    times.append(time.perf_counter() - t0)
                best, median = min(times), statistics.median(times)
                ok = "ok" if median < TARGET_S else "SLOW"
                print(f"{label:<18}{suffix:<8}{best * 1e3:9.1f}{median * 1e3:11.1f}{out.stat().st_size / 1e3:9.0f}  {ok}")


if __name__ == "__main__":
    main()
