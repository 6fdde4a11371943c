"""The index of public reports: built from the records and the KB's fixtures, searched for a signature's likes.

`build` reads each record's error with the parser a log goes through (analyzer/similar.py), stores
its signature in SQLite with an FTS5 table over the canonical message and the reports' idf, and is
run once per content hash (`ensure`); every KB fixture is a public report of the entry it proves.
`Index.search` lets FTS5 pick the candidates and scores each against the query's signature.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import replace
from importlib import resources
from pathlib import Path

from vlkb.analyzer import tfidf
from vlkb.analyzer.publicreport import Found, Report
from vlkb.analyzer.signature import Signature, message_words, signature, text_signature
from vlkb.analyzer.similar import FLOOR, Reader, compare, query_words
from vlkb.home import home
from vlkb.kb import fixtures as fx
from vlkb.report_records import read_records, record_files, report_key

DB_NAME = "reports.db"
BUILD_VERSION = "1"  # bump when the tables change: every index is rebuilt
# the code a signature is read with: an index built by another version of it is rebuilt
READING_MODULES = ("similar", "signature", "records", "recordstart", "recordstates", "patterns", "errorshapes",
                   "standaloneshapes", "textnorm", "defining", "match", "elect", "trigger")
CANDIDATES = 200  # rows FTS5 hands to the scorer, best bm25 first


def fixture_reports(entries: list) -> list[Report]:
    """Each KB fixture as the public report of its entry (positives) or of an unknown failure."""
    out = []
    for f in fx.discover(entries):
        if f.kind == "neg":
            continue
        out.append(Report(url=f.source, error=f.text, entry=f.entry, origin="kb"))
    return out


def content_hash(entries: list) -> str:
    """What the index is built from: the record files' bytes and the fixtures' names and sizes."""
    h = hashlib.sha256(BUILD_VERSION.encode())
    for name in READING_MODULES:
        h.update(Path(str(resources.files("vlkb.analyzer") / f"{name}.py")).read_bytes())
    for path, origin in record_files():
        h.update(f"{origin}:{path.name}".encode())
        h.update(path.read_bytes())
    for e in entries:
        for p in e.fixtures:
            h.update(f"{p.name}:{p.stat().st_size}".encode())
    return h.hexdigest()[:20]


def ensure(engine, path: Path | None = None, force: bool = False, notes: list[str] | None = None) -> Path:
    """The path of an up-to-date index, built when missing or stale (written aside, then renamed)."""
    path = path or home() / DB_NAME
    digest = content_hash(engine.entries)
    if not force and path.exists():
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                row = db.execute("select value from meta where key = 'content_hash'").fetchone()
            if row and row[0] == digest:
                return path
        except sqlite3.Error:  # a foreign or corrupt file: rebuild it
            pass
    build(engine, path, digest, notes)
    return path


def build(engine, path: Path, digest: str, notes: list[str] | None = None) -> dict:
    """Read every record's error into its signature and write the index; returns counts."""
    import sqlite_utils

    reader = Reader(engine.trigger, engine.signature)
    fixtures = fixture_reports(engine.entries)
    entry_of = {report_key(f.url): f.entry for f in fixtures if f.entry}
    reports, seen = [], set()
    for r in read_records(notes):  # one record per thread, the first; a thread a fixture proves names its entry
        key = report_key(r.url)
        if key not in seen:
            seen.add(key)
            reports.append(replace(r, entry=r.entry or entry_of.get(key)))
    reports += [f for f in fixtures if report_key(f.url) not in seen]  # an entry's fixtures of one thread: each window
    rows, skipped = [], 0
    for i, r in enumerate(reports):
        row = _row(i, r, reader)
        if row is None:
            skipped += 1
            continue
        rows.append(row)
    idf = tfidf.fit_idf([row["text"] for row in rows])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        db = sqlite_utils.Database(tmp)
        db["reports"].insert_all(rows, pk="id")
        db["reports"].enable_fts(["words"], tokenize="unicode61")
        db["idf"].insert_all(({"token": t, "idf": v} for t, v in idf.items()), pk="token")
        counts = {"reports": len(rows), "skipped": skipped, "public": sum(r["origin"] == "public" for r in rows),
                  "kb": sum(r["origin"] == "kb" for r in rows), "user": sum(r["origin"] == "user" for r in rows)}
        db["meta"].insert_all([{"key": "content_hash", "value": digest},
                               *({"key": k, "value": str(v)} for k, v in counts.items())], pk="key")
        db.close()
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return counts


