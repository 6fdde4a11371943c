"""Every diagnosis, remembered: a SQLite database in the user directory ($VLKB_HOME/history.db, or
--history PATH for a CI cache) so vlkb can say "new" or "seen 4 times since 2026-11-02 (last: ...)".

The root failure is keyed by a fingerprint that survives what changes between runs of the same
failure: ranks, paths, numbers, timestamps (the canonical message, the exception type and the last
frames by file name and function). Concurrent CI jobs share one database safely: WAL journal, a busy
timeout, and a retry around each short write transaction. Recording uses the stdlib `sqlite3`
(`vlkb diagnose` must start fast: sqlite-utils pulls in numpy); `vlkb history` reads the same table
through sqlite-utils.
"""
from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

DB_NAME = "history.db"
SCHEMA_VERSION = 1
RETRIES = 8
SCHEMA = """
CREATE TABLE IF NOT EXISTS diagnoses (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,            -- UTC, ISO 8601
    fingerprint TEXT,            -- of the root failure (or the suspicious warning), NULL when clean
    verdict TEXT NOT NULL,
    entry TEXT,                  -- the entry named, if any
    confidence REAL,
    summary TEXT,                -- the root's exception and first message line
    inputs TEXT                  -- the log names, comma-separated
);
CREATE INDEX IF NOT EXISTS diagnoses_fingerprint ON diagnoses (fingerprint, at);
"""


@dataclass(frozen=True)
class Seen:
    fingerprint: str
    count: int  # earlier diagnoses with this fingerprint (0: new)
    first: str | None  # UTC ISO time of the first
    last: str | None  # UTC ISO time of the latest
    last_inputs: str | None

    def describe(self) -> str:
        if not self.count:
            return "new: not seen before"
        times = "once" if self.count == 1 else f"{self.count} times"
        return f"seen {times} since {self.first[:10]} (last: {self.last[:16].replace('T', ' ')} UTC, {self.last_inputs})"


def default_path() -> Path:
    from vlkb.home import home

    return home() / DB_NAME


def connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    _retry(lambda: conn.execute("PRAGMA journal_mode = WAL"))
    if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
        _retry(lambda: _migrate(conn))
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in filter(str.strip, SCHEMA.split(";")):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def record(path: Path, diagnosis, now: datetime | None = None) -> Seen | None:
    """Look up the root's earlier sightings, then add this diagnosis; None when nothing failed."""
    subject = diagnosis.subject
    at = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    from vlkb.analyzer.fold import stable_id  # the key SARIF's fingerprints use too

    fp = stable_id(subject) if subject is not None else None
    named = diagnosis.named
    row = (at, fp, diagnosis.verdict, named.entry.id if named else None, named.confidence if named else None,
           _summary(subject), ", ".join(os.path.basename(i) or i for i in diagnosis.inputs)[:500])
    conn = connect(path)
    try:
        return _retry(lambda: _write(conn, fp, row))
    finally:
        conn.close()


INSERT = ("INSERT INTO diagnoses (at, fingerprint, verdict, entry, confidence, summary, inputs) "
          "VALUES (?, ?, ?, ?, ?, ?, ?)")


def fingerprints(path: Path) -> set[str]:
    """Every root fingerprint the history holds (empty for a history not written yet)."""
    if not path.exists():
        return set()
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return {fp for (fp,) in conn.execute("SELECT DISTINCT fingerprint FROM diagnoses WHERE fingerprint IS NOT NULL")}


def record_rows(path: Path, rows: list[dict], now: datetime | None = None) -> None:
    """Many diagnoses at once (`vlkb triage`'s rows: fingerprint, verdict, entry, confidence, summary, job)."""
    at = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    values = [(at, r["fingerprint"], r["verdict"], r["entry"], r["confidence"], r["summary"], r["job"][:500])
              for r in rows]
    conn = connect(path)
    try:
        def write():
            with conn:
                conn.executemany(INSERT, values)
        _retry(write)
    finally:
        conn.close()


def _write(conn: sqlite3.Connection, fp: str | None, row: tuple) -> Seen | None:
    conn.execute("BEGIN IMMEDIATE")  # the read and the insert see one state, whoever else writes
    try:
        seen = None
        if fp is not None:
            count, first, last = conn.execute(
                "SELECT count(*), min(at), max(at) FROM diagnoses WHERE fingerprint = ?", (fp,)).fetchone()
            last_inputs = conn.execute("SELECT inputs FROM diagnoses WHERE fingerprint = ? ORDER BY at DESC, id DESC"
                                       " LIMIT 1", (fp,)).fetchone()
            seen = Seen(fp, count, first, last, last_inputs[0] if last_inputs else None)
        conn.execute(INSERT, row)
        conn.execute("COMMIT")
        return seen
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _retry(action):
    for attempt in range(RETRIES):
        try:
            return action()
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) and "busy" not in str(err) or attempt == RETRIES - 1:
                raise
            time.sleep(0.05 * 2 ** attempt)


def _summary(inc) -> str | None:
    return inc.summary[:300] if inc is not None else None
