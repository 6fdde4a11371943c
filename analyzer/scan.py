"""The one pass over the input: jump from trigger line to trigger line in large byte chunks, and parse
every line only while some rank is inside a record (a traceback or a multi-line message)."""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable

from .memo import Memo
from .model import Line
from .patterns import TRIGGER
from .reader import InputError, ReadStats, Source, chunks
from .records import RecordParser
from .textnorm import clean, split_glued
from .trigger import Trigger


def scan(sources: list[Source], parser: RecordParser, stats: ReadStats,
         on_line: Callable[[Line], None] | None = None, trigger: Trigger | None = None) -> None:
    """`trigger` finds candidate lines in raw bytes; lines it misses are parsed only inside records."""
    trigger = trigger or Trigger(TRIGGER)
    cache = Memo()  # raw line -> its cleaned parts
    for source in sources:
        lineno = 0
        try:
            for chunk in chunks(source, stats):
                lineno = _scan_chunk(chunk, source.label, lineno, parser, on_line, trigger, cache)
        except InputError as err:
            if not source.optional:
                raise
            stats.notes.append(f"skipped {err}")
        stats.lines += lineno
        parser.close()  # a file that ends mid-traceback still yields its incident


def _scan_chunk(chunk: bytes, path: str, lineno: int, parser: RecordParser, on_line, trigger: Trigger,
                cache: Memo) -> int:
    """Feed the interesting lines of `chunk`; return the number of lines seen so far."""
    pos, n = 0, len(chunk)
    count, find = chunk.count, chunk.find
    starts, i = trigger.line_starts(chunk), 0
    while pos < n:
        if not parser.busy:
            i = bisect_left(starts, pos, i)
            if i == len(starts):
                return lineno + count(b"\n", pos)
            start = starts[i]
            if start > pos:
                lineno += count(b"\n", pos, start)
                pos = start
        end = find(b"\n", pos)
        if end < 0:
            end = n
        lineno += 1
        _feed(chunk[pos:end], path, lineno, parser, on_line, cache)
        pos = end + 1
    return lineno


def _feed(raw: bytes, path: str, lineno: int, parser: RecordParser, on_line, cache: Memo) -> None:
    """Clean one raw line (memoised: warnings repeat on every rank) and hand it on."""
    parts = cache.get(raw)
    if parts is None:
        noise, text = split_glued(raw.decode("utf-8", "replace"))
        parts = ([clean(noise)] if noise else []) + [clean(text)]
        cache.remember(raw, parts)
    for c in parts:
        _emit(c, path, lineno, parser, on_line)


def _emit(c, path: str, lineno: int, parser: RecordParser, on_line) -> None:
    line = Line(path, lineno, c.text, c.rank, c.host)
    if on_line is not None:
        on_line(line)
    parser.feed(line)
