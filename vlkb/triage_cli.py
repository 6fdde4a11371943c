"""`vlkb triage`: every job of a fleet diagnosed as `vlkb diagnose` would, then grouped."""
from __future__ import annotations

import csv
import io
import json
import os
import sys
import time
from collections import Counter

import click

from .clitools import CONTEXT, emit, fail, kb_option


@click.command(context_settings=CONTEXT)
@click.argument("paths", nargs=-1, required=True)
@click.option("--jobs", "pattern", default=None, help="Only the children of PATHS whose name matches this glob.")
@click.option("--workers", type=click.IntRange(1, 256), default=None,
              help="Jobs diagnosed at once, one process each (default: every core).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=None,
              help="Seconds one job may take; a job over it is killed and reported with status timeout.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "parquet"]), default="text",
              show_default=True, help="text: a table and the groups; json: vlkb.triage/1 (rows, then groups); csv: "
              "one row per job; parquet: one row per job, the summary and groups in the file's metadata "
              "(pip install 'vlkb[parquet]').")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the report to this file instead of standard output.")
@click.option("--history", "history_path", type=click.Path(dir_okay=False), default=None,
              help="History database that says which failures are new (default: $VLKB_HOME/history.db).")
@click.option("--no-history", is_flag=True, help="Neither read nor record the history (no failure is marked new).")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: forked workers on this machine; ray: the same per-job function as Ray tasks "
              "(pip install 'vlkb[ray]'); the job paths must be readable where the tasks run.")
@click.option("--address", default=None,
              help="With --engine ray: the cluster to use (default: RAY_ADDRESS, else a local Ray started here).")
@kb_option
def triage(paths, pattern, workers, timeout, fmt, output, history_path, no_history, engine, address,
           extra_kb) -> None:
    """Diagnose every failed job of a fleet and group them: by entry, by fingerprint, new ones, and the
    hosts and ranks that hold more failed roots than chance.

    Each PATH is a directory whose immediate children are jobs: a log file, or a directory of rank/node
    files. Each job is diagnosed exactly as `vlkb diagnose JOB` would, in its own process; an unreadable
    job, a worker that crashes or a job over --timeout is a row with its status. Ctrl-C stops and prints
    what finished.

    \b
    Examples:
      vlkb triage /shared/failed-jobs/
      vlkb triage /shared/failed-jobs/ --jobs 'train-2026-11-*' --format json > triage.json
      vlkb triage runs/ --format csv --timeout 120 > triage.csv
      vlkb triage s3://bucket/failed/ --format parquet -o triage.parquet
    """
    from vlkb import triage as fleet
    from vlkb import triage_groups, triage_pool, triage_ray
    from vlkb.analyzer import InputError
    from vlkb.home import cache_dir
    from vlkb.kb import EntryError, load_engine

    if engine == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            fail("--engine ray needs Ray: pip install 'vlkb[ray]' (or pip install ray)")
    if fmt == "parquet":
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            fail("--format parquet needs pyarrow: pip install 'vlkb[parquet]' (or pip install pyarrow)")
        if output is None and sys.stdout.isatty():
            fail("--format parquet writes a binary file: give --output FILE or redirect standard output")

    try:
        jobs = fleet.find_jobs(list(paths), pattern)
        kb = load_engine(list(extra_kb), cache_dir())
    except (OSError, InputError, EntryError) as err:
        fail(str(err))
    if not jobs:
        fail(f"no jobs under {', '.join(paths)}" + (f" matching {pattern!r}" if pattern else ""))
    workers = workers or os.cpu_count() or 1
    seen = set() if no_history else _seen(history_path)
    rows, interrupted = [], False
    progress = _Progress(len(jobs), sum(j.size for j in jobs)) if sys.stderr.isatty() else None
    try:
        rows_of = (triage_ray.run_ray(jobs, list(extra_kb), workers, timeout, address) if engine == "ray"
                   else triage_pool.run(kb, jobs, workers, timeout))
        for row in rows_of:
            rows.append(row)
            if progress:
                progress.update(row)
    except KeyboardInterrupt:
        interrupted = True
    if progress:
        progress.done()
    order = {j.label: i for i, j in enumerate(jobs)}
    rows.sort(key=lambda r: order[r["path"]])
    if not no_history:
        triage_groups.mark_new(rows, seen)
        _record(rows, history_path)
    groups = triage_groups.groups(rows)
    summary = {"jobs": len(jobs), "finished": len(rows), "interrupted": interrupted,
               "status": dict(sorted(Counter(r["status"] for r in rows).items())),
               "verdicts": dict(sorted(Counter(r["verdict"] for r in rows if r["verdict"]).items()))}
    if fmt == "parquet":
        _write(output, _parquet(rows, groups, summary))
    elif fmt == "json":
        _write(output, json.dumps({"schema": fleet.SCHEMA, "summary": summary, "jobs": rows, "groups": groups},
                                  indent=2, ensure_ascii=False))
    elif fmt == "csv":
        buf = io.StringIO()
        out = csv.DictWriter(buf, fieldnames=fleet.FIELDS, extrasaction="ignore")
        out.writeheader()
        out.writerows(rows)
        _write(output, buf.getvalue())
    else:
        _write(output, _text(rows, groups, summary))
    sys.exit(130 if interrupted else 0)


