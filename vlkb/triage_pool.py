"""Fleet triage's local runner: each job in a forked worker process, at most `workers` at once.

The engine is loaded once in the parent and shared copy-on-write, one job per process; a job over
its time limit is killed, a worker that crashes (a native fault, the OOM killer) costs that job a
row with its status, never the run. Rows come back in the order jobs finish; `run` yields them as
they do, so a caller can show progress and keep what finished when interrupted.
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import time

from vlkb.triage import Job, diagnose_job, job_row

MAX_RESULT = 1 << 20  # bytes of one job's result a worker may send back


def run(engine, jobs: list[Job], workers: int, timeout: float | None = None):
    """Yield each job's row as it finishes: forked workers, at most `workers` at once."""
    pending = list(reversed(jobs))
    running: dict[int, tuple[Job, int, float, bytearray]] = {}  # pid -> job, read end, start, bytes read
    try:
        while pending or running:
            while pending and len(running) < workers:
                job = pending.pop()
                pid, fd = _fork(engine, job)
                running[pid] = (job, fd, time.monotonic(), bytearray())
            yield from _collect(running, timeout)
    finally:
        for pid, (_, fd, _, _) in running.items():  # interrupted: no worker outlives the run
            _kill(pid, fd)


def _fork(engine, job: Job) -> tuple[int, int]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: diagnose, send the row, leave without running the parent's cleanup
        code = 0
        try:
            os.close(r)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            data = pickle.dumps(diagnose_job(engine, job))
            if len(data) > MAX_RESULT:
                data = pickle.dumps(job_row(job, status="error", error="result too large"))
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
        except BaseException:  # noqa: BLE001 - whatever happens, the parent reads a crash from the exit code
            code = 70
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def _collect(running: dict, timeout: float | None):
    """Wait a little for worker output; yield the rows of the workers that finished or overran."""
    fds = {fd: pid for pid, (_, fd, _, _) in running.items()}
    ready, _, _ = select.select(list(fds), [], [], 0.05)
    for fd in ready:
        pid = fds[fd]
        chunk = os.read(fd, 1 << 16)
        if chunk:
            running[pid][3].extend(chunk)
            continue
        job, _, start, data = running.pop(pid)  # end of file: the worker is done or dead
        os.close(fd)
        _, status = os.waitpid(pid, 0)
        yield _finished(job, status, bytes(data), time.monotonic() - start)
    if timeout is not None:
        now = time.monotonic()
        for pid in [p for p, (_, _, start, _) in running.items() if now - start > timeout]:
            job, fd, start, _ = running.pop(pid)
            _kill(pid, fd)
            yield job_row(job, status="timeout", error=f"over --timeout {timeout:g} s", seconds=round(now - start, 3))


def _finished(job: Job, status: int, data: bytes, seconds: float) -> dict:
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and data:
        try:
            return pickle.loads(data)  # noqa: S301 - our own forked child's bytes, never a file's
        except Exception:  # noqa: BLE001
            pass
    if os.WIFSIGNALED(status):
        why = f"worker killed by signal {os.WTERMSIG(status)} ({signal.Signals(os.WTERMSIG(status)).name})"
    else:
        why = f"worker failed (exit {os.WEXITSTATUS(status) if os.WIFEXITED(status) else status})"
    return job_row(job, status="crashed", error=why, seconds=round(seconds, 3))


def _kill(pid: int, fd: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
    try:
        os.close(fd)
    except OSError:
        pass
