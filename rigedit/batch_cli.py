"""`rigedit batch`: every clip of a folder through bake, lint or retarget, on all local cores
or on a Dask cluster.

    rigedit batch bake INPUT... -o OUTDIR [--rig PRESET]
    rigedit batch lint INPUT... -o OUTDIR [--rig PRESET] [--fix]
    rigedit batch retarget INPUT... -o OUTDIR --onto PRESET|CHARACTER.glb [rigedit retarget's options]
        common: [--workers N | --scheduler ADDRESS] [--force] [-q]

Each clip goes through the functions its single-file command uses (rigedit/batch/jobs.py);
where its outputs go is in rigedit/batch/plan.py. A file that cannot be read is reported with
its error and the batch goes on; outputs already there are skipped unless --force; what a
folder holds that is not a clip is listed as skipped, with the reason. Exit status: 0 when
every file worked (or was there already), 1 when some did not (an error, an unreadable input,
a worker that died on it), 130 on Ctrl+C.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

from rigedit.cli_errors import fail
from rigedit.io import formats  # the table only: no numpy behind it

EPILOG = f"""\
INPUT is a folder (its {formats.listing(formats.CLIPS)} files, subfolders included), a quoted glob
('takes/**/*.bvh') or files. Outputs in OUTDIR keep the clips' subfolders:
  bake      NAME.bvh: the clip imported with IK chains proposed (as rigedit import) and baked
            (as rigedit bake); with --rig, that preset's IK baked over the clip (as
            rigedit bake PRESET --clip CLIP)
  lint      NAME.lint.json: the findings (as rigedit lint --json); with --fix, NAME.EXT repaired
  retarget  NAME.bvh: the clip on the --onto preset's or glTF character's skeleton (as
            rigedit retarget, with the same options: --root, --no-foot-lock, --no-ground,
            --no-arm-space, --animation; core/retarget/options.py lists them)
