"""The one pass over the input: jump from trigger line to trigger line in large byte chunks, and parse
every line only while some rank is inside a record (a traceback or a multi-line message)."""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Protocol

from . import prescan, rx
from .memo import MAX_KEY_LEN, Memo
from .model import Incident, Line
from .patterns import TRIGGER
from .progress import TAIL_BYTES
from .reader import InputError, ReadStats, Source, chunks
from .clock import time_before
from .records import RecordParser
from .recordstart import NOTHING
from .layout import Cleaner
from .textnorm import DIGIT_RUN
from .trigger import Trigger

# The shape of a raw line: its runs of two or more digits masked, as textnorm.template masks the
# cleaned text (single digits stay: an exit code, a loss of exactly 0). Lines of one shape clean to
# texts of one template, which the parser classifies alike.
_DIGIT_RUN = rx.compile(DIGIT_RUN.pattern.encode())


class Folder(Protocol):
    """What the collector (fold.Collector) offers the scan for occurrences it has seen before."""

    def again(self, seen: Incident, line: Line) -> None: ...

    def recount(self, seen: Incident, who: str | None) -> bool: ...


def scan(sources: list[Source], parser: RecordParser, stats: ReadStats,
         on_line: Callable[[Line], None] | None = None, trigger: Trigger | None = None,
         fold: Folder | None = None, jobs: int | None = None) -> None:
    """`trigger` finds candidate lines in raw bytes; lines it misses are parsed only inside records.
    `fold` counts further occurrences of one-line incidents: with it, a line outside any record whose
    raw bytes, or whose shape (digit runs masked), were seen before skips the parser (a warning
    repeated every step on every rank with new times and values). `jobs`: 1 reads every input in
    this process; None lets a large regular file's candidate lines be found by child processes
    (analyzer/prescan.py), with the same result."""
    trigger = trigger or Trigger(TRIGGER)
    cache = Cleaner()  # raw line -> its cleaned parts
    for source in sources:
        lineno = 0
        feed = _Feeder(source.label, parser, on_line, cache, fold)
        tail = b""  # the input's last bytes, for where a run without a failure stopped (progress.py)
        try:
            if prescan.usable(source, jobs):
                pieces = prescan.prescanned(source, stats, trigger)
            else:
                pieces = ((data, end, *trigger.numbered_starts(data, end)) for data, end, _ in chunks(source, stats))
            for chunk, end, starts, before, total in pieces:
                lineno = _scan_chunk(chunk, end, starts, before, total, lineno, parser, feed)
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


def _scan_chunk(chunk: bytes, n: int, starts: list[int], before: list[int], total: int, lineno: int,
                parser: RecordParser, feed: "_Feeder") -> int:
    """Feed the interesting lines of `chunk[:n]` (`starts`, `before`, `total`: as
    Trigger.numbered_starts gives them); return the number of lines seen so far."""
    base = lineno  # lines before this chunk
    pos = 0
    find = chunk.find
    i = 0
    while pos < n:
        if not parser.busy:
            i = bisect_left(starts, pos, i)
            if i == len(starts):  # an unterminated last line is a line too
                return base + total + (pos < n and chunk[n - 1:n] != b"\n")
            if starts[i] > pos:
                pos = starts[i]
                lineno = base + before[i]
        end = find(b"\n", pos, n)
        if end < 0:
            end = n
        lineno += 1
        feed(chunk, pos, end, lineno)
        pos = end + 1
    return lineno


class _Feeder:
    """Clean raw lines (memoised: warnings repeat on every rank) and hand them to the parser."""

    def __init__(self, path: str, parser: RecordParser, on_line, cache: Cleaner, fold: Folder | None):
        self.path, self.parser, self.on_line, self.cache, self.fold = path, parser, on_line, cache, fold
        self.repeats = Memo()  # raw line -> (what feeding it did, its cleaned form), for this file
        self.shapes = Memo()  # a raw line's shape -> what feeding a line of it did, for this file
        self.skipped = False  # lines were skipped by shape since the parser last saw one

    def __call__(self, chunk: bytes, pos: int, end: int, lineno: int) -> None:
        raw = chunk[pos:end]
        parser = self.parser
        idle = not parser.busy
        shape = None
        if idle and self.fold is not None:
            seen = self.repeats.get(raw)
            if seen is not None:
                outcome, c = seen
                # the same bytes come from the same rank: only a sample line needs building
                if outcome is not NOTHING and not self.fold.recount(outcome, None):
                    self.fold.again(outcome, Line(self.path, lineno, c.text, c.rank, c.host))
                return
            if len(raw) <= MAX_KEY_LEN:
                shape = _DIGIT_RUN.sub(b"#", raw)
                outcome = self.shapes.get(shape)
                # a new occurrence adds no fact, no incident, only a count and perhaps a rank; while
                # the incident still keeps sample lines, the line goes the whole way
                if outcome is NOTHING or (outcome is not None and self.fold.recount(outcome, self.cache.who(raw))):
                    self.skipped = True
                    return
        parts = self.cache(raw)
        if idle and self.skipped:  # the stream's clock missed the times of the lines skipped by shape
            self.skipped = False
            when = time_before(chunk, pos)
            if when is not None:
                for c in parts:
                    parser.note_time((self.path, c.host, c.rank), when)
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
        if self.fold is not None and outcome is not None and len(parts) == 1 and not parser.busy:
            self.repeats.remember(raw, (outcome, parts[0]))
            if shape is not None:
                self.shapes.remember(shape, outcome)