def _row(i: int, r: Report, reader: Reader) -> dict | None:
    root = reader.root(r.excerpt())
    if root is not None and root.cascade:  # a launcher's report of a child's exit: the failure is not in it
        return None
    sig = signature(root) if root is not None else None
    quoted = root.quoted.text.strip() if root is not None else r.error.strip()
    if (sig is None or not sig.usable) and r.origin != "kb":  # a record's error is a failure by its author's word
        sig, quoted = text_signature(r.error), r.error.strip()
    if sig is None or not sig.usable:
        return None
    return {"id": i, "url": r.url, "repo": r.repo, "title": r.title, "quoted": quoted[:500],
            "framework": r.framework, "model": r.model, "versions": json.dumps(r.versions),
            "fix_kind": r.fix_kind, "fix_text": r.fix_text, "fix_version": r.fix_version, "entry": r.entry,
            "origin": r.origin, "signature": json.dumps(sig.to_json()), "text": sig.text,
            "words": " ".join(message_words(sig.text))}


class Index:
    """An open index: the reports' idf in memory, the rows read per query (FTS5 picks the candidates)."""

    def __init__(self, path: Path):
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.idf = dict(self.db.execute("select token, idf from idf"))
        # a row's signature and TF-IDF vector, read once per open index: `candidates` searches with every
        # report's signature and meets the same rows again and again (bounded by the rows of the index)
        self._read: dict[int, tuple[Signature, dict]] = {}

    def close(self) -> None:
        self.db.close()

    def search(self, sig: Signature, k: int = 3, exclude: frozenset = frozenset(), floor: float = FLOOR) -> list[Found]:
        """The `k` reports most like `sig` at or above `floor`, best first, one per URL; `exclude`:
        reports never returned, by report_key (a log's own report, when measuring)."""
        words = query_words(sig, self.idf)
        if not sig.usable or not words:
            return []
        query = " OR ".join(f'"{w}"' for w in words)
        # the candidates' ids and URLs only: a row is read whole when it is found
        rows = self.db.execute(
            "select r.id, r.url from reports r join (select rowid, rank from reports_fts where reports_fts "
            "match ? order by rank limit ?) c on r.rowid = c.rowid", [query, CANDIDATES]).fetchall()
        self._read_signatures([rid for rid, _ in rows if rid not in self._read])
        mine = tfidf.transform(sig.text, self.idf)
        best: dict[str, tuple] = {}  # report key -> (likeness, row id)
        for rid, url in rows:
            key = report_key(url)
            if key in exclude:
                continue
            theirs, their_vec = self._read[rid]
            like = compare(sig, mine, theirs, their_vec, self.idf, floor)
            if like is None or like.score < floor:
                continue
            if key not in best or like.score > best[key][0].score:
                best[key] = (like, rid)
        found = [_found(self._whole(rid), like) for like, rid in best.values()]
        return sorted(found, key=lambda f: (-f.likeness.score, f.url))[:k]

    def _read_signatures(self, ids: list[int]) -> None:
        for at in range(0, len(ids), 500):  # SQLite's bound on a statement's parameters
            part = ids[at:at + 500]
            marks = ",".join("?" * len(part))
            for rid, text in self.db.execute(f"select id, signature from reports where id in ({marks})", part):
                theirs = Signature.from_json(json.loads(text))
                self._read[rid] = (theirs, tfidf.transform(theirs.text, self.idf))

    def _whole(self, rid: int) -> dict:
        cur = self.db.execute("select * from reports where id = ?", [rid])
        return dict(zip([c[0] for c in cur.description], cur.fetchone()))


def _found(row: dict, like) -> Found:
    report = Report(url=row["url"], error=row["quoted"], title=row["title"], framework=row["framework"],
                    model=row["model"], versions=json.loads(row["versions"] or "{}"), fix_kind=row["fix_kind"],
                    fix_text=row["fix_text"] or "", fix_version=row["fix_version"], entry=row["entry"],
                    origin=row["origin"])
    return Found(report, row["quoted"], like)


def counts(path: Path) -> dict:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return {k: int(v) for k, v in db.execute("select key, value from meta where key != 'content_hash'")}
