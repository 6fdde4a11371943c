"""`vlkb kb lint`: every problem of every entry and fixture, each with its file, key and fix.

Errors make an entry unusable or a fixture meaningless; warnings are weaknesses a reviewer should see
(a pattern that matches none of the entry's own examples, too few fixtures).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

from vlkb.analyzer.generation import degenerate
from vlkb.analyzer.flat import frozen
from vlkb.analyzer.textnorm import clean

from . import fixtures as fx
from . import sourcemsgs
from .loader import kb_dirs, read_yaml, shipped_dir
from .schema import EntryError, problems, todos

MIN_POSITIVES = 3
MIN_NEGATIVES = 1


@dataclass
class Problem:
    path: str
    key: str
    problem: str
    fix: str
    severity: str = "error"

    def __str__(self) -> str:
        where = f"key '{self.key}': " if self.key else ""
        fix = f"; fix: {self.fix}" if self.fix else ""
        return f"{self.path}: {self.severity}: {where}{self.problem}{fix}"

    def as_dict(self) -> dict:
        return asdict(self)


def lint(extra_dirs: list[str | Path] = ()) -> list[Problem]:
    found: list[Problem] = []
    for directory in kb_dirs(extra_dirs):
        if not directory.is_dir():
            found.append(Problem(str(directory), "", "not a directory", "pass a directory of <id>.yaml entries"))
            continue
        found += lint_dir(directory)
    unknown = fx.unknown_dir()
    for path in sorted(unknown.glob("*.log")) if unknown.is_dir() else []:
        found += _lint_fixture(path, entry=None)
    return found


def lint_dir(directory: Path) -> list[Problem]:
    """The problems of one directory of entries, alone (`lint` adds the shipped KB and the unknowns)."""
    found: list[Problem] = []
    ids: dict[str, Path] = {}
    for path in sorted(directory.rglob("*.yaml")):
        try:
            doc = read_yaml(path)
        except EntryError as err:  # "not valid YAML (...)", aliases, a file far larger than an entry
            hint = "fix the YAML syntax (quote text holding ': ')" if "YAML" in str(err) else "write the entry as one page"
            found.append(Problem(str(path), "", str(err), hint))
            continue
        found += [Problem(str(path), key, problem, hint) for key, problem, hint in problems(doc) + todos(doc)]
        if not isinstance(doc, dict) or not isinstance(doc.get("id"), str):
            continue
        eid = doc["id"]
        if path.stem != eid:
            found.append(Problem(str(path), "id", f"file is named {path.name} but the id is {eid}",
                                 f"rename the file to {eid}.yaml (fixtures share its stem)"))
        if eid in ids:
            found.append(Problem(str(path), "id", f"id {eid} is also defined in {ids[eid]}", "ids are unique within a directory"))
        ids[eid] = path
        found += _lint_entry_fixtures(path, doc, directory == shipped_dir())
        found += _lint_source_messages(path)
    return found


def _lint_source_messages(path: Path) -> list[Problem]:
    """An entry's source messages (kb/sourcemsgs.py): readable rows, each giving a pattern that matches its own
    message as printed (every placeholder a word)."""
    src = sourcemsgs.path_for(path)
    if not src.exists():
        return []
    try:
        rows = sourcemsgs.read(src)
    except (OSError, ValueError, UnicodeDecodeError) as err:
        return [Problem(str(src), "", str(err), "one JSON object per line, as scripts/source_messages.py writes them")]
    found = []
    for n, row in enumerate(rows, 1):
        rx = sourcemsgs.pattern(row["template"])
        if rx is None or not re.search(rx, sourcemsgs.printed(row["template"])):
            found.append(Problem(str(src), f"line {n}", "its template gives no pattern that matches it",
                                 "drop the row: the message is too generic to name a failure", "warning"))
    return found


def _lint_entry_fixtures(path: Path, doc: dict, shipped: bool) -> list[Problem]:
    found: list[Problem] = []
    eid = doc["id"]
    kinds = []
    texts = [m for m in doc.get("messages") or [] if isinstance(m, str)]
    for fixture_path in sorted(path.parent.glob(f"{eid}.*.log")):
        found += _lint_fixture(fixture_path, entry=eid)
        try:
            f = fx.parse(fixture_path)
        except ValueError:
            continue
        kinds.append(f.kind)
        if f.kind == "pos":
            texts += f.text.splitlines()
            if doc.get("silent"):  # what the readers of the log's end state about it is matched too
                for read in (frozen, degenerate):
                    said = read(f.text.encode(), str(fixture_path), len(f.text.splitlines()))
                    texts += [said[1]] if said else []
    for other in sorted(path.parent.glob("*.log")):
        if not other.name.startswith(f"{eid}.") and not (path.parent / f"{other.name.split('.')[0]}.yaml").exists():
            found.append(Problem(str(other), "", "fixture names no entry in this folder",
                                 "name it <entry-id>.pos-<slug>.log or <entry-id>.neg-<slug>.log"))
    if shipped and kinds.count("pos") < MIN_POSITIVES:
        found.append(Problem(str(path), "fixtures", f"{kinds.count('pos')} positive fixtures",
                             f"add real logs until there are {MIN_POSITIVES} (distinct public reports)", "warning"))
    if shipped and kinds.count("neg") < MIN_NEGATIVES:
        found.append(Problem(str(path), "fixtures", "no near-miss negative fixture",
                             "add a real log where a look-alike line appears but the failure is another", "warning"))
    found += _dead_patterns(path, doc, texts)
    return found


def _dead_patterns(path: Path, doc: dict, texts: list[str]) -> list[Problem]:
    lines = [clean(t).text.strip() for t in texts]
    lines += [" ".join(t.split()) for t in texts]
    found = []
    for i, rule in enumerate(doc.get("patterns") or []):
        try:
            rx = re.compile(rule["regex"])
        except (re.error, KeyError, TypeError):
            continue
        if not any(rx.search(line) or rx.search(line.split(": ", 1)[-1]) for line in lines):
            found.append(Problem(str(path), "patterns", f"patterns[{i}] matches none of the entry's messages or positive fixtures",
                                 "add a real example of that wording to messages or a fixture, or drop the pattern", "warning"))
    return found


def own_repro(source: str) -> bool:
    """`vlkb verify NAME (...)`: the captured log of one of vlkb's own repros (verify/repros/)."""
    from vlkb.verify.catalog import REPROS

    parts = source.split()
    return len(parts) >= 3 and parts[:2] == ["vlkb", "verify"] and parts[2] in REPROS


def _lint_fixture(path: Path, entry: str | None) -> list[Problem]:
    try:
        f = fx.parse(path)
    except ValueError as err:
        return [Problem(str(path), "", str(err).split(": ", 1)[-1], "see kb/fixtures.py for the marker format")]
    out = []
    if not f.source.startswith("https://") and not own_repro(f.source):
        out.append(Problem(str(path), "#=SOURCE=#", f"'{f.source}' is not a public https URL", "cite the public report the log comes from"))
    if f.kind == "pos" and f.match_line is not None and not f.text.splitlines()[f.match_line - 1].strip():
        out.append(Problem(str(path), "#=MATCH=#", "marks an empty line", "put #=MATCH=# on the line the diagnosis must cite"))
    if f.family and f.family == entry:
        out.append(Problem(str(path), "#=FAMILY=#", "a negative cannot belong to its own entry's family",
                           "make it a positive fixture, or name the family it really is"))
    if f.kind != "pos" and fx.MATCH in path.read_text(encoding="utf-8"):
        out.append(Problem(str(path), "#=MATCH=#", f"a {f.kind} fixture must not mark a line", "remove the marker"))
    return out
