"""`rigedit report`: the motion quality of clips as an HTML page that opens offline, and as JSON.

    rigedit report INPUT... -o report.html [--json FILE] [--rig PRESET] [--no-stills] [--force]
    rigedit report --compare A B -o compare.html [--json FILE] [--rig PRESET] [--force]
        common: [--workers N | --scheduler ADDRESS] [-q]

The measures are rigedit/core/quality's (foot skate, contacts and slide, ground and self
penetration, jitter, joint limits with --rig, lint findings), per clip on its own skeleton in
units of its height; the page is rigedit/report/page.py's, with stills of each clip's worst
frames drawn by the editor's viewport (rigedit/report/stills.py, after the measuring, in one
child process) unless --no-stills. Clips run through the batch machinery (rigedit/batch): in
this process for one clip or --workers 1, else on local worker processes or a Dask cluster. A
file that cannot be read is listed with its error and the others are measured. Exit status: 0
when every file was measured, 1 when some were not (or nothing could be written), 130 on Ctrl+C.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rigedit.cli_errors import fail
from rigedit.io.overwrite import check_output  # the table only: no numpy behind it

EPILOG = """\
INPUT is a folder (its .bvh, .glb and .gltf files, subfolders included), a quoted glob
('takes/**/*.bvh') or files. --compare A B takes two files, or two folders whose clips are
matched by name (walk.bvh with walk.glb), and shows each measure side by side with the
change (B - A): a source against its `rigedit lint --fix` output or a retarget.
--json keys (units in the names; shares of frames 0..1; lengths in figure heights unless
in mm): foot_skate_share, foot_contact_share, grounded_share, locked_share, locked_spans,
slide_mm, slide_per_height, contacts{left,right}, ground_penetration_share,
ground_penetration_max_height, ground_penetration_max_mm, self_penetration_frame_share,
self_penetration_point_share, self_penetration_max_height, self_penetration_parts,
jitter_mean_jerk_height_per_s3, jitter_spike_count, jitter_spike_frames, limit_max_deg,
limit_seconds, limit_share, limit_joints, lint_findings{kind:{severity:n}}, height_m,
fault_share_sum, notes (rigedit/core/quality/result.py says what each one is)."""


def _parser() -> argparse.ArgumentParser:
    from rigedit.batch_cli import _workers

    p = argparse.ArgumentParser(prog="rigedit report", description="Measure the motion quality of clips (foot skate, "
                                "contacts, ground and self penetration, jitter, limits, lint findings) into an HTML "
                                "report that opens offline, and JSON.", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="*", metavar="INPUT", help="clip files, folders or quoted globs")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two files or two folders, side by side")
    p.add_argument("-o", "--output", required=True, metavar="REPORT.html", help="the HTML report to write")
    p.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    p.add_argument("--rig", metavar="PRESET", help="a rig preset whose chains and joint limits to measure with")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_workers, metavar="N", help="local worker processes (default: every core)")
    where.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler's address, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--no-stills", action="store_true", help="no stills of each clip's worst frames on a library report "
                   "(they need OpenGL and a display or xvfb-run; without either the page says why it has none)")
    p.add_argument("--force", action="store_true", help="overwrite the report and JSON files if they exist")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return p


def _check_output(path: str, suffixes: tuple[str, ...], force: bool) -> None:
    if Path(path).suffix.lower() not in suffixes:
        raise ValueError(f"{path}: write the report to a {' or '.join(suffixes)} file")
    check_output(path, force=force)


def cmd_report(argv: list[str]) -> int:
    p = _parser()
    args = p.parse_args(argv)
    if bool(args.inputs) == bool(args.compare):
        p.error("give INPUT... or --compare A B (one of the two)")
    from rigedit.batch.jobs import Job
    from rigedit.batch.plan import PlanError, find_clips

    try:
        _check_output(args.output, (".html", ".htm"), args.force)
        if args.json:
            _check_output(args.json, (".json",), args.force)
        rig = None
        if args.rig:
            from rigedit.io.preset import load_preset

            load_preset(args.rig)  # once here: a broken preset stops the report before it starts
            rig = str(Path(args.rig).resolve())
        if args.compare:
            from rigedit.report.pairs import pair_inputs

            pairs, unmatched = pair_inputs(*args.compare)
            jobs = [Job("report", str(Path(f).resolve()), (), f"{side}:{name}", rig=rig)
                    for name, a, b in pairs for side, f in (("A", a), ("B", b))]
        else:
            clips = find_clips(args.inputs, Path(os.devnull))
            jobs = [Job("report", str(src), (), rel.as_posix(), rig=rig) for src, rel in clips]
    except (PlanError, ValueError) as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        return fail(e, args.output)
    t0 = time.perf_counter()
    try:
        results, where, interrupted = _run(args, jobs)
    except RuntimeError as e:  # ClusterError: no cluster to run on
        print(e, file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - t0
    header = f"{len(jobs)} clip{'' if len(jobs) == 1 else 's'} measured in {elapsed:.1f} s on {where}" + (f", with the chains and limits of {args.rig}" if args.rig else "")
    stills_line = ""
    if args.compare:
        page, data, failed = _compare(args, pairs, unmatched, results, header)
    else:
        page, data, failed, stills_line = _library(jobs, results, header, not args.no_stills)
    if page is None:
        for r in failed:
            print(r.error, file=sys.stderr)
        print(f"{args.output}: not written: no clip could be measured", file=sys.stderr)
        return 1
    try:
        _write(args, page, data)
    except OSError as e:
        return fail(e, args.output)
    for r in failed:
        print(r.error or f"{r.name}: {r.status}", file=sys.stderr)
    print(f"wrote {args.output}" + (f" and {args.json}" if args.json else "") + f": {header}")
    if stills_line:
        print(stills_line, file=sys.stderr if stills_line.startswith("no stills") else sys.stdout)
    if interrupted:
        print("interrupted: the report holds the clips measured before Ctrl+C", file=sys.stderr)
        return 130
    return 1 if failed else 0


def _run(args, jobs):
    from rigedit.progress import progress_bar
    from rigedit.report.measure import run_jobs

    results: dict = {}
    bar = progress_bar("report", args.quiet or len(jobs) == 1)
    with bar as step:
        def on_result(r) -> None:
            results[r.name] = r
            if r.status != "ok":
                bar.note(r.error or f"{r.name}: {r.status}")
            if step is not None:
                step(len(results), len(jobs))

        try:
            where = run_jobs(jobs, on_result, workers=args.workers, scheduler=args.scheduler)
        except KeyboardInterrupt:
            return results, "interrupted", True
    return results, where, False


def _measured(r) -> bool:
    return r is not None and r.status == "ok" and getattr(r, "summary", None) is not None


def _library(jobs, results, header, stills: bool):
    """(page, JSON data, failed results, a line about the stills for the command's output)."""
    from rigedit.batch.jobs import Result
    from rigedit.report.page import library_page
    from rigedit.report.stills import add_stills

    done = [results[j.name] for j in jobs if _measured(results.get(j.name))]
    failed = [results.get(j.name) or Result(j.name, "not run", error=f"{j.source}: not run (interrupted)")
              for j in jobs if not _measured(results.get(j.name))]
    done.sort(key=lambda m: (-m.summary["fault_share_sum"], m.name))
    if not done:
        return None, None, failed, ""
    t0 = time.perf_counter()
    note = add_stills(done) if stills else ""
    line = note or (_stills_line(done, time.perf_counter() - t0) if stills else "")
    data = {"command": "report", "summary": header,
            "clips": [{"clip": m.name, "file": m.path, **m.summary} for m in done],
            "errors": [{"clip": r.name, "error": r.error or r.status} for r in failed]}
    return library_page(done, failed, header, note), data, failed, line


def _stills_line(done, seconds: float) -> str:
    n = sum(len(m.stills) for m in done)
    bad = [f"{m.name}: {m.stills_error}" for m in done if m.stills_error]
    return f"stills: {n} of the worst frames, drawn by the viewport in {seconds:.1f} s" + (f"; none for {'; '.join(bad)}" if bad else "")


def _compare(args, pairs, unmatched, results, header):
    from rigedit.report.page import compare_page
    from rigedit.report.pairs import change

    rows, failed = [], []
    for name, _, _ in pairs:
        a, b = results.get(f"A:{name}"), results.get(f"B:{name}")
        bad = [r for r in (a, b) if not _measured(r)]
        if bad:
            failed += [r for r in bad if r is not None]
            continue
        rows.append((name, a, b, change(a.summary, b.summary)))
    if not rows:
        return None, None, failed
    labels = tuple(args.compare)
    data = {"command": "report --compare", "a": labels[0], "b": labels[1], "summary": header,
            "pairs": [{"clip": n, "a_file": a.path, "b_file": b.path, "a": a.summary, "b": b.summary, "change": d} for n, a, b, d in rows],
            "unmatched": unmatched, "errors": [{"clip": r.name, "error": r.error or r.status} for r in failed]}
    return compare_page(rows, unmatched, labels, header), data, failed


def _write(args, page: str, data: dict) -> None:
    from rigedit.io.atomic import atomic_write_text

    atomic_write_text(args.output, page, backup=False)
    if args.json:
        atomic_write_text(args.json, json.dumps(data, indent=2) + "\n", backup=False)
