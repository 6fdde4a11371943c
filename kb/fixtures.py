"""KB fixtures: real log windows with their provenance and the expected line marked inside them.

Format (after pytorch/test-infra's log-classifier fixtures):
  #=SOURCE=# <url>          provenance, first line, required
  #=NOTE=# <text>           optional remarks
  #=FAMILY=# <family-id>    a negative that is really another family's failure says which
  #=MATCH=#<log line>       the line the diagnosis must cite (positives only)
File names: `<entry-id>.pos-<slug>.log` must rank that entry first above the threshold;
`<entry-id>.neg-<slug>.log` must keep that entry under it; files in an `unknown/` folder must get
the verdict "unknown" (a failure no entry explains).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SOURCE, NOTE, MATCH, FAMILY = "#=SOURCE=# ", "#=NOTE=# ", "#=MATCH=#", "#=FAMILY=# "
_NAME = re.compile(r"^(?P<entry>[a-z0-9-]+)\.(?P<kind>pos|neg)-(?P<slug>[\w-]+)\.log$")


@dataclass
class Fixture:
    path: Path
    kind: str  # "pos" | "neg" | "unknown"
    entry: str | None
    source: str
    text: str  # the log with every marker removed
    match_line: int | None  # 1-based line number in `text`
    family: str | None = None  # what a negative really is, when it is another family's failure

    @property
    def name(self) -> str:
        return self.path.name


def parse(path: Path) -> Fixture:
    raw = path.read_text(encoding="utf-8").splitlines(keepends=True)
    source, out, match_line, family = None, [], None, None
    for line in raw:
        if line.startswith(SOURCE):
            source = line[len(SOURCE):].strip()
        elif line.startswith(FAMILY):
            family = line[len(FAMILY):].strip()
        elif line.startswith(NOTE):
            continue
        elif line.startswith(MATCH):
            out.append(line[len(MATCH):])
            match_line = len(out)
        else:
            out.append(line)
    if not source:
        raise ValueError(f"{path}: first line must be '#=SOURCE=# <url>'")
    m = _NAME.match(path.name)
    if m:
        kind, entry = m.group("kind"), m.group("entry")
    elif path.parent.name == "unknown":
        kind, entry = "unknown", None
    else:
        raise ValueError(f"{path}: name it <entry-id>.pos-<slug>.log, <entry-id>.neg-<slug>.log or put it in unknown/")
    if kind == "pos" and match_line is None:
        raise ValueError(f"{path}: a positive fixture needs one '#=MATCH=#' line")
    if family and kind != "neg":
        raise ValueError(f"{path}: only a negative fixture may name a #=FAMILY=#")
    return Fixture(path, kind, entry, source, "".join(out), match_line, family)


def unknown_dir() -> Path:
    return Path(__file__).resolve().parent / "unknown"


def discover(entries: list) -> list[Fixture]:
    """Every fixture of the given entries, then the unknown ones."""
    found = [parse(p) for e in entries for p in e.fixtures]
    udir = unknown_dir()
    if udir.is_dir():
        found += [parse(p) for p in sorted(udir.glob("*.log"))]
    return found
