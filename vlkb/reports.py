"""Public failure reports: the records, their SQLite index, and the search for a failure's likes.

Records are JSON lines: the shipped ones in `data/reports/*.jsonl` (gathered from public issue
threads: the error as the tool printed it, the URL, the title, versions and what resolved it), the
user's own in `$VLKB_HOME/reports/*.jsonl` (`vlkb reports add`), and every KB fixture, which is a
public report of the entry it proves. `build` reads each record's error with the parser a log goes
through (analyzer/similar.py), stores its signature in SQLite with an FTS5 table over the canonical
message and the reports' idf, and is run once per content hash: `vlkb diagnose` opens the index
only when a root is unknown or `--similar` asks, and builds it there the first time.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from vlkb.analyzer import tfidf
from vlkb.analyzer.diagnose import merge_fragments
from vlkb.analyzer.publicreport import Found, Report
from vlkb.analyzer.signature import Signature, message_words, signature, text_signature
from vlkb.analyzer.similar import FLOOR, Reader, compare, query_words
from vlkb.analyzer.textnorm import UNSAFE
from vlkb.home import home
from vlkb.kb import fixtures as fx

DB_NAME = "reports.db"
BUILD_VERSION = "1"  # bump when the tables change: every index is rebuilt
# the code a signature is read with: an index built by another version of it is rebuilt
READING_MODULES = ("similar", "signature", "records", "patterns", "textnorm", "defining", "match", "elect", "trigger")
FIX_KINDS = ("fix", "fixed-in", "workaround", "no-fix", "unknown")
CANDIDATES = 200  # rows FTS5 hands to the scorer, best bm25 first
MAX_RECORD = 20_000  # characters of a record line; a longer one is not a report's error


def report_key(url: str) -> str:
    """An issue's identity across renamed owners and repos: `llamafactory#8424`."""
    m = re.search(r"github\.com/[^/]+/([^/]+)/(?:issues|pull|discussions)/(\d+)", url)
    return re.sub(r"[^a-z0-9]", "", m.group(1).lower()) + "#" + m.group(2) if m else url.strip().lower()


class ReportError(ValueError):
    """A record that cannot be used; the message says which and why."""


def record(d: dict, origin: str = "public") -> Report:
    """A JSON record to a Report, checked: what a stranger's file holds is data, never trusted."""
    url, error = d.get("url"), d.get("error")
    if not isinstance(url, str) or not _URL.match(url):
        raise ReportError(f"url must be an http(s) URL of at most 300 characters, not {url!r:.80}")
    if not isinstance(error, str) or not error.strip():
        raise ReportError(f"{url}: error is missing")
    fix = d["fix"] if isinstance(d.get("fix"), dict) else {}
    kind = fix.get("kind", "unknown")
    if kind not in FIX_KINDS:
        raise ReportError(f"{url}: fix.kind {kind!r:.40} is not one of {', '.join(FIX_KINDS)}")
    frames = d.get("frames") or []
    versions = d.get("versions") or {}
    if not (isinstance(frames, list) and all(isinstance(f, str) for f in frames)):
        raise ReportError(f"{url}: frames must be a list of strings")
    if not (isinstance(versions, dict) and all(isinstance(v, str) for v in versions.values())):
        raise ReportError(f"{url}: versions must map a name to a version string")
    return Report(url=url, error=error, title=_text(d.get("title")), frames=tuple(frames[:8]),
                  framework=_text(d.get("framework")), model=_text(d.get("model")),
                  versions={_text(k, 40) or "?": _text(v, 40) or "?" for k, v in list(versions.items())[:12]},
                  fix_kind=kind,
                  fix_text=_text(fix.get("text")) or "", fix_version=_text(fix.get("version")),
                  entry=_text(d.get("entry")), origin=origin)


_URL = re.compile(r"^https?://[^\s<>\"'`\\]{1,300}$")
MAX_FIELD = 400  # characters of a title, a fix, a name


def _text(v, limit: int = MAX_FIELD) -> str | None:
    if not isinstance(v, str):
        return None
    v = " ".join(UNSAFE.sub(" ", v).split())[:limit]
    return v or None


def shipped_dir() -> Path:
    return Path(str(resources.files("vlkb.data") / "reports"))


def user_dir() -> Path:
    return home() / "reports"


def record_files() -> list[tuple[Path, str]]:
    """The JSON-lines files of records and their origin: shipped, then the user's."""
    out = []
    for directory, origin in ((shipped_dir(), "public"), (user_dir(), "user")):
        if directory.is_dir():
            out += [(p, origin) for p in sorted(directory.glob("*.jsonl"))]
    return out


def read_records(notes: list[str] | None = None) -> list[Report]:
    """Every record of the record files; a bad line is skipped with a note naming it."""
    return [r for path, origin in record_files() for r, _ in _read(path, origin, notes)]


