"""One file's work in a batch: the job a worker is sent and the result it sends back.

`execute(job)` is the one function every runner calls (in this process, in a local process
pool, on a Dask worker). It calls the functions the single-file commands call
(import_cli.imported_rig / put_clip_under / bake_to_bvh, lint_cli.lint_file,
retarget_cli.retarget_file) and never raises for a bad file: every error comes back in the
Result, named after the file, so one broken clip never stops the batch.

Jobs and results are plain picklable data with absolute paths, so a worker on another machine
can run them when it sees the same file system.
"""
from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass

from rigedit.cli_errors import error_line

# Every job's modules: imported once by a worker before its first job (warm_up), and by the
# forkserver a local pool's workers are forked from, so each fork starts with them loaded.
MODULES = (
    "rigedit.core.bake",
    "rigedit.core.lint",
    "rigedit.core.lint.fix",
    "rigedit.io.bvh",
    "rigedit.io.gltf",
    "rigedit.io.loaded",
    "rigedit.io.export",
    "rigedit.io.export_gltf",
    "rigedit.io.preset",
    "rigedit.import_cli",
    "rigedit.lint_cli",
    "rigedit.retarget_cli",
    "rigedit.core.retarget",
)

# ok: done; exists: its outputs were there already (not redone without --force); skipped: an
# input that is not a clip (another kind of file, a folder named like one: plan.py says which);
# error: the file could not be read or written (the message says why); unreadable: a clip or
# folder the plan could not open; crashed: the worker process died on it, twice (once more
# alone); not run: the batch was interrupted first.
STATUSES = ("ok", "exists", "skipped", "error", "unreadable", "crashed", "not run")
WORKED = ("ok", "exists", "skipped")


@dataclass(frozen=True)
class Job:
    kind: str  # "bake", "lint" or "retarget"
    source: str  # absolute path of the clip
    outputs: tuple[str, ...]  # absolute paths; the last is written last, so its presence means done
    name: str  # the clip as the summary shows it: relative to the folder or glob it came from
    rig: str | None = None  # bake, lint: a preset (--rig); retarget: the skeleton to retarget onto (--onto)
    fix: bool = False  # lint: write the repaired clip too (outputs[0])
    # retarget: retarget_file's keywords as (name, value) pairs, every option of the command
    options: tuple[tuple[str, object], ...] = ()
    force: bool = False


@dataclass
class Result:
    name: str
    status: str  # one of STATUSES
    seconds: float = 0.0
    outputs: tuple[str, ...] = ()
    detail: str = ""  # what was made or found, one line
    findings: dict[str, int] | None = None  # lint: findings per kind
    error: str = ""

    def to_dict(self) -> dict:
        d = {"file": self.name, "status": self.status, "seconds": round(self.seconds, 3),
             "outputs": list(self.outputs), "detail": self.detail, "error": self.error}
        if self.findings is not None:
            d["findings"] = self.findings
        return d


def warm_up() -> float:
    """Import every job's modules (a worker's start-up); returns the seconds it took."""
    import importlib

    t0 = time.perf_counter()
    for m in MODULES:
        importlib.import_module(m)
    return time.perf_counter() - t0


def execute(job: Job) -> Result:
    """Run one job; never raises for what a file holds (the error is in the Result)."""
    t0 = time.perf_counter()
    try:
        for folder in {os.path.dirname(o) for o in job.outputs}:
            os.makedirs(folder, exist_ok=True)  # a clip's subfolder, mirrored under OUTDIR
        detail, findings = RUN[job.kind](job)
    except (ValueError, OSError) as e:  # unreadable or unwritable input/output: the user's to fix
        return Result(job.name, "error", time.perf_counter() - t0, error=error_line(e, job.source, *job.outputs, job.rig))
    except Exception as e:  # noqa: BLE001 - a bug met on one file must not stop the others
        return Result(job.name, "error", time.perf_counter() - t0,
                      error=f"{job.source}: unexpected {type(e).__name__}: {e} (a rigedit bug: please report it with the file)")
    return Result(job.name, "ok", time.perf_counter() - t0, job.outputs, detail, findings)


def execute_in_worker(job: Job) -> Result:
    """execute() for a pool or cluster worker: numba's parallel kernels on one thread there,
    as the batch already keeps every core busy with a file each (the setting is per thread,
    so it is made for the thread running the job)."""
    import numba

    numba.set_num_threads(1)
    warm_up()  # a no-op after the worker's first job; outside execute's clock, so per-file times leave it out
    return execute(job)


def _bake(job: Job):
    from rigedit.import_cli import bake_to_bvh, imported_rig, put_clip_under
    from rigedit.io.clip_source import bvh_layout

    if job.rig:
        from rigedit.io.preset import load_preset

        rig = load_preset(job.rig)
        layout = put_clip_under(rig, job.source)
    else:
        rig, _, _ = imported_rig(job.source)
        if rig.clip is None:
            raise ValueError(f"{job.source}: the file has no animation to bake")
        layout = bvh_layout(rig.clip.source)
    result = bake_to_bvh(rig, layout, job.outputs[-1])
    missed = [f"{name} reached {int(r.sum())}/{len(r)}" for name, r in result.reached.items() if not r.all()]
    chains = len(result.errors)
    detail = f"{result.clip.n_frames} frames, {chains} chain{'' if chains == 1 else 's'}"
    return (f"{detail}; {', '.join(missed)}" if missed else detail), None


def _lint(job: Job):
    from rigedit.io.atomic import atomic_write_text
    from rigedit.lint_cli import lint_file

    # force: the plan applied the overwrite rule per clip (io/overwrite.py); an output here
    # without its report is this job's own, left by a run stopped between the two.
    linted = lint_file(job.source, rig=job.rig, fix_output=job.outputs[0] if job.fix else None, force=True)
    # The report last: a batch stopped between the two finds the job not done and redoes it.
    atomic_write_text(job.outputs[-1], json.dumps(linted.to_dict(), indent=2) + "\n", backup=False)
    findings = dict(Counter(f.kind for f in linted.report.findings))
    detail = describe_findings(findings)
    if linted.fixed is not None:
        detail += f"; repaired {len(linted.fixed.repaired)}"
    return detail, findings


def _retarget(job: Job):
    from rigedit.retarget_cli import retarget_file

    # force: the plan applied the overwrite rule per clip (io/overwrite.py): a job whose
    # output is there is only handed over under --force.
    s = retarget_file(job.source, job.rig, job.outputs[-1], force=True, **dict(job.options))
    detail = (f"{s.frames} frames, {len(s.chains)} chains mapped, {s.contacts} foot contacts locked, "
              f"max foot slide {1000 * s.max_foot_slide:.1f} mm")
    return detail + "".join(f"; warning: {w}" for w in s.warnings), None


RUN = {"bake": _bake, "lint": _lint, "retarget": _retarget}


def describe_findings(findings: dict[str, int]) -> str:
    n = sum(findings.values())
    if not n:
        return "no findings"
    kinds = ", ".join(f"{c} {k}" for k, c in sorted(findings.items(), key=lambda kc: (-kc[1], kc[0])))
    return f"{n} finding{'' if n == 1 else 's'}: {kinds}"


def findings_in(report_path: str) -> dict[str, int] | None:
    """Findings per kind in a lint report written before (a skipped job's), None if unreadable."""
    try:
        with open(report_path, encoding="utf-8") as f:
            data = json.load(f)
        return dict(Counter(str(f["kind"]) for f in data["findings"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def default_workers() -> int:
    """The cores this process may run on (a container's or taskset's limit, not the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
