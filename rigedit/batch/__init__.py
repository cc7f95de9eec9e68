"""Batches of clips (`rigedit batch`): the job list (plan.py), one file's work (jobs.py), and
the two places it runs: local worker processes (local.py) or a Dask cluster (cluster.py).

    from rigedit.batch import plan, run_local
    todo = plan("lint", ["takes/"], "reports/")
    run_local(todo.jobs, workers=2, on_result=print)
"""
from .jobs import Job, Result, execute
from .local import run_local
from .plan import Plan, PlanError, plan

__all__ = ["Job", "Plan", "PlanError", "Result", "execute", "plan", "run_local"]
