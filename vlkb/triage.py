"""Fleet triage: every failed job of a cluster diagnosed, then grouped by what killed it.

A job is a file, or a directory of rank/node files, exactly what `vlkb diagnose` reads. Jobs run in
forked worker processes, at most `workers` at once, one job per process: the engine is loaded once in
the parent and shared copy-on-write, a job over its time limit is killed, a worker that crashes (a
native fault, the OOM killer) costs that job a row with its status, never the run. Rows come back in
the order jobs finish; `run` yields them as they do, so a caller can show progress and keep what
finished when interrupted.

Groups are by entry and by fingerprint (the history's key for a root failure, stable across runs);
"new" means the fingerprint is not in the history as it was before this run; a host or rank is
"suspect" when it holds the root of more failed jobs than chance would give it among the jobs it ran
in (a Poisson tail under the expectation that each job's root falls on any of its hosts alike).
"""
from __future__ import annotations

import fnmatch
import math
import os
import pickle
import select
import signal
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from vlkb.analyzer import remote
from vlkb.analyzer.reader import InputError, safe_label

SCHEMA = "vlkb.triage/1"
SUSPECT_P = 0.01  # a host's or rank's share of failed roots this unlikely by chance is suspect
SUSPECT_MIN = 3  # and it holds at least this many roots
MAX_RESULT = 1 << 20  # bytes of one job's result a worker may send back


@dataclass(frozen=True)
class Job:
    name: str  # the job's file or directory name, as reports show it (controls escaped)
    path: str  # as the file system has it
    size: int  # bytes of its log files

    @property
    def label(self) -> str:
        return safe_label(self.path)


def find_jobs(paths: list[str], pattern: str | None = None) -> list[Job]:
    """Each PATH's immediate children are jobs (hidden ones skipped), sorted by name; with `pattern`,
    only the children whose name matches it. A PATH that is itself a log file is one job. A PATH may
    be a URL fsspec reads (s3://bucket/failed/): its jobs are then URLs, read where they are diagnosed.
    Raises reader.InputError for a PATH that is neither."""
    jobs = []
    for root in paths:
        p = Path(root)
        if remote.is_remote(root):
            jobs += [Job(name, url, size) for name, url, size in remote.children(root)
                     if not pattern or fnmatch.fnmatch(name, pattern)]
            continue
        if p.is_file():
            jobs.append(Job(safe_label(p.name), str(p), p.stat().st_size))
            continue
        if not p.is_dir():
            raise InputError(f"{safe_label(root)}: no such file or directory")
        for child in sorted(p.iterdir(), key=lambda c: c.name):
            if child.name.startswith(".") or (pattern and not fnmatch.fnmatch(child.name, pattern)):
                continue
            jobs.append(Job(safe_label(child.name), str(child), _size(child)))
    return jobs


def _size(path: Path) -> int:
    try:
        if path.is_file():
            return path.stat().st_size
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.name.startswith("."))
    except OSError:
        return 0


def diagnose_job(engine, job: Job) -> dict:
    """One job's row: what `vlkb diagnose` would say, and where."""
    from vlkb.analyzer.fold import stable_id

    start = time.monotonic()
    try:
        d = engine.diagnose([job.path])
    except InputError as err:
        return _row(job, status="unreadable", error=str(err), seconds=round(time.monotonic() - start, 3))
    subject = d.subject
    named = d.named
    root = d.root
    times = sorted(t for t in (i.when for i in d.incidents) if t)
    hosts = sorted({line.host for i in d.incidents for line in i.lines[:50] if line.host})
    ranks = sorted({r for i in d.incidents for r in i.ranks})
    return _row(job, status="ok", verdict=d.verdict, entry=named.entry.id if named else None,
                confidence=round(named.confidence, 4) if named else None,
                fingerprint=stable_id(subject) if subject is not None else None,
                summary=subject.summary[:300] if subject is not None else None,
                root_path=root.quoted.path if root else None, root_line=root.quoted.lineno if root else None,
                root_rank=(root.root_rank or (root.ranks[0] if root.ranks else None)) if root else None,
                root_host=root.quoted.host or root.first.host if root else None,
                hosts=hosts, ranks=ranks, framework=d.frameworks[0] if d.frameworks else None,
                model=d.run["model"].value if "model" in d.run else None,
                first_time=times[0] if times else None, last_time=times[-1] if times else None,
                bytes=d.stats.bytes, seconds=round(time.monotonic() - start, 3))