def _read(path: Path, origin: str, notes: list[str] | None):
    """(Report, its JSON object) for each good line of a record file; a bad one is a note."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                if len(line) > MAX_RECORD:
                    raise ReportError(f"a record of {len(line)} characters (at most {MAX_RECORD})")
                d = json.loads(line)
                if not isinstance(d, dict):
                    raise ReportError("not a JSON object")
                yield record(d, origin), d
            except (ValueError, TypeError) as err:
                if notes is not None:
                    notes.append(f"{path.name}:{n}: skipped: {err}")


def import_records(path: Path) -> tuple[int, list[str]]:
    """Append a JSON-lines file's good records to the user's; (how many, a note per line skipped)."""
    notes: list[str] = []
    good = [d for _, d in _read(path, "user", notes)]
    for d in good:
        append_user_record(d)
    return len(good), notes


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

    def close(self) -> None:
        self.db.close()

    def search(self, sig: Signature, k: int = 3, exclude: frozenset = frozenset(), floor: float = FLOOR) -> list[Found]:
        """The `k` reports most like `sig` at or above `floor`, best first, one per URL; `exclude`:
        reports never returned, by report_key (a log's own report, when measuring)."""
        words = query_words(sig, self.idf)
        if not sig.usable or not words:
            return []
        query = " OR ".join(f'"{w}"' for w in words)
        rows = self.db.execute(
            "select r.* from reports r join (select rowid, rank from reports_fts where reports_fts match ? "
            "order by rank limit ?) c on r.rowid = c.rowid", [query, CANDIDATES])
        names = [c[0] for c in rows.description]
        mine = tfidf.transform(sig.text, self.idf)
        found: dict[str, Found] = {}
        for values in rows:
            row = dict(zip(names, values))
            key = report_key(row["url"])
            if key in exclude:
                continue
            theirs = Signature.from_json(json.loads(row["signature"]))
            like = compare(sig, mine, theirs, tfidf.transform(theirs.text, self.idf), self.idf)
            if like is None or like.score < floor:
                continue
            if key not in found or like.score > found[key].likeness.score:
                found[key] = _found(row, like)
        return sorted(found.values(), key=lambda f: (-f.likeness.score, f.url))[:k]


def _found(row: dict, like) -> Found:
    report = Report(url=row["url"], error=row["quoted"], title=row["title"], framework=row["framework"],
                    model=row["model"], versions=json.loads(row["versions"] or "{}"), fix_kind=row["fix_kind"],
                    fix_text=row["fix_text"] or "", fix_version=row["fix_version"], entry=row["entry"],
                    origin=row["origin"])
    return Found(report, row["quoted"], like)


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


def counts(path: Path) -> dict:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return {k: int(v) for k, v in db.execute("select key, value from meta where key != 'content_hash'")}


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


def append_user_record(rec: dict) -> Path:
    path = user_dir() / "added.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def find_records(urls: list[str]) -> list[Report]:
    """The shipped or user records of these reports (matched by report_key), in the order asked."""
    by_key = {report_key(r.url): r for r in read_records()}
    missing = [u for u in urls if report_key(u) not in by_key]
    if missing:
        raise ReportError(f"no record of {', '.join(missing)}: `vlkb reports add URL --log LOG` makes one")
    return [by_key[report_key(u)] for u in urls]


CLUSTER_LIKENESS = 0.75  # two reports this alike are one failure, for candidates


def candidates(engine, min_size: int = 3, path: Path | None = None) -> list[dict]:
    """Groups of at least `min_size` reports of one failure (linked by likeness, transitively) none of
    which an entry's fixture proves, largest first: failures the public reports share and no entry covers."""
    index = Index(ensure(engine, path))
    try:
        rows = index.db.execute("select id, url, quoted, entry, signature from reports").fetchall()
        parent = {r[0]: r[0] for r in rows}

        def root(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        by_url = {r[1]: r[0] for r in rows}
        for rid, _, _, entry, sig in rows:
            if entry:
                continue
            for f in index.search(Signature.from_json(json.loads(sig)), k=50, floor=CLUSTER_LIKENESS):
                other = by_url.get(f.url)
                if other is not None:
                    parent[root(other)] = root(rid)
        groups: dict[int, list] = {}
        for r in rows:
            groups.setdefault(root(r[0]), []).append(r)
    finally:
        index.close()
    out = []
    for members in groups.values():
        if len(members) < min_size or any(m[3] for m in members):
            continue
        out.append({"quoted": members[0][2], "urls": sorted(m[1] for m in members)})
    return sorted(out, key=lambda g: (-len(g["urls"]), g["quoted"]))


def promote(entry_id: str, urls: list[str], dest: Path, family: str | None = None) -> list[Path]:
    """`vlkb kb new ID --from-report URL...`: an entry scaffolded from the first report's error, and a
    positive fixture from each further one, each with its source."""
    import tempfile

    from vlkb.kb.fixtures import MATCH, NOTE, SOURCE
    from vlkb.kb.scaffold import scaffold

    found = find_records(urls)
    with tempfile.TemporaryDirectory() as tmp:
        first = Path(tmp) / f"{re.sub(r'[^a-z0-9]+', '-', report_key(found[0].url))}.log"
        first.write_text(found[0].excerpt() + "\n", encoding="utf-8")
        written = scaffold(entry_id, [str(first)], dest, found[0].url, family)
    reader = Reader()
    for r in found[1:]:
        root = reader.root(r.excerpt())
        if root is None:
            continue
        lines = r.excerpt().splitlines()
        at = root.quoted.lineno - 1
        body = [(MATCH if i == at else "") + line for i, line in enumerate(lines)]
        slug = re.sub(r"[^a-z0-9]+", "-", report_key(r.url))
        path = dest / entry_id / f"{entry_id}.pos-{slug}.log"
        path.write_text("\n".join([f"{SOURCE}{r.url}", f"{NOTE}from the vlkb reports record of {r.url}", *body]) + "\n",
                        encoding="utf-8")
        written.append(path)
    return written
