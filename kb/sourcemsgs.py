"""An entry's source messages: the exact wording a framework's code raises for the entry's failure,
read from that framework's source (`<id>.source-messages.jsonl` beside the entry's YAML), each
turned into a pattern when the entry is loaded.

A hand-written pattern covers the wordings that reports showed; the source covers every wording the
code can print, including those no one has pasted yet (LLaMA-Factory's 150 checks of its arguments,
TrainingArguments' 80). One row per message: where it is raised (`repo`, `path`, `line` at
`commit`), the exception class, the `template` as the source writes it with each placeholder kept as
`{...}`, and `why` (the condition that raises it). `scripts/source_messages.py` builds the files from
an inventory and drops the rows that would fire where they should not.

The pattern of a template: its first line, the placeholders at either end dropped, the literal runs
between them escaped and joined by a bounded lazy gap (`.{0,300}?`), each run of spaces one to 64 of
them: no two quantifiers side by side, so the search stays linear on any line (STYLE.md 16). A
template too generic to name a failure (no run of MIN_RUN characters, or fewer than MIN_LITERAL in
all) gives none.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from vlkb.analyzer.entry import SOURCE_NOTE

SUFFIX = ".source-messages.jsonl"
FORMAT = b"sourcemsgs 2"  # how rows become patterns and notes: a stored parse of another format is redone
WEIGHT = 0.8  # a message the framework's code prints word for word, as strong as a written pattern
MIN_RUN = 16  # characters of the longest literal run
MIN_LITERAL = 24  # literal characters in all
MAX_BYTES = 4 << 20  # a file of source messages is data, read whole: refused past this
KEYS = ("repo", "path", "line", "commit", "exception", "template", "why")
_PLACEHOLDER = re.compile(r"\{[^{}\n]{0,300}\}")


def pattern(template: str) -> str | None:
    """The regex a template's first line gives, or None when it is too generic to name a failure."""
    first = next((t for t in template.split("\n") if t.strip()), "")
    if "{{" in first or "}}" in first:
        return None  # an escaped brace: the printed text is not what the source holds
    runs = _PLACEHOLDER.split(first)
    while runs and not runs[0].strip():
        runs.pop(0)
    while runs and not runs[-1].strip():
        runs.pop()
    if not runs or max(len(r.strip()) for r in runs) < MIN_RUN or sum(len(r) for r in runs) < MIN_LITERAL:
        return None
    if any(c in r for r in runs for c in "{}"):
        return None  # a brace the placeholder syntax did not account for
    # words escaped one by one, a run of spaces one bounded quantifier (never two side by side: re.escape
    # writes a space as "\\ ", so spaces are joined after escaping, not replaced in its output)
    return r".{0,300}?".join(" {1,64}".join(re.escape(w) for w in r.split()) for r in runs)


def printed(template: str) -> str:
    """The template's first line as a run would print it, each placeholder a word (`x`)."""
    first = next((t for t in template.split("\n") if t.strip()), "")
    return _PLACEHOLDER.sub("x", first)


def path_for(entry_yaml: Path) -> Path:
    return entry_yaml.with_name(entry_yaml.stem + SUFFIX)


def read(path: Path) -> list[dict]:
    """The rows of a source-messages file, checked: a user's KB is anyone's, so each row must be a
    JSON object with the keys and types expected, or a ValueError names the file and the line."""
    with open(path, "rb") as f:
        raw = f.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise ValueError(f"{path}: larger than {MAX_BYTES >> 20} MiB")
    rows = []
    for n, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{n}: not JSON ({err.msg})") from None
        if not isinstance(row, dict) or any(not isinstance(row.get(k), int if k == "line" else str) for k in KEYS):
            raise ValueError(f"{path}:{n}: a row needs {', '.join(KEYS)} (line a number, the others text)")
        rows.append(row)
    return rows


def note(row: dict) -> str:
    """What the report says of a match: where the source raises the message, and when."""
    return f"{SOURCE_NOTE}{row['repo']} {row['path']}:{row['line']} ({row['exception']}, {row['commit'][:12]}): {row['why']}"


def rules(path: Path) -> list[dict]:
    """The patterns of an entry's source messages, as YAML patterns are written (regex, weight,
    note), one per row whose template gives one; none when the entry has no such file."""
    if not path.exists():
        return []
    out = []
    for row in read(path):
        rx = pattern(row["template"])
        if rx is not None:
            out.append({"regex": rx, "weight": WEIGHT, "note": note(row)})
    return out
