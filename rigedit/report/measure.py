"""One clip file measured (rigedit/core/quality), as plain data a worker sends back, and many
run through the batch machinery (rigedit/batch): in this process for one file or --workers 1,
else on local worker processes or a Dask cluster, as `rigedit batch` runs them.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from rigedit.batch.jobs import Job, Result


@dataclass
class Measured(Result):
    """A batch Result with the clip's measures: summary (core/quality/result.py's keys) and
    tracks (per-frame series for the plots); None when the file could not be measured."""

    path: str = ""
    summary: dict | None = None
    tracks: dict | None = None
    about: dict = field(default_factory=dict)  # the skeleton: joints, chains used, feet (for the page)
    stills: list = field(default_factory=list)  # report/stills.py's Still images, drawn after measuring
    stills_error: str = ""  # why this clip's stills are missing, when they are


def measure_file(path: str, rig: str | None = None, animation: str | None = None):
    """(summary, tracks, about) of the clip in `path` (any clip format of io/formats.py), with the chains and
    limits of the preset `rig` when given. ValueError or OSError naming the file otherwise."""
    from rigedit.core.quality import measure_clip
    from rigedit.lint_cli import load_clip, rig_chains

    loaded = load_clip(path, animation, command="measure")
    chains, limits = rig_chains(rig, loaded.skeleton) if rig else (None, None)
    mesh, mesh_note = _mesh(path, loaded)
    q = measure_clip(loaded.skeleton, loaded.clip, chains, limits=limits, euler=loaded.source.bvh_angles, mesh=mesh)
    b = q.body
    names = loaded.skeleton.names
    about = {"joints": len(names), "chains": [c[0] for c in q.lint.chains],
             "feet": {s: [names[j] for j in pts] for s, pts in b.feet.items()},
             "mesh": mesh_note if mesh is None else f"{len(mesh)} vertices"}
    summary = q.summary()
    if mesh is not None and q.mesh_pen is None:
        summary["notes"].append("the mesh has no forearm, hand, shin or foot vertices on the limbs found: mesh penetration not measured")
    elif mesh_note:
        summary["notes"].append(mesh_note)
    return summary, q.tracks(), about


def _mesh(path: str, loaded):
    """(the file's skinned mesh or None, a note when it has one that could not be read)."""
    reader = loaded.format.mesh_reader()
    if reader is None:
        return None, ""
    try:
        mesh, warnings = reader(path, loaded)
    except ValueError as e:
        return None, f"mesh not measured: {e}"
    return mesh, "" if mesh is not None else "; ".join(warnings)


def report_job(job: Job) -> Measured:
    """The batch job function (module level, so pool and cluster workers can import it):
    never raises for what a file holds; the error comes back in the result."""
    t0 = time.perf_counter()
    try:
        summary, tracks, about = measure_file(job.source, job.rig)
    except (ValueError, OSError) as e:
        text = f"{e.filename or job.source}: {e.strerror}" if isinstance(e, OSError) and e.strerror else str(e)
        text = text if job.source in text or (job.rig and job.rig in text) else f"{job.source}: {text}"
        return Measured(job.name, "error", time.perf_counter() - t0, error=text, path=job.source)
    except Exception as e:  # noqa: BLE001 - a bug met on one file must not stop the others
        return Measured(job.name, "error", time.perf_counter() - t0, path=job.source,
                        error=f"{job.source}: unexpected {type(e).__name__}: {e} (a rigedit bug: please report it with the file)")
    detail = f"{summary['frames']} frames, foot skate {summary['foot_skate_share']}" if summary["foot_skate_share"] is not None else f"{summary['frames']} frames"
    return Measured(job.name, "ok", time.perf_counter() - t0, detail=detail, path=job.source,
                    summary=summary, tracks=tracks, about=about)


def report_in_worker(job: Job) -> Measured:
    """report_job on a pool or cluster worker: numba on one thread there, as the batch keeps
    every core busy with a file each."""
    import numba

    numba.set_num_threads(1)
    return report_job(job)


def run_jobs(jobs: list[Job], on_result: Callable[[Result], None], *, workers: int | None = None,
             scheduler: str | None = None) -> str:
    """Measure every job, calling on_result as each ends; returns where they ran. A crashed
    worker's file comes back as a plain Result (status "crashed"), without measures."""
    if scheduler:
        from rigedit.batch.cluster import run_cluster

        n = run_cluster(jobs, scheduler, on_result, function=report_in_worker)
        return f"the Dask cluster at {scheduler} ({n} worker{'' if n == 1 else 's'})"
    from rigedit.batch.jobs import default_workers
    from rigedit.batch.local import run_local

    n = min(workers or default_workers(), len(jobs))
    if n <= 1:
        for job in jobs:
            on_result(report_job(job))
        return "this process"
    run_local(jobs, n, on_result, function=report_in_worker)
    return f"{n} local worker{'' if n == 1 else 's'}"
