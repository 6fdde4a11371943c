"""`vlkb diff`: the lines a failed run printed that a healthy run of the same job never did.

A line is compared by its template: the text after its prefixes (time, rank, host, container; as
`vlkb diagnose` cleans them), with numbers, hex ids, paths and long identifiers masked, so step 12's
loss line and step 13's are one template. The templates of the failed run that the healthy run never
printed are listed in order of first appearance, each with its first line and how often it came;
the first is "what is different this time" when the failure is one no KB entry knows.

Memory is bounded: at most MAX_TEMPLATES templates are kept per side (a note says when the healthy
run had more, since a template past the cap may then be reported new), and a line is cut to
MAX_CHARS before it is read.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from vlkb.analyzer.memo import Memo
from vlkb.analyzer.reader import InputError, ReadStats, chunks, expand, safe_label
from vlkb.analyzer.textnorm import UNSAFE, clean

SCHEMA = "vlkb.diff/1"
MAX_TEMPLATES = 200_000  # distinct templates kept per run
MAX_CHARS = 2048  # characters of a line that are read

_MASKS = [
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<id>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+@~=-]+){2,}[\\/]?"), "<path>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b"), "<hex>"),  # hashes, container ids
    (re.compile(r"[-+]?\d+(?:[.,:]\d+)*(?:[eE][-+]?\d+)?"), "<n>"),  # numbers, times, versions, dates
    (re.compile(r"\s+"), " "),
]
_WORDY = re.compile(r"[^\W\d_]")
# every digit as 0: a line's template depends on where its digits are, never on their values (each
# mask above treats any digit alike), so lines of one such key share their template
_ZEROS = str.maketrans("123456789", "000000000")


def template(raw: str) -> str:
    """A log line's template: prefixes removed as `vlkb diagnose` removes them, then ids, paths, hex
    and numbers masked and whitespace collapsed; no control or bidi character is left. Empty for a
    line without a letter (blank, a caret or rule line)."""
    text = UNSAFE.sub("", clean(raw[:MAX_CHARS]).text)
    for pattern, repl in _MASKS:
        text = pattern.sub(repl, text)
    text = text.strip()
    return text if _WORDY.search(text) else ""  # a caret or rule line (^^^^, ----) tells nothing


@dataclass
class Seen:
    """One template's first line in a run, and how many lines had it."""
    template: str
    path: str
    lineno: int
    text: str
    count: int = 1


@dataclass
class Run:
    """The templates of one run (its files in the order `vlkb diagnose` reads them)."""
    inputs: list[str]
    templates: dict[str, Seen] = field(default_factory=dict)
    lines: int = 0
    full: bool = False  # more templates than MAX_TEMPLATES: those past it were not kept
    notes: list[str] = field(default_factory=list)


def lines(inputs: list[str], stats: ReadStats) -> Iterator[tuple[str, int, str]]:
    """(label, line number, text) of every line of the inputs, read as `vlkb diagnose` reads them:
    directories walked, .gz unpacked, UTF-16 decoded, over-long lines cut."""
    for source in expand(inputs):
        lineno = 0
        try:
            for data, end, _ in chunks(source, stats):
                block = bytes(data[:end])
                for raw in block[:-1].split(b"\n") if block.endswith(b"\n") else block.split(b"\n"):
                    text = raw[:MAX_CHARS * 4].decode("utf-8", "replace")
                    lineno += 1
                    yield source.label, lineno, text.lstrip("\ufeff") if lineno == 1 else text
        except InputError as err:
            if not source.optional:
                raise
            stats.notes.append(f"skipped {err}")


def read(inputs: list[str]) -> Run:
    run = Run([safe_label(i) for i in inputs])
    stats = ReadStats()
    seen = run.templates
    memo = Memo()  # a line with its digits zeroed -> its template (a step's line repeats with new numbers)
    for label, lineno, text in lines(inputs, stats):
        run.lines += 1
        shape = text.translate(_ZEROS)
        key = memo.get(shape)
        if key is None:
            key = template(text)
            memo.remember(shape, key)
        if not key:
            continue
        known = seen.get(key)
        if known is not None:
            known.count += 1
        elif len(seen) < MAX_TEMPLATES:
            seen[key] = Seen(key, label, lineno, UNSAFE.sub("", clean(text[:MAX_CHARS]).text).strip())
        else:
            run.full = True
    run.notes = stats.notes
    return run


@dataclass
class Difference:
    healthy: Run
    failed: Run
    new: list[Seen]  # the failed run's templates the healthy run lacks, in order of first appearance
    root: int | None = None  # index in `new` of the template of the line `vlkb diagnose` elects root

    @property
    def notes(self) -> list[str]:
        out = [f"healthy: {n}" for n in self.healthy.notes] + [f"failed: {n}" for n in self.failed.notes]
        if self.healthy.full:
            out.append(f"the healthy run has over {MAX_TEMPLATES:,} distinct line templates; those past it were "
                       "not kept, so some lines listed as new may be in it")
        if self.failed.full:
            out.append(f"the failed run has over {MAX_TEMPLATES:,} distinct line templates; only the first were compared")
        return out


def compare(healthy: list[str], failed: list[str]) -> Difference:
    """Raises reader.InputError for an input that cannot be read at all."""
    h = read(healthy)
    f = read(failed)
    new = [s for key, s in f.templates.items() if key not in h.templates]  # dicts keep first appearance
    return Difference(h, f, new)


def mark_root(diff: Difference, root_text: str | None) -> None:
    """Point at the new template that holds the root failure's quoted line, if one does."""
    if not root_text:
        return
    key = template(root_text)
    diff.root = next((i for i, s in enumerate(diff.new) if s.template == key), None)


def to_json(diff: Difference, limit: int) -> dict:
    def side(run: Run) -> dict:
        return {"inputs": run.inputs, "lines": run.lines, "templates": len(run.templates)}

    return {"schema": SCHEMA, "healthy": side(diff.healthy), "failed": side(diff.failed),
            "new_templates": len(diff.new), "shown": min(limit, len(diff.new)),
            "new": [{"template": s.template, "path": s.path, "line": s.lineno, "text": s.text, "count": s.count,
                     "first": i == 0, "root": i == diff.root} for i, s in enumerate(diff.new[:limit])],
            "root_index": diff.root, "notes": diff.notes}
