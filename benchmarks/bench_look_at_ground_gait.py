"""Look-at, soft IK, ground and gait costs: `.venv/bin/python benchmarks/bench_look_at_ground_gait.py`.

Per-frame work (one look-at, two feet grounded, one gait step) is what a live editor pays
every redraw; the batch rows are what baking a clip pays. Prints the median microseconds per
call over several repeats; indicative only, as other work shares the cores.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rigedit.core.gait import Gait  # noqa: E402
from rigedit.core.ground import ground_feet, pelvis_drop, slope_ground  # noqa: E402
from rigedit.core.ik.look_at import solve_look_at  # noqa: E402
from rigedit.core.ik.soft import effective_target  # noqa: E402
from rigedit.core.skeleton import Pose  # noqa: E402
from rigedit.io.bvh import read_bvh  # noqa: E402

DATA = Path("/work/shared/data")  # the shared test files, wherever the checkout is


def median_us(fn, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - t0) / 1000.0)
    return statistics.median(times)


def main() -> None:
    rows = []
    bvh = read_bvh(DATA / "cmu_12_01_walk.bvh")
    skel, clip = bvh.skeleton, bvh.clip
    frames = clip.n_frames
    one = Pose(clip.rotations[100], clip.translations[100])
    clip_pose = Pose(clip.rotations, clip.translations)
    target = np.array([1.0, 1.6, 0.5])
    joints, weights = ["Neck", "Neck1", "Head"], [0.3, 0.3, 0.4]
    rows.append(("look-at, 3 joints, 38-joint skeleton, 1 frame", 1,
                 median_us(lambda: solve_look_at(skel, one, joints, weights, target), 200)))
    rows.append((f"look-at, same, whole clip ({frames} frames)", frames,
                 median_us(lambda: solve_look_at(skel, clip_pose, joints, weights, target), 10)))
    # Rig.solve of the look_at scene with its look target moving (the neck and head aimed
    # in the compiled frame, the other chains unchanged).
    from rigedit.core.rig import BUNDLED_PRESETS, Rig

    rig = Rig.load(BUNDLED_PRESETS / "look_at.json")
    look = rig.chain("look")
    home, frames = np.asarray(look.target), [0]

    def look_frame():
        frames[0] += 1
        look.target = home + (0.0, 0.0, 0.01 * (frames[0] % 2))
        rig.solve()

    rig.solve()
    rows.append(("look_at scene, Rig.solve 1 frame, look target moving", 1, median_us(look_frame, 2000)))

    rng = np.random.default_rng(0)
    roots, targets = rng.normal(size=(10000, 3)), rng.normal(size=(10000, 3))
    rows.append(("effective_target, 1 chain", 1,
                 median_us(lambda: effective_target(roots[0], targets[0], 0.9, softness=0.05), 500)))
    rows.append(("effective_target, 10000 chains", 10000,
                 median_us(lambda: effective_target(roots, targets, 0.9, softness=0.05), 50)))

    field = slope_ground()
    feet = np.array([[0.1, 0.1, 0.3], [-0.1, 0.08, -0.2]])
    hips = np.array([[0.1, 0.9, 0.0], [-0.1, 0.9, 0.0]])
    rows.append(("ground_feet, 2 feet", 1, median_us(lambda: ground_feet(field, feet, 0.08), 500)))
    rows.append(("pelvis_drop, 2 legs", 1, median_us(lambda: pelvis_drop(hips, feet, 0.85), 500)))
    pts = rng.uniform(-10, 10, size=(10000, 3))
    rows.append(("height + normal, 10000 points", 10000,
                 median_us(lambda: (field.height_at(pts), field.normal_at(pts)), 50)))

    for per_side in (3, 4):
        zs = (np.arange(per_side)[::-1] - (per_side - 1) / 2) * 0.3
        spots = np.array([(0.3, -0.2, z) for z in zs] + [(-0.3, -0.2, z) for z in zs])
        gait = Gait(spots, step_length=0.25, step_time=0.2)
        state = {"t": 0}

        # 0.47 m/s, not 0.5: 30 frames at 0.5 m/s carry the rest spots exactly onto the 0.25 m
        # step length, where round-off decides the step.
        def step(g=gait, s=state):
            s["t"] += 1
            return g.advance(np.array([0.0, 0.2, 0.47 * s["t"] / 60.0]), 0.0, 1.0 / 60.0)

        rows.append((f"gait.advance, {2 * per_side} legs, walking", 1, median_us(step, 2000)))

    print(f"{'case':52s} {'us/call':>10s} {'us/item':>10s}")
    for name, items, us in rows:
        print(f"{name:52s} {us:10.1f} {us / items:10.2f}")


if __name__ == "__main__":
    main()
