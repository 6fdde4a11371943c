"""Similar public reports of a diagnosis: what its failure is sought with, the search, and a record of it.

`vlkb diagnose` opens the index of public reports (report_index.py) only when a root is unknown or
`--similar` asks, and builds it there the first time; the records themselves are report_records.py.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

from vlkb.analyzer.diagnose import merge_fragments
from vlkb.analyzer.publicreport import Found
from vlkb.analyzer.signature import Signature, signature
from vlkb.report_index import Index, ensure
from vlkb.report_records import ReportError, record


def subject(d):
    """The incident a diagnosis's similar reports are sought for: its root, with a cut traceback's
    fragments merged as the matcher reads them; None when nothing failed."""
    return merge_fragments(d.root, d.incidents) if d.root is not None else None


def query(d) -> Signature | None:
    """What a diagnosis's similar reports are sought with: its root's signature; None when nothing
    failed, when the root is only a launcher's report of a child's exit (the failure is not in the
    log), or when its message says too little to compare."""
    inc = subject(d)
    if inc is None or inc.cascade:
        return None
    sig = signature(inc)
    return sig if sig.usable else None


def similar(d, engine, k: int = 3, path: Path | None = None, exclude: frozenset = frozenset()) -> list[Found]:
    """The public reports most like the diagnosis's root, building the index the first time; an index
    that cannot be built or read costs a note on the diagnosis, never the diagnosis."""
    sig = query(d)
    if sig is None:
        return []
    try:
        index = Index(ensure(engine, path, notes=d.stats.notes))
        try:
            return index.search(sig, k, exclude)
        finally:
            index.close()
    except (OSError, sqlite3.Error) as err:
        d.stats.notes.append(f"similar public reports not searched: {err}")
        return []


def from_diagnosis(d, url: str, title: str | None = None, fix_text: str | None = None, fix_kind: str | None = None,
                   fixed_in: str | None = None, framework: str | None = None, model: str | None = None) -> dict:
    """A record of a public report whose failure a log shows: the error and frames as the log states
    them (the root's lines, verbatim), the versions, framework and model the log states unless given."""
    inc = subject(d)
    if inc is None:
        raise ReportError("no failure found in the log: a report needs the error it describes")
    run = d.run
    kind = fix_kind or ("fixed-in" if fixed_in else "fix" if fix_text else "unknown")
    frames = [line.text.strip() for line in inc.lines if line.text.lstrip().startswith('File "')][-4:]
    rec = {"url": url, "title": title, "error": inc.quoted.text.strip(), "frames": frames,
           "framework": framework or (d.frameworks[0] if d.frameworks else None),
           "model": model or (run["model"].value if "model" in run else None),
           "versions": {k[len("version."):]: str(f.value) for k, f in run.items() if k.startswith("version.")},
           "fix": {"kind": kind, "text": fix_text or "", **({"version": fixed_in} if fixed_in else {})}}
    record(rec, "user")  # the same checks as a shipped record's
    return rec