FIELDS = ["job", "path", "status", "verdict", "entry", "confidence", "fingerprint", "new", "summary", "root_path",
          "root_line", "root_rank", "root_host", "framework", "model", "first_time", "last_time", "bytes", "seconds",
          "error"]


def _row(job: Job, **values) -> dict:
    row = {k: None for k in FIELDS}
    row.update(job=job.name, path=job.label, bytes=job.size, hosts=[], ranks=[])
    row.update(values)
    return row


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
                data = pickle.dumps(_row(job, status="error", error="result too large"))
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
            yield _row(job, status="timeout", error=f"over --timeout {timeout:g} s", seconds=round(now - start, 3))


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
    return _row(job, status="crashed", error=why, seconds=round(seconds, 3))


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


# ---- groups ------------------------------------------------------------------------------------
def mark_new(rows: list[dict], seen: set[str]) -> None:
    for row in rows:
        row["new"] = None if row["fingerprint"] is None else row["fingerprint"] not in seen


def groups(rows: list[dict]) -> dict:
    failed = [r for r in rows if r["status"] == "ok" and r["verdict"] in ("known", "unknown", "suspicious")]
    return {"by_entry": _group(failed, lambda r: r["entry"] or r["verdict"]),
            "by_fingerprint": _group([r for r in failed if r["fingerprint"]], lambda r: r["fingerprint"]),
            "suspect_hosts": suspects(failed, "root_host", "hosts"),
            "suspect_ranks": suspects(failed, "root_rank", "ranks")}


def _group(rows: list[dict], key) -> list[dict]:
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[key(r)].append(r)
    out = []
    for k, members in by.items():
        times = sorted(t for r in members for t in (r["first_time"], r["last_time"]) if t)
        out.append({"key": k, "jobs": len(members), "entry": members[0]["entry"], "summary": members[0]["summary"],
                    "new": any(r["new"] for r in members),
                    "hosts": sorted({r["root_host"] for r in members if r["root_host"]}),
                    "ranks": sorted({r["root_rank"] for r in members if r["root_rank"]}, key=_rank_key),
                    "first_seen": times[0] if times else None, "last_seen": times[-1] if times else None,
                    "job_names": sorted(r["job"] for r in members)})
    return sorted(out, key=lambda g: (-g["jobs"], str(g["key"])))


def suspects(rows: list[dict], root_key: str, members_key: str) -> list[dict]:
    """Hosts (or ranks) holding more failed roots than chance: each job's root falls on any of the
    hosts it ran on alike, so a host's expected count is the sum over its jobs of 1/(hosts in the job)."""
    observed: Counter = Counter()
    expected: dict[str, float] = defaultdict(float)
    for r in rows:
        where = r[members_key] or ([r[root_key]] if r[root_key] else [])
        if len(where) < 2 or not r[root_key]:
            continue  # a job on one host says nothing about which host is at fault
        observed[r[root_key]] += 1
        for h in where:
            expected[h] += 1 / len(where)
    out = []
    for h, n in observed.items():
        p = _poisson_tail(n, expected[h])
        if n >= SUSPECT_MIN and p < SUSPECT_P:
            out.append({"name": h, "roots": n, "expected": round(expected[h], 2), "p": float(f"{p:.2g}")})
    return sorted(out, key=lambda s: (s["p"], -s["roots"], s["name"]))


def _poisson_tail(k: int, lam: float) -> float:
    """P(X >= k) for X ~ Poisson(lam)."""
    if lam <= 0:
        return 0.0 if k > 0 else 1.0
    term = math.exp(-lam)
    below = 0.0
    for i in range(k):
        below += term
        term *= lam / (i + 1)
    return max(0.0, 1.0 - below)


def _rank_key(r: str):
    return (0, int(r), "") if str(r).isdigit() else (1, 0, str(r))


# ---- on Ray ------------------------------------------------------------------------------------
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
                    yield _row(job, status="crashed", error=f"Ray task failed: {type(err).__name__}",
                               seconds=round(time.monotonic() - start, 3))
            if timeout is not None:
                now = time.monotonic()
                for ref in [r for r, (_, start) in running.items() if now - start > timeout]:
                    job, start = running.pop(ref)
                    ray.cancel(ref, force=True)
                    yield _row(job, status="timeout", error=f"over --timeout {timeout:g} s", seconds=round(now - start, 3))
    finally:
        for ref in running:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