def _write(output: str | None, report: str | bytes) -> None:
    if output is None:
        emit(report)
        return
    try:
        if isinstance(report, str):
            with open(output, "w", encoding="utf-8") as f:
                f.write(report if report.endswith("\n") else report + "\n")
        else:
            with open(output, "wb") as f:
                f.write(report)
    except OSError as err:
        fail(f"cannot write {output}: {err.strerror or err}")


def _parquet(rows: list[dict], groups: dict, summary: dict) -> bytes:
    """One row per job, typed; the schema name, the summary and the groups as JSON in the file's
    key-value metadata (a warehouse loads the rows, a reader of the file still has the groups)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from vlkb import triage as fleet

    text, whole, real = pa.string(), pa.int64(), pa.float64()
    types = {"confidence": real, "seconds": real, "root_line": whole, "bytes": whole, "new": pa.bool_()}
    fields = [pa.field(k, types.get(k, text)) for k in fleet.FIELDS] + [
        pa.field("hosts", pa.list_(text)), pa.field("ranks", pa.list_(text))]
    columns = {f.name: [_cell(r.get(f.name), f.type) for r in rows] for f in fields}
    meta = {"vlkb.schema": fleet.SCHEMA, "vlkb.summary": json.dumps(summary), "vlkb.groups": json.dumps(groups)}
    table = pa.table(columns, schema=pa.schema(fields, metadata=meta))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def _cell(value, kind):
    import pyarrow as pa

    if value is None:
        return None
    if pa.types.is_list(kind):
        return [str(v) for v in value]
    if kind == pa.string():
        return str(value)
    return value


def _history_path(history_path):
    from pathlib import Path

    from vlkb import history

    return Path(history_path) if history_path else history.default_path()


def _seen(history_path) -> set[str]:
    """The fingerprints the history held before this run; an unreadable history marks nothing new."""
    import sqlite3

    from vlkb import history

    try:
        return history.fingerprints(_history_path(history_path))
    except (OSError, sqlite3.Error) as err:
        click.echo(f"vlkb: history not read: {err}", err=True)
        return set()


def _record(rows: list[dict], history_path) -> None:
    """Each diagnosed job's root into the history, as `vlkb diagnose` records it."""
    import sqlite3

    from vlkb import history

    try:
        history.record_rows(_history_path(history_path), [r for r in rows if r["status"] == "ok"])
    except (OSError, sqlite3.Error) as err:
        click.echo(f"vlkb: history not recorded: {err}", err=True)


def _text(rows: list[dict], groups: dict, summary: dict) -> str:
    lines = [f"{summary['finished']} of {summary['jobs']} jobs"
             + (" (interrupted)" if summary["interrupted"] else "") + ": "
             + ", ".join(f"{n} {k}" for k, n in summary["verdicts"].items())
             + "".join(f", {n} {k}" for k, n in summary["status"].items() if k != "ok"), ""]
    lines.append(f"{'job':<32} {'verdict':<10} {'entry':<34} {'conf':>5}  {'new':<3}  root")
    for r in rows:
        verdict = r["verdict"] if r["status"] == "ok" else r["status"]
        conf = f"{r['confidence']:.2f}" if r["confidence"] is not None else ""
        new = "yes" if r["new"] else ""
        where = f"{r['root_host'] or ''}{'/' if r['root_host'] and r['root_rank'] else ''}{r['root_rank'] or ''}"
        what = r["summary"] or r["error"] or ""
        lines.append((f"{r['job'][:32]:<32} {verdict:<10} {(r['entry'] or '')[:34]:<34} {conf:>5}  {new:<3}  "
                              f"{where + ' ' if where else ''}{what[:80]}"))
    lines += ["", "By failure"]
    for g in groups["by_entry"]:
        hosts = f"  hosts {', '.join(g['hosts'][:6])}" if g["hosts"] else ""
        lines.append((f"  {g['jobs']:>4}  {g['key']:<36}{'  new' if g['new'] else ''}{hosts}"))
    for label, key in (("Suspect hosts", "suspect_hosts"), ("Suspect ranks", "suspect_ranks")):
        if groups[key]:
            lines += ["", f"{label} (more failed roots than chance)"]
            lines += [(f"  {s['name']}: {s['roots']} roots, {s['expected']} expected (p={s['p']})")
                      for s in groups[key]]
    return "\n".join(lines)


class _Progress:
    """Jobs done, MB/s and the time left, on one stderr line (a terminal only)."""

    def __init__(self, total: int, size: int):
        self.total, self.size, self.done_jobs, self.done_bytes = total, size, 0, 0
        self.start = time.monotonic()

    def update(self, row: dict) -> None:
        self.done_jobs += 1
        self.done_bytes += row["bytes"] or 0
        took = max(time.monotonic() - self.start, 1e-6)
        rate = self.done_bytes / took / 1e6
        left = (self.total - self.done_jobs) * took / self.done_jobs
        sys.stderr.write(f"\r{self.done_jobs}/{self.total} jobs  {rate:.1f} MB/s  ETA {left:.0f} s   ")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\n")
