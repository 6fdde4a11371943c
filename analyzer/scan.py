"""The one pass over the input: jump from trigger line to trigger line in large byte chunks, and parse
every line only while some rank is inside a record (a traceback or a multi-line message)."""
from __future__ import annotations

import re
from collections.abc import Callable

from .model import Line
from .patterns import TRIGGER
from .reader import InputError, ReadStats, Source, chunks
from .records import RecordParser
from .textnorm import clean, split_glued


def scan(sources: list[Source], parser: RecordParser, stats: ReadStats,
         on_line: Callable[[Line], None] | None = None, trigger: re.Pattern = TRIGGER) -> None:
    """`trigger` finds candidate lines in raw bytes; lines it misses are parsed only inside records."""
    for source in sources:
        lineno = 0
        try:
            for chunk in chunks(source, stats):
                lineno = _scan_chunk(chunk, source.label, lineno, parser, on_line, trigger.search)
        except InputError as err:
            if not source.optional:
                raise
            stats.notes.append(f"skipped {err}")
        stats.lines += lineno
        parser.close()  # a file that ends mid-traceback still yields its incident


def _scan_chunk(chunk: bytes, path: str, lineno: int, parser: RecordParser, on_line, search) -> int:
    """Feed the interesting lines of `chunk`; return the number of lines seen so far."""
    pos, n = 0, len(chunk)
    count, find = chunk.count, chunk.find
    while pos < n:
        if not parser.busy:
            m = search(chunk, pos)
            if m is None:
                return lineno + count(b"\n", pos)
            start = chunk.rfind(b"\n", pos, m.start()) + 1
            if start > pos:
                lineno += count(b"\n", pos, start)
                pos = start
        end = find(b"\n", pos)
        if end < 0:
            end = n
        lineno += 1
        _feed(chunk[pos:end], path, lineno, parser, on_line)
        pos = end + 1
    return lineno


def _feed(raw: bytes, path: str, lineno: int, parser: RecordParser, on_line) -> None:
    text = raw.decode("utf-8", "replace")
    noise, text = split_glued(text)
    if noise:
        _emit(noise, path, lineno, parser, on_line)
    _emit(text, path, lineno, parser, on_line)


def _emit(text: str, path: str, lineno: int, parser: RecordParser, on_line) -> None:
    c = clean(text)
    line = Line(path, lineno, c.text, c.rank, c.host)
    if on_line is not None:
        on_line(line)
    parser.feed(line)
