"""Pose layer evaluation cost: `.venv/bin/python benchmarks/bench_pose_layer.py [--against TREE]`.

Rows, in microseconds a frame, on the bundled humanoid with every joint and the roots'
offset keyed (few keys: 2; many: 40), at times spread over the keys: the layer's values
(`PoseLayer.rotations_at`), the layer put on a pose (`rig_posing.layered`, what the
animated pose of every drag, playback, onion skin, motion trail and bake frame does), and
`Rig.animated_pose` after moving the time (scrubbing), and after an unkeyed rotation of one
joint (a frame of an R rotation or a gizmo drag: a new layer value each time).

--against TREE (another checkout, e.g. /work/main) measures both trees in one run: this
script runs in a subprocess per tree (PYTHONPATH set to it), the trees taking turns, the
order flipping every round, and prints each row's median over the rounds, before (TREE)
and after (this checkout). Indicative only: other work shares the cores.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]
FRAMES = 200
RUNS = 5


def keyed_rig(n_keys: int):
    import rigedit
    from rigedit.core.pose_layer import PoseLayer

    rig = rigedit.Rig.default()
    rig.pose_layer = PoseLayer()
    rng = np.random.default_rng(n_keys)
    for k in range(n_keys):
        rig.time = 0.1 * k
        for name in rig.skeleton.names:
            q = rng.normal(size=4)
            rig.set_rotation(name, q / np.linalg.norm(q))
        rig.set_root_offset(rng.normal(scale=0.05, size=3))
        rig.key_pose(chains=False)
    return rig


def per_frame(fn, times) -> float:
    """Best over RUNS of the mean time a call of fn(t), in microseconds."""
    best = float("inf")
    for _ in range(RUNS):
        t0 = time.perf_counter()
        for t in times:
            fn(t)
        best = min(best, (time.perf_counter() - t0) / len(times))
    return best * 1e6


def rows() -> dict[str, float]:
    from rigedit.core.rig_posing import layered

    out = {}
    for n_keys in (2, 40):
        rig = keyed_rig(n_keys)
        layer, skeleton, roots = rig.pose_layer, rig.skeleton, rig.root_indices()
        base = skeleton.rest_pose()
        times = np.linspace(-0.05, 0.1 * n_keys, FRAMES)
        layer.rotations_at(0.0)  # the first call may load compiled code
        layered(layer, base, 0.0, skeleton, roots)

        def scrub(t):
            rig.time = t
            rig.animated_pose()

        turns = np.linspace(0.0, 1.0, len(times))

        def rotate(t):
            rig.set_rotation("Head", (0.0, np.sin(t), 0.0, np.cos(t)))
            rig.animated_pose()

        out[f"rotations_at, {n_keys} keys"] = per_frame(layer.rotations_at, times)
        out[f"layered, {n_keys} keys"] = per_frame(lambda t: layered(layer, base, t, skeleton, roots), times)
        out[f"time + animated_pose, {n_keys} keys"] = per_frame(scrub, times)
        out[f"set_rotation + animated_pose, {n_keys} keys"] = per_frame(rotate, turns)
    return out


def run_tree(tree: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    text = subprocess.run([sys.executable, __file__, "--rows"], env=env, check=True, capture_output=True, text=True).stdout
    return {name: float(v) for name, v in (line.rsplit("\t", 1) for line in text.splitlines() if "\t" in line)}


def against(tree: Path, rounds: int) -> None:
    before: dict[str, list] = {}
    after: dict[str, list] = {}
    for r in range(rounds):
        order = [(tree, before), (HERE, after)]
        for path, into in order if r % 2 == 0 else order[::-1]:
            for name, v in run_tree(path).items():
                into.setdefault(name, []).append(v)
    print(f"| {'pose layer, humanoid (us/frame)':38s} | {'before':>9s} | {'after':>9s} | after/before |")
    print(f"|{'-' * 40}|{'-' * 11}|{'-' * 11}|{'-' * 14}|")
    for name in after:
        b, a = statistics.median(before[name]), statistics.median(after[name])
        print(f"| {name:38s} | {b:9.1f} | {a:9.1f} | {a / b:12.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", type=Path, help="another checkout to measure in the same run (before)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--rows", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rows:
        for name, v in rows().items():
            print(f"{name}\t{v:.3f}")
        return
    if args.against is not None:
        against(args.against.resolve(), args.rounds)
        return
    sys.path.insert(0, str(HERE))
    print(f"{'case':38s} {'us/frame':>10s}")
    for name, v in rows().items():
        print(f"{name:38s} {v:10.1f}")


if __name__ == "__main__":
    main()
