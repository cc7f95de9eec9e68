"""Run a batch's jobs on a Dask cluster (dask.distributed, the optional extra rigedit[cluster]).

The same job function as the local workers (jobs.execute_in_worker) is submitted once per
clip through a Client connected to the scheduler's address. The workers open the clips and
write the outputs at the paths in the jobs (absolute), so they must see the same files (one
machine, or a shared disk) and have rigedit installed.

    dask scheduler                        # prints its address, e.g. tcp://192.168.1.10:8786
    dask worker tcp://192.168.1.10:8786   # on each machine, as many as you like
    rigedit batch lint takes/ -o reports/ --scheduler tcp://192.168.1.10:8786

A worker that dies on a file is replaced by its nanny, and the scheduler gives the file to
other workers a few times (its `allowed-failures`) before giving up on it with KilledWorker.
The files that were queued on the dying worker can be given up on with it, so each file
given up on is run once more, alone, after the others: the one that kills a worker again is
reported as crashed, the others finish.
"""
from __future__ import annotations

import uuid
from typing import Callable, Iterable

from .jobs import Job, Result, execute_in_worker
from .local import CRASH

INSTALL = "pip install 'rigedit[cluster]'"
CONNECT_TIMEOUT_S = 20  # a scheduler that has not answered by then is not coming


class ClusterError(RuntimeError):
    """No cluster to run on: dask.distributed missing, or the scheduler not reachable."""


def run_cluster(jobs: Iterable[Job], address: str, on_result: Callable[[Result], None], *,
                function: Callable[[Job], Result] = execute_in_worker) -> int:
    """Run every job on the cluster at `address`, calling on_result(result) as each ends;
    returns the number of workers the scheduler had when the batch started."""
    try:
        from distributed import Client, as_completed
        from distributed.scheduler import KilledWorker
    except ImportError as e:
        raise ClusterError(f"--scheduler needs dask.distributed, which is not installed ({e}): {INSTALL}") from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    jobs = list(jobs)
    futures: dict = {}
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        batch = uuid.uuid4().hex[:8]  # keys unique to this run, so a second batch never reuses a result

        def submit(i: int, job: Job, attempt: str = ""):
            fut = client.submit(function, job, key=f"rigedit-{job.kind}-{batch}-{i}{attempt}", pure=False, retries=0)
            futures[fut] = job
            return fut

        suspects = []
        for fut in as_completed([submit(i, job) for i, job in enumerate(jobs)], loop=client.loop):
            result = _result(fut, futures.pop(fut), KilledWorker)
            if result is None:
                suspects.append(fut.key)
            else:
                on_result(result)
        # A dying worker takes down the files queued on it with its own: each is run again
        # alone, so the one that kills a worker again is the one reported.
        for key in suspects:
            i = int(key.rsplit("-", 1)[1])
            fut = submit(i, jobs[i], "-alone")
            result = _result(fut, futures.pop(fut), KilledWorker)
            on_result(result or Result(jobs[i].name, "crashed", error=f"{jobs[i].source}: {CRASH}"))
    except KeyboardInterrupt:
        client.cancel(list(futures), force=True)
        raise
    finally:
        client.close()
    return workers


def _result(fut, job: Job, killed) -> Result | None:
    """The job's result, an error result, or None when its worker died."""
    try:
        return fut.result()
    except killed:
        return None
    except Exception as e:  # noqa: BLE001 - a job the cluster could not run (e.g. rigedit missing on a worker): that file's error
        return Result(job.name, "error", error=f"{job.source}: on the cluster: {type(e).__name__}: {e}")
