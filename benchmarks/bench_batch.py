"""`rigedit batch` lint + bake of 100 CMU-size clips: `.venv/bin/python benchmarks/bench_batch.py`.

Makes 100 clips of 500 frames from the CMU walk (/work/shared/data/cmu_12_01_walk.bvh, 120 fps,
31 joints): each keeps the file's reference pose on frame 0 and takes 499 frames from its own
start, with its own offset of the root and a slow sway of its heading (a degree or two), in a
temporary folder. Then `rigedit batch lint` and `rigedit batch bake` over them:

  (a) one process, the files one after the other through the same job function (jobs.execute),
      modules imported and kernels loaded before the clock starts;
  (b) the command as a user runs it, on the local workers (default: every core), wall clock
      of the two commands from their start (process start and worker start-up included);
  (c) the same commands with --scheduler on a two-worker LocalCluster (loopback; started
      before the clock, as a user starts a cluster once).

Prints a markdown table (total seconds, seconds per clip, speed-up against (a), the 60 s
target of issue 17) and the worker start-up: a pool's first answer from every worker (the
forkserver's imports, once per command) and the first file's extra time in a fresh worker
(numba kernels loaded from the disk cache). The machine is shared: the load average is printed
before and after; numbers are indicative.
"""
from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WALK = Path("/work/shared/data/cmu_12_01_walk.bvh")
CLIPS, FRAMES = 100, 500
TARGET_S = 60.0  # lint + bake of the 100 clips with the local workers (issue 17)


def make_clips(folder: Path, n: int = CLIPS, frames: int = FRAMES) -> None:
    """n BVH files of `frames` frames from the CMU walk, each a little different (text edits of
    the MOTION lines: the file's own channels, no reading and writing through rigedit)."""
    lines = WALK.read_text().splitlines()
    m = lines.index("MOTION")
    header, motion = lines[: m + 1], [l.split() for l in lines[m + 3:] if l.strip()]
    frame_time = lines[m + 2]
    span = len(motion) - 1 - (frames - 1)  # where a window of the walk (after frame 0) can start
    for i in range(n):
        start = 1 + (i * 7) % span
        dx, dz = (i % 10) * 2.0, (i // 10) * 2.0  # inches: the CMU unit
        out = [" ".join(motion[0])]
        for f, row in enumerate(motion[start:start + frames - 1]):
            v = [float(x) for x in row]
            v[0] += dx
            v[2] += dz
            v[3] += 1.5 * math.sin(2 * math.pi * f / 240.0 + i)  # the root's Zrotation channel, degrees
            out.append(" ".join(f"{x:.4f}" for x in v))
        text = "\n".join(header + [f"Frames: {frames}", frame_time] + out) + "\n"
        (folder / f"walk_{i:03d}.bvh").write_text(text)


def single_process(folder: Path, out: Path) -> float:
    from rigedit.batch.jobs import execute, warm_up
    from rigedit.batch.plan import plan

    warm_up()
    lint, bake = plan("lint", [str(folder)], str(out / "lint")), plan("bake", [str(folder)], str(out / "bake"))
    execute(lint.jobs[0])  # kernels loaded (numba's disk cache) before the clock, as a warm worker has them
    execute(bake.jobs[0])
    t0 = time.perf_counter()
    bad = [r for job in lint.jobs + bake.jobs if (r := execute(job)).status != "ok"]
    elapsed = time.perf_counter() - t0
    assert not bad, bad[:3]
    return elapsed


def command(folder: Path, out: Path, extra: list[str]) -> float:
    t0 = time.perf_counter()
    for kind in ("lint", "bake"):
        cmd = [sys.executable, "-m", "rigedit", "batch", kind, str(folder), "-o", str(out / kind), "-q", *extra]
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return time.perf_counter() - t0


def worker_start(folder: Path, out: Path, workers: int) -> tuple[float, float, float]:
    """(seconds until every worker of a fresh pool has answered, the same for a pool of
    spawned workers (each importing everything itself), the first file's extra seconds in a
    fresh worker over the same file again)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, wait

    from rigedit.batch.jobs import execute_in_worker, warm_up
    from rigedit.batch.local import _pool
    from rigedit.batch.plan import plan

    def answered(make) -> float:
        t0 = time.perf_counter()
        pool = make()
        try:
            wait([pool.submit(warm_up) for _ in range(workers)])
            return time.perf_counter() - t0
        finally:
            pool.shutdown()

    started = answered(lambda: _pool(workers))  # the first pool of this process: the forkserver starts too
    spawned = answered(lambda: ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")))
    job = plan("lint", [str(folder)], str(out / "start"), force=True).jobs[0]
    pool = _pool(1)
    try:
        first = pool.submit(execute_in_worker, job).result().seconds
        again = pool.submit(execute_in_worker, job).result().seconds
    finally:
        pool.shutdown()
    return started, spawned, first - again


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=None, help="local workers for (b) (default: the command's own, every core)")
    args = ap.parse_args()
    from distributed import LocalCluster

    from rigedit.batch.jobs import default_workers

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rigedit-bench-batch-") as tmp:
        tmp = Path(tmp)
        clips = tmp / "clips"
        clips.mkdir()
        make_clips(clips)
        workers = args.workers or default_workers()
        single = single_process(clips, tmp / "single")
        local = command(clips, tmp / "local", [] if args.workers is None else ["--workers", str(args.workers)])
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as c:
            cluster = command(clips, tmp / "cluster", ["--scheduler", c.scheduler_address])
        started, spawned, first_extra = worker_start(clips, tmp, workers)
    load_after = os.getloadavg()
    print(f"`rigedit batch` lint + bake of {CLIPS} clips of {FRAMES} frames (CMU walk, 31 joints, 120 fps), "
          f"{os.cpu_count()} cores; load average before {load_before[0]:.2f}, after {load_after[0]:.2f}\n")
    print("| run | total s | s per clip | speed-up | <= 60 s |")
    print("|---|---:|---:|---:|---|")
    for label, s in ((f"(a) one process, in order", single), (f"(b) {workers} local workers (command)", local),
                     ("(c) 2-worker LocalCluster (command)", cluster)):
        ok = "" if label.startswith("(a)") else ("met" if s <= TARGET_S else "MISSED")
        print(f"| {label} | {s:.1f} | {s / CLIPS:.3f} | {single / s:.2f}x | {ok} |")
    print(f"\nworker start-up: {started:.2f} s until all {workers} workers of a command's pool answered (the "
          f"forkserver imports once, workers fork from it; spawned workers importing by themselves: {spawned:.2f} s); "
          f"a fresh worker's first file {first_extra:+.2f} s over the same file again (kernels loaded from numba's cache)")


if __name__ == "__main__":
    main()
