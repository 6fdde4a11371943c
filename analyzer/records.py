"""Fold lines into incidents: tracebacks (with chains and multi-line messages) and error lines.

Each (file, host, rank) stream has its own state, so tracebacks of interleaved ranks are reassembled
per rank. The parser only sees the lines the scanner hands it; `busy` tells the scanner to hand over
every line because some stream is inside a record.

Which record a line opens is decided in recordstart.py, what the next line does to an open one in
recordstates.py; RecordParser holds the state both work on and finishes each record.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from . import recordlines as L
from .clock import line_time
from .memo import Memo
from .model import Incident, Line
from .recordstart import OpenRecord, RecordStarts
from .recordstates import RecordStates

MAX_RECORD_LINES = 400  # a traceback longer than this keeps its head and its exception
# characters kept of one line the parser is handed (the reader already cuts a line longer than a chunk
# to 64 KiB): its head and its tail, where a flattened traceback states its exception. Thirty 8 MB
# source lines inside one traceback kept whole held 2.3 GB.
MAX_KEPT_CHARS = 64 << 10
_KEPT_TAIL = 16 << 10


class RecordParser(RecordStarts, RecordStates):
    """Folds the lines the scan hands over into incidents, one open record per stream."""

    def __init__(self, emit: Callable[[Incident], Incident | None], signature=None):
        """`emit` receives each incident and returns the one it was folded into (None if dropped).
        `signature.search(text)` finds lines that are failures by content alone (the KB's trigger
        phrases, trigger.Phrases), such as the second line of a wrapped message whose first line was
        cut off."""
        self._emit = emit
        self._signature = signature
        self._open: dict[tuple, OpenRecord] = {}
        # text -> kind of the one-line incident it is ("" for none); warnings and metrics repeat
        # across ranks and steps, so most candidate lines were classified before
        self._memo = Memo()
        self._texts = Memo()  # text -> its template's entry in _memo, once that is known
        self._in_record = Memo()  # text -> failure kind ("" for none) of a line inside a traceback
        self._timeless = Memo()  # the heads of lines that state no time (a traceback's lines repeat on every rank)
        self._frame_lines = Memo()  # text -> what it is among a traceback's frames (recordstates._frame_line)
        self._dumped: set = set()  # streams whose faulthandler dump began: its frames are the signal's, not a traceback's
        self._clock: dict[tuple, str] = {}  # stream -> the last time a line of it stated
        self.cut_lines = 0  # lines longer than MAX_KEPT_CHARS, kept shortened
        self.cut_frames = 0  # frames dropped from the middle of tracebacks longer than MAX_FRAMES

    @property
    def busy(self) -> bool:
        return bool(self._open)

    # ---- entry points ----------------------------------------------------------------------
    def feed(self, line: Line) -> Incident | str | None:
        """Take one line. Return what another line of the same text would do while no record is
        open: NOTHING, or the folded incident it adds to (None when that cannot be said)."""
        if len(line.text) > MAX_KEPT_CHARS:
            line = replace(line, text=_shortened(line.text))
            self.cut_lines += 1
        stream = line.stream
        head = line.text[:80]  # where line_time looks, when the line has no time stamp prefix
        if line.ts or head not in self._timeless:
            when = line_time(line)
            if when is not None:
                self._clock[stream] = when
            elif not line.ts:
                self._timeless.remember(head, True)
        op = self._open.get(stream)
        if op is not None and self._continue(op, line):
            return None
        return self._start(line)

    def close(self) -> None:
        for op in list(self._open.values()):
            self._finish(op)
        self._open.clear()

    # ---- finishing records and helpers ---------------------------------------------------------
    def _add(self, op: OpenRecord, line: Line) -> None:
        lines = op.incident.lines
        if len(lines) < MAX_RECORD_LINES or op.state != "frames":
            lines.append(line)

    def note_time(self, stream: tuple, when: str) -> None:
        """A time the stream stated in lines the scan did not hand over."""
        if when > self._clock.get(stream, ""):
            self._clock[stream] = when

    def _stamped(self, inc: Incident) -> Incident:
        inc.when = self._clock.get(inc.first.stream)  # feed() just read this line's own time
        return inc

    def _stamp(self, inc: Incident) -> None:
        """The incident's time: its own first stated time, else the last one its stream stated."""
        for line in inc.lines[:8]:
            when = line_time(line)
            if when is not None:
                inc.when = when
                return
        inc.when = self._clock.get(inc.first.stream)

    def _finish(self, op: OpenRecord) -> None:
        inc = op.incident
        self._open.pop(inc.first.stream, None)
        if inc.kind == "traceback" and not inc.frames and not inc.chain and not L.cut_in_first_frame(inc):
            # a lone "Traceback (most recent call last):" says only that something raised: it is kept as
            # that header alone (the lines after it are not its frames), ranked under any failure the
            # log states (elect), and never lets the run be called clean
            del inc.lines[1:]
        if op.innermost_first:
            inc.frames.reverse()  # the model keeps the innermost frame last
        L.read_root_cause(inc)
        self._stamp(inc)
        self._emit(inc)


def _shortened(text: str) -> str:
    cut = len(text) - MAX_KEPT_CHARS
    return f"{text[:MAX_KEPT_CHARS - _KEPT_TAIL]} … [{cut} characters cut] … {text[-_KEPT_TAIL:]}"
