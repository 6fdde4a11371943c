"""Fleet triage: every failed job of a cluster diagnosed, then grouped by what killed it.

A job is a file, or a directory of rank/node files, exactly what `vlkb diagnose` reads. This module
finds the jobs and makes one job's row (what `vlkb diagnose` would say of it, and where); the rows
are made in forked worker processes (triage_pool.py) or in Ray tasks (triage_ray.py), and grouped
by what killed them, with the hosts and ranks that hold more roots than chance (triage_groups.py).
"""
from __future__ import annotations

import fnmatch
import time
from dataclasses import dataclass
from pathlib import Path

from vlkb.analyzer import remote
from vlkb.analyzer.reader import InputError, safe_label

SCHEMA = "vlkb.triage/1"


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
        return job_row(job, status="unreadable", error=str(err), seconds=round(time.monotonic() - start, 3))
    subject = d.subject
    named = d.named
    root = d.root
    times = sorted(t for t in (i.when for i in d.incidents) if t)
    hosts = sorted({line.host for i in d.incidents for line in i.lines[:50] if line.host})
    ranks = sorted({r for i in d.incidents for r in i.ranks})
    return job_row(job, status="ok", verdict=d.verdict, entry=named.entry.id if named else None,
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


def job_row(job: Job, **values) -> dict:
    """A job's row with every field, None unless `values` gives it; the runners make their fault rows with it."""
    row = {k: None for k in FIELDS}
    row.update(job=job.name, path=job.label, bytes=job.size, hosts=[], ranks=[])
    row.update(values)
    return row
