"""The one pass over the input: jump from trigger line to trigger line in large byte chunks, and parse
every line only while some rank is inside a record (a traceback or a multi-line message)."""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable

from .memo import Memo
from .model import Incident, Line
from .patterns import TRIGGER
from .progress import TAIL_BYTES
from .reader import InputError, ReadStats, Source, chunks
from .records import NOTHING, RecordParser, time_before
from .textnorm import clean, split_glued, unflatten
from .trigger import Trigger


def scan(sources: list[Source], parser: RecordParser, stats: ReadStats,
         on_line: Callable[[Line], None] | None = None, trigger: Trigger | None = None,
         again: Callable[[Incident, Line], None] | None = None) -> None:
    """`trigger` finds candidate lines in raw bytes; lines it misses are parsed only inside records.
    `again(incident, line)` counts one more occurrence of a one-line incident: with it, a raw line
    seen before outside any record (a warning repeated every step on every rank) skips the parser."""
    trigger = trigger or Trigger(TRIGGER)
    cache = Memo()  # raw line -> its cleaned parts
    for source in sources:
        lineno = 0
        feed = _Feeder(source.label, parser, on_line, cache, again)
        tail = b""  # the input's last bytes, for where a run without a failure stopped (progress.py)
        try:
            for chunk, end in chunks(source, stats):
                lineno = _scan_chunk(chunk, end, lineno, parser, feed, trigger)
                piece = bytes(chunk[max(0, end - TAIL_BYTES):end])
                tail = piece if len(piece) >= TAIL_BYTES else (tail + piece)[-TAIL_BYTES:]
        except InputError as err:
            if not source.optional:
                raise
            stats.notes.append(f"skipped {err}")
        stats.lines += lineno
        if tail:
            stats.tails.append((source.label, tail, lineno))
        parser.close()  # a file that ends mid-traceback still yields its incident


def _scan_chunk(chunk: bytes, n: int, lineno: int, parser: RecordParser, feed: "_Feeder", trigger: Trigger) -> int:
    """Feed the interesting lines of `chunk[:n]`; return the number of lines seen so far."""
    pos = 0
    count, find = chunk.count, chunk.find
    starts, i = trigger.line_starts(chunk), 0
    while pos < n:
        if not parser.busy:
            i = bisect_left(starts, pos, i)
            if i == len(starts) or starts[i] >= n:  # an unterminated last line is a line too
                return lineno + count(b"\n", pos, n) + (pos < n and chunk[n - 1:n] != b"\n")
            start = starts[i]
            if start > pos:
                lineno += count(b"\n", pos, start)
                pos = start
        end = find(b"\n", pos, n)
        if end < 0:
            end = n
        lineno += 1
        feed(chunk, pos, end, lineno)
        pos = end + 1
    return lineno


class _Feeder:
    """Clean raw lines (memoised: warnings repeat on every rank) and hand them to the parser."""

    def __init__(self, path: str, parser: RecordParser, on_line, cache: Memo, again):
        self.path, self.parser, self.on_line, self.cache, self.again = path, parser, on_line, cache, again
        self.repeats = Memo()  # raw line -> (what feeding it did, its cleaned form), for this file

    def __call__(self, chunk: bytes, pos: int, end: int, lineno: int) -> None:
        raw = chunk[pos:end]
        parser = self.parser
        idle = not parser.busy
        if idle:
            seen = self.repeats.get(raw)
            if seen is not None:
                outcome, c = seen
                if outcome is not NOTHING:
                    self.again(outcome, Line(self.path, lineno, c.text, c.rank, c.host))
                return
        parts = self.cache.get(raw)
        if parts is None:
            noise, text = split_glued(raw.decode("utf-8", "replace"))
            parts = ([clean(noise)] if noise else []) + [clean(piece) for piece in unflatten(text)]
            self.cache.remember(raw, parts)
        for c in parts:
            line = Line(self.path, lineno, c.text, c.rank, c.host, c.timestamp)
            if self.on_line is not None:
                self.on_line(line)
            outcome = parser.feed(line)
            if idle and parser.busy:  # a record opened: when did its stream last state the time?
                when = time_before(chunk, pos)
                if when is not None:
                    parser.note_time(line.stream, when)
                idle = False
        if self.again is not None and outcome is not None and len(parts) == 1 and not parser.busy:
            self.repeats.remember(raw, (outcome, parts[0]))
