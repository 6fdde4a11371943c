"""Fleet triage on Ray: each job's row made by a Ray task, on a cluster or a local Ray instance."""
from __future__ import annotations

import os
import time

from vlkb.triage import Job, diagnose_job, job_row

_ENGINES: dict = {}  # in a Ray worker process: the KB loaded once per --kb set


def _ray_job(job: Job, extra_kb: tuple) -> dict:
    """The per-job function as a Ray task runs it: the same diagnose_job, the engine kept per process."""
    from vlkb.kb import load_engine

    engine = _ENGINES.get(extra_kb)
    if engine is None:
        engine = _ENGINES[extra_kb] = load_engine(list(extra_kb))
    return diagnose_job(engine, job)


def run_ray(jobs: list[Job], extra_kb: list[str], workers: int, timeout: float | None = None,
            address: str | None = None, per_job=_ray_job):
    """Yield each job's row as its Ray task finishes: against the cluster at `address` (or RAY_ADDRESS),
    else a local Ray instance started here with `workers` CPUs and stopped after. At most `workers`
    tasks are in flight (so --timeout counts from a task's start, not its wait in a queue); a task
    that dies is a crashed row, one over the timeout is cancelled and a timeout row. Job paths must be
    readable where the tasks run (a shared file system, or URLs). `per_job(job, extra_kb) -> row` is
    the task's function."""
    import ray

    if not os.environ.get("RAY_ADDRESS", "x").strip():
        del os.environ["RAY_ADDRESS"]  # set but empty: Ray would refuse it as an address
    address = address or os.environ.get("RAY_ADDRESS")
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    task = ray.remote(max_retries=0)(per_job)
    pending = list(reversed(jobs))
    running: dict = {}  # ObjectRef -> (job, start)
    try:
        while pending or running:
            while pending and len(running) < workers:
                job = pending.pop()
                running[task.remote(job, tuple(extra_kb))] = (job, time.monotonic())
            ready, _ = ray.wait(list(running), num_returns=len(running), timeout=0.05)
            for ref in ready:
                job, start = running.pop(ref)
                try:
                    yield ray.get(ref)
                except ray.exceptions.RayError as err:
                    yield job_row(job, status="crashed", error=f"Ray task failed: {type(err).__name__}",
                                  seconds=round(time.monotonic() - start, 3))
            if timeout is not None:
                now = time.monotonic()
                for ref in [r for r, (_, start) in running.items() if now - start > timeout]:
                    job, start = running.pop(ref)
                    ray.cancel(ref, force=True)
                    yield job_row(job, status="timeout", error=f"over --timeout {timeout:g} s",
                                  seconds=round(now - start, 3))
    finally:
        for ref in running:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
