"""`vlkb history`: recent diagnoses and the most frequent failures, read through sqlite-utils."""
from __future__ import annotations

import json

import click

from .clitools import CONTEXT, emit, fail, format_option


@click.command(context_settings=CONTEXT)
@click.option("--history", "history_path", type=click.Path(dir_okay=False), default=None,
              help="History database (default: $VLKB_HOME/history.db).")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True,
              help="How many recent diagnoses and frequent failures to list.")
@format_option
def history(history_path, limit, fmt) -> None:
    """List recent diagnoses and the most frequent failures that `vlkb diagnose` recorded.

    \b
    Example:
      vlkb history
      vlkb history --history .vlkb-cache/history.db --format json
    """
    from pathlib import Path

    import sqlite_utils

    from vlkb import history as store

    path = Path(history_path) if history_path else store.default_path()
    if not path.exists():  # a fresh home: nothing recorded yet is an answer, not an error
        if fmt == "json":
            emit(json.dumps({"path": str(path), "recent": [], "frequent": []}, indent=2))
        else:
            emit(f"No history yet at {path}: `vlkb diagnose` records each diagnosis there (unless --no-history).")
        return
    db = sqlite_utils.Database(path)
    if "diagnoses" not in db.table_names():
        fail(f"{path} is not a vlkb history database")
    recent = list(db["diagnoses"].rows_where(order_by="at desc, id desc", limit=limit))
    frequent = list(db.query(
        "select fingerprint, count(*) as times, min(at) as first, max(at) as last, max(entry) as entry, "
        "max(summary) as summary from diagnoses where fingerprint is not null group by fingerprint "
        "order by times desc, last desc limit ?", [limit]))
    if fmt == "json":
        emit(json.dumps({"path": str(path), "recent": recent, "frequent": frequent}, indent=2))
        return
    emit(f"Recent diagnoses ({path})")
    for r in recent:
        what = r["entry"] or r["verdict"]
        emit(f"  {r['at'][:16].replace('T', ' ')}  {what:<36} {(r['inputs'] or '')[:40]}")
    emit("Most frequent failures")
    for r in frequent:
        emit(f"  {r['times']:>4}x  {(r['entry'] or 'unknown'):<36} since {r['first'][:10]}, last {r['last'][:10]}"
             f"  {(r['summary'] or '')[:60]}")