and batch-KIND.json, the summary table's rows (rewritten by every run).
Clips whose outputs are there already are skipped unless --force. Other files and folders
named like clips are listed as skipped, files that cannot be opened as unreadable, each with
the reason. A file whose worker process dies is run once more, alone; if it kills that one
too it is listed as crashed. Exit status: 0 when every file worked (or was there already),
1 when some did not (each with its error in the table), 130 after Ctrl+C (run the same
command again to go on).
--scheduler runs on a Dask cluster (pip install 'rigedit[cluster]'): start `dask scheduler`,
then `dask worker ADDRESS` on each machine; the workers must see the same files."""

KINDS = {
    "bake": "import each clip with IK chains proposed (or under --rig) and bake it to BVH",
    "lint": "lint each clip into a JSON report (and --fix it)",
    "retarget": "retarget each clip onto the --onto preset's or glTF character's skeleton",
}


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of processes, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rigedit batch", description="Run every clip of a folder through bake, lint or retarget, "
                                "on all local cores or on a Dask cluster, with one progress bar and a summary table.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="kind", required=True, metavar="{bake,lint,retarget}")
    for kind, text in KINDS.items():
        s = sub.add_parser(kind, help=text, description=f"rigedit batch {kind}: {text}.", epilog=EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        s.add_argument("inputs", nargs="+", metavar="INPUT", help="a folder, a quoted glob, or clip files")
        s.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="the folder to write into (made if missing)")
        where = s.add_mutually_exclusive_group()
        where.add_argument("--workers", type=_workers, metavar="N", help="local worker processes (default: every core)")
        where.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler's address, e.g. tcp://10.0.0.5:8786")
        s.add_argument("--force", action="store_true", help="redo clips whose outputs are there already")
        s.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
        if kind == "retarget":
            from rigedit.retarget_flags import add_file_flags, add_option_flags

            s.add_argument("--onto", required=True, metavar="TARGET", help="the rig preset, bundled preset's name (humanoid) "
                           "or glTF character (.glb/.gltf) whose skeleton the clips go onto")
            add_file_flags(s)  # the flags of `rigedit retarget`, from the same list
            add_option_flags(s)
        else:
            s.add_argument("--rig", metavar="PRESET", help="a rig preset whose chains (and limits) to use (default: proposed per clip)")
        if kind == "lint":
            s.add_argument("--fix", action="store_true", help="also write each clip repaired, in its own format")
    return p


def cmd_batch(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from rigedit.batch.plan import PlanError, plan

    rig = args.onto if args.kind == "retarget" else args.rig
    try:
        # Once here: a broken preset stops the batch before it starts, rather than failing every file.
        if args.kind == "retarget":
            rig = _onto(args)
        elif rig is not None:
            from rigedit.io.preset import load_preset

            load_preset(rig)
        todo = plan(args.kind, args.inputs, args.output, rig=rig, fix=getattr(args, "fix", False), force=args.force)
        if args.kind == "retarget":
            from rigedit.retarget_flags import file_values, option_values

            given = tuple({**file_values(args), **option_values(args)}.items())
            todo.jobs = [replace(j, options=given) for j in todo.jobs]  # each file's retarget_file gets them all
        os.makedirs(args.output, exist_ok=True)
    except (PlanError, ValueError) as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        return fail(e, args.output)
    results, where, interrupted, t0 = list(todo.done), "", False, time.perf_counter()
    if todo.jobs:
        try:
            where, interrupted = _run(args, todo.jobs, results)
        except RuntimeError as e:  # ClusterError: no cluster to run on, nothing was run
            print(e, file=sys.stderr)
            return 1
    elapsed = time.perf_counter() - t0
    finished = {r.name for r in results}
    from rigedit.batch.jobs import WORKED, Result

    results += [Result(j.name, "not run", error="interrupted") for j in todo.jobs if j.name not in finished]
    results.sort(key=lambda r: r.name)
    from rigedit.batch.summary import counts, print_table, write_json

    ran = f" in {elapsed:.1f} s on {where}" if where else " (nothing to run)"
    footer = f"{len(results)} file{'' if len(results) == 1 else 's'}: {counts(results)}{ran}"
    print_table(args.kind, results, args.output, footer)
    summary = os.path.join(args.output, f"batch-{args.kind}.json")
    try:
        write_json(summary, args.kind, results, {"inputs": args.inputs, "outdir": os.path.abspath(args.output),
                                                 "ran_on": where, "seconds": round(elapsed, 3)})
    except OSError as e:
        return fail(e, summary)
    if interrupted:
        print("interrupted: the files in progress were stopped; run the same command again to go on", file=sys.stderr)
        return 130
    return 0 if all(r.status in WORKED for r in results) else 1


def _onto(args) -> str:
    """The target as a file (a bundled preset's name found), read once here; ValueError otherwise."""
    from rigedit.retarget_cli import onto_preset, read_target

    if args.only_result:
        raise ValueError("--only-result drops a glTF character's own animations from a glTF output; "
                         "the batch writes BVH, which has none: leave it out")
    if formats.GLTF.matches(args.onto):
        read_target(args.onto)
        return args.onto
    return onto_preset(args.onto)[1]


def _run(args, jobs, results) -> tuple[str, bool]:
    """Run the jobs with one progress bar; (where they ran, whether Ctrl+C stopped them)."""
    from rigedit.batch.jobs import WORKED
    from rigedit.batch.plan import largest_first
    from rigedit.progress import progress_bar

    jobs = largest_first(jobs)
    bar = progress_bar(f"batch {args.kind}", args.quiet)
    with bar as step:
        def on_result(r) -> None:
            results.append(r)
            if r.status not in WORKED:
                bar.note(f"{r.status}: {r.error}")
            if step is not None:
                step(len(results) - before, len(jobs))

        before = len(results)
        if step is not None:
            step(0, len(jobs))
        try:
            if args.scheduler:
                from rigedit.batch.cluster import run_cluster

                where = f"the Dask cluster at {args.scheduler}"
                n = run_cluster(jobs, args.scheduler, on_result)
                where += f" ({n} worker{'' if n == 1 else 's'})"
            else:
                from rigedit.batch.jobs import default_workers
                from rigedit.batch.local import run_local

                n = min(args.workers or default_workers(), len(jobs))
                where = f"{n} local worker{'' if n == 1 else 's'}"
                run_local(jobs, n, on_result)
        except KeyboardInterrupt:
            return where, True
    return where, False
