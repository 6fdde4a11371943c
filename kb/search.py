"""The KB compiled into SQLite (sqlite-utils): entries, patterns, messages, sources, fixtures, the
persisted TF-IDF data, and an FTS5 index over the text, for `vlkb kb search` and the TUI.

The database lives in the user directory ($VLKB_HOME, default ~/.vlkb). It is built on first use and
rebuilt when the content hash of the KB (shipped entries, VLKB_KB_PATH and --kb directories, their
fixtures and the persisted index) changes. It is written aside and renamed into place, so a crash
or two concurrent builds never leave a half-written database behind.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from vlkb.home import home

from . import fixtures as fx
from .loader import Entry, index_path, kb_dirs, load

DB_NAME = "kb.db"


def content_hash(extra_dirs: list[str | Path] = ()) -> str:
    h = hashlib.sha256()
    files = [index_path()]
    for d in kb_dirs(extra_dirs):
        files += sorted(p for p in Path(d).rglob("*") if p.suffix in (".yaml", ".log"))
    for p in files:
        h.update(str(p.name).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:20]


def ensure(extra_dirs: list[str | Path] = (), force: bool = False) -> Path:
    """The path of an up-to-date database, building it when missing or stale."""
    import sqlite_utils  # here, not at import: `vlkb diagnose` reads home() and must start fast

    path = home() / DB_NAME
    digest = content_hash(extra_dirs)
    if not force and path.exists():
        try:
            db = sqlite_utils.Database(path)
            if db["meta"].exists() and db["meta"].get("content_hash")["value"] == digest:
                return path
        except Exception:  # a foreign or corrupt file: rebuild it
            pass
    build(load(extra_dirs), path, digest)
    return path


def build(entries: list[Entry], path: Path, digest: str) -> None:
    import sqlite_utils

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        db = sqlite_utils.Database(tmp)
        _fill(db, entries)
        db["meta"].insert_all([{"key": "content_hash", "value": digest},
                               {"key": "entries", "value": str(len(entries))}], pk="key")
        db.close()
        os.replace(tmp, path)  # atomic on POSIX: readers see the old or the new database, never half
    finally:
        tmp.unlink(missing_ok=True)


def _fill(db: "sqlite_utils.Database", entries: list[Entry]) -> None:
    db["entries"].insert_all(({
        "id": e.id, "family": e.family, "title": e.title, "symptom": e.symptom,
        "root_cause": e.root_cause, "fix": e.fix, "frameworks": " ".join(e.frameworks),
        "tags": " ".join(e.tags), "messages": "\n".join(e.messages), "path": str(e.path),
        "verify": json.dumps(e.verify),
    } for e in entries), pk="id")
    db["patterns"].insert_all(({"entry_id": e.id, "kind": kind, "regex": r.source, "weight": r.weight,
                                "note": r.note}
                               for e in entries for kind, rules in (("pattern", e.patterns), ("context", e.context))
                               for r in rules), foreign_keys=[("entry_id", "entries", "id")])
    db["messages"].insert_all(({"entry_id": e.id, "text": m} for e in entries for m in e.messages),
                              foreign_keys=[("entry_id", "entries", "id")])
    db["sources"].insert_all(({"entry_id": e.id, "url": s["url"], "title": s.get("title", "")}
                              for e in entries for s in e.sources), foreign_keys=[("entry_id", "entries", "id")])
    rows = [{"name": f.name, "entry_id": f.entry, "kind": f.kind, "source": f.source,
             "match_line": f.match_line, "family": f.family, "path": str(f.path)} for f in fx.discover(entries)]
    db["fixtures"].insert_all(rows, pk="name", foreign_keys=[("entry_id", "entries", "id")])
    index = json.loads(index_path().read_text(encoding="utf-8"))
    db["tfidf_idf"].insert_all(({"term": t, "idf": w} for t, w in index["idf"].items()), pk="term")
    db["tfidf_vectors"].insert_all(({"entry_id": eid, "term": t, "weight": w}
                                    for eid, vec in index["vectors"].items() for t, w in vec.items()))
    db["entries"].enable_fts(["id", "title", "symptom", "root_cause", "fix", "messages", "tags", "frameworks"],
                             fts_version="FTS5", tokenize="porter")


def search(query: str, extra_dirs: list[str | Path] = (), limit: int = 10, db_path: Path | None = None) -> list[dict]:
    """Entries ranked by FTS5 bm25, with a snippet of where the words matched. All words must match;
    when none does, any word may. `db_path`: a database `ensure` already returned (the TUI searches
    on every keystroke and checks the KB's content hash once, not each time)."""
    import sqlite_utils

    words = re.findall(r"\w+", query)
    if not words:
        return []
    db = sqlite_utils.Database(db_path or ensure(extra_dirs))
    sql = (
        "select entries.id, entries.family, entries.title, "
        "snippet(entries_fts, -1, '[', ']', '...', 12) as snippet, entries_fts.rank as rank "
        "from entries_fts join entries on entries.rowid = entries_fts.rowid "
        "where entries_fts match :q order by entries_fts.rank limit :limit"
    )
    quoted = ['"' + w.replace('"', "") + '"' for w in words]
    for joiner in (" AND ", " OR "):
        rows = list(db.query(sql, {"q": joiner.join(quoted), "limit": limit}))
        if rows:
            return rows
    return []
