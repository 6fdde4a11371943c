"""Public failure reports as records: read from their files, checked, and the user's own kept.

Records are JSON lines: the shipped ones in `data/reports/*.jsonl` (gathered from public issue
threads: the error as the tool printed it, the URL, the title, versions and what resolved it) and
the user's own in `$VLKB_HOME/reports/*.jsonl` (`vlkb reports add`). A record is a stranger's text:
every field is checked and made inert before it is used (report_index.py reads them into the index).
"""
from __future__ import annotations

import functools
import json
import re
from importlib import resources
from pathlib import Path

from vlkb.analyzer.publicreport import Report
from vlkb.analyzer.textnorm import UNSAFE
from vlkb.home import home

FIX_KINDS = ("fix", "fixed-in", "workaround", "no-fix", "unknown")
MAX_RECORD = 20_000  # characters of a record line; a longer one is not a report's error


@functools.lru_cache(maxsize=16384)  # a search keys every candidate row: the same URLs, again and again
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
