"""IK and FK speed: `.venv/bin/python benchmarks/bench_ik.py [--quick]`.

Prints one row per case: the median (and best) time per call or per chain over many
timed samples taken after a warm-up, against the case's target. The verdict uses CPU time
(see `measure`). This machine has 2 cores shared with other work, so numbers are
indicative: run it 2-3 times. The first row times `a * a` on 60 floats (0.85 us on a quiet
machine) to show how loaded the machine was.

Cases are a list: adding one is adding a `Case(...)` row. FABRIK rows go in their own
marked section below.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rigedit.core.ik.two_bone import two_bone_ik  # noqa: E402
from rigedit.core.ik.two_bone_batch import two_bone_ik_batch  # noqa: E402
from rigedit.core.skeleton import Pose, write_chain_positions  # noqa: E402
from rigedit.core.transforms import quat_normalize  # noqa: E402
from tests.core.helpers import humanoid60  # noqa: E402


@dataclass
class Case:
    name: str
    make: Callable[[], Callable[[], object]]  # builds the inputs, returns one call
    target: float | None  # per item, in `unit`; None: no target, just a number
    unit: str = "us"  # "us" or "ns"
    per: int = 1  # items one call handles (chains in a batch)
    number: int = 200  # calls per timed sample
    repeat: int = 31  # timed samples; the median is reported


def _limb_inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    root = rng.normal(size=(n, 3))
    mid = root + rng.normal(size=(n, 3)) * 0.3
    end = mid + rng.normal(size=(n, 3)) * 0.3
    target = root + rng.normal(size=(n, 3)) * 0.4
    pole = root + rng.normal(size=(n, 3))
    return root, mid, end, target, pole


def _two_bone_single(with_pole):
    def make():
        root, mid, end, target, pole = (a[0] for a in _limb_inputs(1))
        p = pole if with_pole else None
        return lambda: two_bone_ik(root, mid, end, target, p)

    return make


def _two_bone_batch(n, with_pole):
    def make():
        root, mid, end, target, pole = _limb_inputs(n)
        p = pole if with_pole else None
        return lambda: two_bone_ik_batch(root, mid, end, target, p)

    return make


def _posed_humanoid(seed=0):
    rng = np.random.default_rng(seed)
    sk = humanoid60()
    pose = sk.rest_pose()
    pose.rotations[:] = quat_normalize(rng.normal(size=(len(sk), 4)))
    return sk, pose, rng


def _fk(kind):
    def make():
        sk, pose, _ = _posed_humanoid()
        return (lambda: sk.fk_matrices(pose)) if kind == "matrices" else (lambda: sk.fk(pose))

    return make


def _fk_clip(frames):
    def make():
        sk, pose, rng = _posed_humanoid()
        clip = Pose(quat_normalize(rng.normal(size=(frames, len(sk), 4))), np.broadcast_to(pose.translations, (frames, len(sk), 3)))
        return lambda: sk.fk_matrices(clip)

    return make


def _write_back(names):
    def make():
        sk, pose, rng = _posed_humanoid()
        chain = sk.chain_indices(names)
        start = sk.fk(pose)[0][chain]
        lengths = np.linalg.norm(np.diff(start, axis=0), axis=1)
        dirs = rng.normal(size=(len(chain) - 1, 3))
        dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
        solved = start[0] + np.concatenate(([[0.0, 0.0, 0.0]], np.cumsum(dirs * lengths[:, None], axis=0)))
        return lambda: write_chain_positions(sk, pose, chain, solved)

    return make


def _calibration():
    a = np.random.default_rng(0).random(60)
    return lambda: a * a


ARM = ["LeftArm", "LeftForeArm", "LeftHand"]
SPINE_TO_FINGER = ["Hips", "Spine", "Spine1", "Spine2", "LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand", "LeftIndex1", "LeftIndex2"]

CASES: list[Case] = [
    Case("calibration: a*a, 60 floats", _calibration, None, number=2000),
    Case("two_bone_ik, per call", _two_bone_single(False), 5.0, number=2000),
    Case("two_bone_ik with pole, per call", _two_bone_single(True), 5.0, number=2000),
    Case("two_bone_ik_batch 100k, per chain", _two_bone_batch(100_000, False), 50.0, "ns", 100_000, 1, 21),
    Case("two_bone_ik_batch 100k + pole, per chain", _two_bone_batch(100_000, True), 50.0, "ns", 100_000, 1, 21),
    Case("FK 60 joints (fk_matrices)", _fk("matrices"), 50.0, number=300),
    Case("FK 60 joints (fk, quaternions)", _fk("quats"), None, number=300),
    Case("FK 60 joints x 120 frames, per frame", _fk_clip(120), None, per=120, number=20),
    # The rig writes back ~5 chains a frame inside a 300 us frame budget, solves included.
    Case("write_chain_positions, 3 joints", _write_back(ARM), 25.0, number=500),
    Case("write_chain_positions, 10 joints", _write_back(SPINE_TO_FINGER), 50.0, number=300),
]

# ---- FABRIK rows (owned by the FABRIK engineer) ------------------------------------------
from benchmarks.bench_fabrik import bench_ik_cases  # noqa: E402  (cold/warm cases, also in bench_fabrik)

FABRIK_CASES: list[Case] = bench_ik_cases(Case)
# ---- end of FABRIK rows ----------------------------------------------------------------


def measure(case: Case, quick: bool) -> tuple[float, float, float]:
    """Median CPU time, best CPU time and median wall time per item, in the case's unit.

    CPU time (time.process_time) is the verdict: other work on the 2 cores stretches wall
    time while this process waits for a core, which says nothing about the code. On a quiet
    machine the two agree.
    """
    call = case.make()
    number = max(1, case.number // 10) if quick else case.number
    repeat = max(5, case.repeat // 3) if quick else case.repeat
    for _ in range(max(3, number // 10)):  # warm-up: caches, allocator, lazy imports
        call()
    scale = (1e6 if case.unit == "us" else 1e9) / (number * case.per)
    cpu, wall = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(number):
            call()
        cpu.append((time.process_time() - c0) * scale)
        wall.append((time.perf_counter() - w0) * scale)
    return statistics.median(cpu), min(cpu), statistics.median(wall)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    parser.add_argument("--only", default="", help="run the cases whose name contains one of these comma-separated texts")
    args = parser.parse_args(argv)
    wanted = [w.strip().lower() for w in args.only.split(",")]
    rows = [c for c in CASES + FABRIK_CASES if any(w in c.name.lower() for w in wanted)]
    if not rows:
        print(f"no case matches --only {args.only!r}", file=sys.stderr)
        return 2
    width = max(len(c.name) for c in rows)
    print(f"{'case':<{width}}  {'median cpu':>12}  {'best cpu':>11}  {'median wall':>12}  {'target':>9}  result")
    failed = 0
    for case in rows:
        median, best, wall = measure(case, args.quick)
        if case.target is None:
            verdict, target = "-", "-"
        else:
            ok = median <= case.target
            failed += not ok
            verdict, target = ("pass" if ok else "FAIL"), f"{case.target:g} {case.unit}"
        u = case.unit
        print(f"{case.name:<{width}}  {median:>9.2f} {u}  {best:>8.2f} {u}  {wall:>9.2f} {u}  {target:>9}  {verdict}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
