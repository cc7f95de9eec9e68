"""`rigedit report` of 100 CMU-size clips: `.venv/bin/python benchmarks/bench_report.py`.

The same 100 clips as bench_batch.py (500 frames each from the CMU walk, 120 fps, 31 joints,
each a little different), in a temporary folder, measured into one HTML report and JSON:

  (a) one process, the files one after the other through the job function (measure.report_job),
      modules imported and kernels loaded before the clock starts (the measuring alone);
  (b) the command as a user runs it, on the local workers (default: every core), wall clock
      from its start (process and worker start-up, the page and its plots included);
  (c) the same command with --scheduler on a two-worker LocalCluster (started before the clock);
  (d) (b) with the stills of each clip's worst frames drawn by the viewport (b and c pass
      --no-stills, so that they time the measuring and the page as before).

Prints a markdown table (total seconds, seconds per clip, speed-up against (a), the 60 s target
of issue 27) and the size of the page. The machine is shared: the load average is printed
before and after; numbers are indicative.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_batch import CLIPS, FRAMES, make_clips  # noqa: E402

TARGET_S = 60.0


def single_process(folder: Path) -> float:
    from rigedit.batch.jobs import Job
    from rigedit.batch.plan import find_clips
    from rigedit.report.measure import report_job

    jobs = [Job("report", str(src), (), rel.as_posix()) for src, rel in find_clips([str(folder)], Path(os.devnull))]
    report_job(jobs[0])  # imports and kernels before the clock
    t0 = time.perf_counter()
    bad = [r for job in jobs if (r := report_job(job)).status != "ok"]
    elapsed = time.perf_counter() - t0
    assert not bad, bad[:3]
    return elapsed


def command(folder: Path, out: Path, extra: list[str]) -> float:
    cmd = [sys.executable, "-m", "rigedit", "report", str(folder), "-o", str(out), "--json", str(out.with_suffix(".json")),
           "-q", "--force", *extra]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=None, help="local workers for (b) (default: the command's own, every core)")
    args = ap.parse_args()
    from distributed import LocalCluster

    from rigedit.batch.jobs import default_workers

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rigedit-bench-report-") as tmp:
        tmp = Path(tmp)
        clips = tmp / "clips"
        clips.mkdir()
        make_clips(clips)
        workers = args.workers or default_workers()
        single = single_process(clips)
        on = [] if args.workers is None else ["--workers", str(args.workers)]
        local = command(clips, tmp / "local.html", on + ["--no-stills"])
        size = (tmp / "local.html").stat().st_size
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as c:
            cluster = command(clips, tmp / "cluster.html", ["--scheduler", c.scheduler_address, "--no-stills"])
        stills = command(clips, tmp / "stills.html", on)
        stills_size = (tmp / "stills.html").stat().st_size
    load_after = os.getloadavg()
    print(f"`rigedit report` of {CLIPS} clips of {FRAMES} frames (CMU walk, 31 joints, 120 fps), "
          f"{os.cpu_count()} cores; load average before {load_before[0]:.2f}, after {load_after[0]:.2f}\n")
    print("| run | total s | s per clip | speed-up | <= 60 s |")
    print("|---|---:|---:|---:|---|")
    for label, s in (("(a) one process, in order (measures only)", single), (f"(b) {workers} local workers (command)", local),
                     ("(c) 2-worker LocalCluster (command)", cluster), ("(d) (b) with the stills", stills)):
        ok = "" if label.startswith(("(a)", "(d)")) else ("met" if s <= TARGET_S else "MISSED")
        print(f"| {label} | {s:.1f} | {s / CLIPS:.3f} | {single / s:.2f}x | {ok} |")
    print(f"\nthe page: {size / 1e6:.1f} MB (plotly.js inlined once, {CLIPS} clips' plots); "
          f"with the stills {stills_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
