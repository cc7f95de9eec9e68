"""Run a batch's jobs on local worker processes (concurrent.futures).

Workers are forked from a forkserver that has imported every job's modules once (jobs.MODULES),
so a worker starts in a fraction of a second and loads the numba kernels from numba's disk
cache on its first file (spawn where there is no forkserver: each worker imports them itself).

A worker that dies (a crash in native code, the kernel's out-of-memory killer) breaks a
concurrent.futures pool and fails every file in flight, not just its own. So at most two files
a worker are in flight at once, and when the pool breaks each of them is run again alone in a
pool of its own: the one that kills its worker again is reported as crashed, the others
finish, and the batch goes on in a new pool.

Ctrl+C stops the workers at once (SIGTERM: a worker leaves its job through SystemExit, so an
atomic write in progress removes its temporary file) and raises KeyboardInterrupt to the caller,
after reporting nothing for the files that were in progress.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterable

from .jobs import MODULES, Job, Result, execute_in_worker

IN_FLIGHT_PER_WORKER = 2  # one running, one queued: no worker waits for the parent between files

CRASH = ("the worker process died on this file (a crash in native code, or killed by the system, "
         "e.g. for memory); the batch went on without it")


def run_local(jobs: Iterable[Job], workers: int, on_result: Callable[[Result], None], *,
              function: Callable[[Job], Result] = execute_in_worker) -> None:
    """Run every job on `workers` processes, calling on_result(result) in the parent as each
    one ends (in the order they end). `function` is the job function (module level, picklable)."""
    pending = list(jobs)[::-1]  # popped from the end: in order
    pool = _pool(workers)
    inflight: dict[Future, Job] = {}
    try:
        while pending or inflight:
            while pending and len(inflight) < workers * IN_FLIGHT_PER_WORKER:
                job = pending.pop()
                inflight[pool.submit(_call, function, job)] = job
            finished, _ = wait(inflight, return_when=FIRST_COMPLETED)
            broken = _collect(finished, inflight, on_result)
            if broken:
                # Every file in flight fails with the pool; which one killed it is not known.
                wait(inflight)
                broken += _collect(list(inflight), inflight, on_result)
                pool.shutdown(wait=True)
                for job in broken:
                    on_result(_alone(job, function))
                pool = _pool(workers)
    except KeyboardInterrupt:
        _stop(pool)
        _collect([f for f in inflight if f.done() and not f.cancelled()], inflight, on_result)  # those that got in first
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _collect(finished, inflight: dict[Future, Job], on_result) -> list[Job]:
    """Report the finished futures' results; returns the jobs the broken pool took down."""
    broken = []
    for fut in finished:
        job = inflight.pop(fut)
        result = _result(fut, job)
        if result is None:
            broken.append(job)
        else:
            on_result(result)
    return broken


def _call(function, job: Job) -> Result:
    try:
        return function(job)
    except SystemExit:
        # _leave's, once the job's atomic write (if any) has removed its temporary file: the
        # pool's worker loop would otherwise report it as the job's result and take another.
        os._exit(1)


def _result(fut: Future, job: Job) -> Result | None:
    """The job's result, an error result, or None when the pool broke under it."""
    try:
        return fut.result()
    except BrokenProcessPool:
        return None
    except Exception as e:  # noqa: BLE001 - e.g. a result that cannot be pickled back: still that file's error
        return Result(job.name, "error", error=f"{job.source}: {type(e).__name__}: {e}")


def _alone(job: Job, function) -> Result:
    pool = _pool(1)
    try:
        result = _result(pool.submit(_call, function, job), job)
    except KeyboardInterrupt:
        _stop(pool)
        raise
    finally:
        pool.shutdown(wait=True)
    return Result(job.name, "crashed", error=f"{job.source}: {CRASH}") if result is None else result


def _pool(workers: int) -> ProcessPoolExecutor:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        # Only read when the forkserver starts (once per process); later pools reuse it.
        ctx.set_forkserver_preload(list(MODULES))
    else:
        ctx = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_start)


def _worker_start() -> None:
    # Ctrl+C in a terminal reaches every process of the group: the parent alone decides what
    # stops, so workers ignore it; the parent's SIGTERM makes them leave their job as SystemExit.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _leave)
    from .jobs import warm_up

    warm_up()


def _leave(signum, frame) -> None:
    raise SystemExit(128 + signum)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop every worker now (Python 3.14 has pool.terminate_workers(); before it, the pool's
    processes are only reachable through its private table)."""
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        if proc.is_alive():
            proc.terminate()
