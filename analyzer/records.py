"""Fold lines into incidents: tracebacks (with chains and multi-line messages) and error lines.

Each (file, host, rank) stream has its own state, so tracebacks of interleaved ranks are reassembled
per rank. The parser only sees the lines the scanner hands it; `busy` tells the scanner to hand over
every line because some stream is inside a record.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from . import patterns as P
from . import recordlines as L
from .clock import line_time
from .memo import Memo
from .model import Exc, Frame, Incident, Line
from .standalone import standalone_kind
from .textnorm import template

MAX_RECORD_LINES = 400  # a traceback longer than this keeps its head and its exception
MAX_FRAMES = 400  # frames kept of one traceback: its outermost quarter and its innermost (a recursion's)
MAX_MESSAGE_LINES = 60
# characters kept of one line the parser is handed (the reader already cuts a line longer than a chunk
# to 64 KiB): its head and its tail, where a flattened traceback states its exception. Thirty 8 MB
# source lines inside one traceback kept whole held 2.3 GB.
MAX_KEPT_CHARS = 64 << 10
_KEPT_TAIL = 16 << 10
# Lines a traceback may run without a frame or its exception: source lines, carets, an IPython or rich
# frame's code context take a few each; past this the traceback is over (the process stopped, or the
# excerpt did), and the lines after it go back to being scanned, not each parsed as part of it.
MAX_FRAME_GAP = 100
# Before its first frame a plain traceback has none of those: a header followed by this many other
# lines lost its frames (a paste, interleaved output), and the lines go back to being read on their own.
HEADER_GAP = 3
# A line is classified by its first CLASSIFY_CHARS characters: what makes a line a record (a traceback
# header, an exception type, a kill notice) is at its start or within a prefix of it, and a 100 KB
# tensor dump must not cost every regex a pass over 100 KB. A message found there keeps its full text.
CLASSIFY_CHARS = 4096
# a line that is an incident on its own (a kill notice, a watchdog, a metric) says so in its first 1 KB
STANDALONE_CHARS = 1024
CHAIN_GAP = 3  # lines allowed between a chain marker and the next "Traceback"
NOTHING = "nothing"  # what `feed` returns for a line that is no incident and opens no record


@dataclass(slots=True)
class _Open:
    incident: Incident
    state: str  # "frames" | "message" | "after" | "chain"
    gap: int = 0
    msg_lines: int = 0
    in_box: bool = False  # inside a rich traceback box
    pending_func: list = field(default_factory=list)
    ipython: bool = False  # IPython's traceback: blank lines between frames, the exception at the end
    prefix: str = ""  # the shape of a job runner's prefix before "Traceback", digits as 0: stripped from its lines
    since_frame: int = 0  # lines since the last frame (or the header)
    innermost_first: bool = False  # VS Code's debugger lists the frames innermost first


class RecordParser:
    def __init__(self, emit: Callable[[Incident], Incident | None], signature=None):
        """`emit` receives each incident and returns the one it was folded into (None if dropped).
        `signature.search(text)` finds lines that are failures by content alone (the KB's trigger
        phrases, trigger.Phrases), such as the second line of a wrapped message whose first line was
        cut off."""
        self._emit = emit
        self._signature = signature
        self._open: dict[tuple, _Open] = {}
        # text -> kind of the one-line incident it is ("" for none); warnings and metrics repeat
        # across ranks and steps, so most candidate lines were classified before
        self._memo = Memo()
        self._in_record = Memo()  # text -> failure kind ("" for none) of a line inside a traceback
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
        when = line_time(line)
        if when is not None:
            self._clock[line.stream] = when
        op = self._open.get(line.stream)
        if op is not None and self._continue(op, line):
            return None
        return self._start(line)

    def close(self) -> None:
        for op in list(self._open.values()):
            self._finish(op)
        self._open.clear()

    # ---- starting records ------------------------------------------------------------------
    def _start(self, line: Line) -> Incident | str | None:
        key = template(line.text)
        known = self._memo.get(key)
        if known is not None:
            if known:
                return self._emit(self._stamped(Incident(kind=known, lines=[line], ranks=L.ranks(line))))
            return NOTHING
        return self._classify(line, key)

    def _classify(self, line: Line, key: str) -> Incident | str | None:
        """`key`: the line's template, under which a one-line outcome is remembered."""
        full = line.text
        text = full[:CLASSIFY_CHARS]
        found = P.TRACEBACK.search(text)
        if found and 'File "' in full[found.end():]:  # a flattened traceback, read from its first 64 KB
            return self._flattened(line, full[found.end():found.end() + 16 * CLASSIFY_CHARS])
        if not found and text.lstrip().startswith('File "') and len(P.FLAT_FRAME.findall(text, 0, 2048)) >= 2:
            return self._flattened(line, full[:16 * CLASSIFY_CHARS])  # the same, its header cut off
        if found:
            inc = Incident(kind="traceback", lines=[line], ranks=L.ranks(line))
            m = P.IPYTHON_HEADER.match(text)
            if m:  # IPython names the exception first; its message comes at the end
                inc.chain.append(Exc(m.group("type"), "", line))
            self._open[line.stream] = _Open(inc, "frames", in_box=text.lstrip()[:1] in "╭│|─",
                                            ipython=m is not None, prefix=L.prefix_shape(text[:found.start()]))
            return
        if P.THREAD_EXC.match(text):  # threading's header: the thread's traceback follows
            inc = Incident(kind="traceback", lines=[line], ranks=L.ranks(line))
            self._open[line.stream] = _Open(inc, "chain")
            return
        m = P.RICH_PATH_FRAME.match(text) or (text[:1] == "│" and P.RICH_FRAME.match(text))
        if m:  # a rich traceback box whose top the excerpt lost (its row may be a wrapped path's tail)
            inc = Incident(kind="traceback", lines=[line], frames=[L.frame(m)], ranks=L.ranks(line))
            self._open[line.stream] = _Open(inc, "frames", in_box=True)
            return
        if P.frame_match(text):  # frames whose "Traceback" header the excerpt or interleaving lost
            inc = Incident(kind="traceback", lines=[], ranks=L.ranks(line))
            self._open[line.stream] = op = _Open(inc, "frames")
            self._in_frames(op, line)
            return
        m = P.DEBUGGER_EXC.match(text)
        if m:  # the message follows on the next line, then the frames
            inc = Incident(kind="error", lines=[line], ranks=L.ranks(line), chain=[Exc(m.group("type"), "", line)])
            self._open[line.stream] = _Open(inc, "debugger", innermost_first=True)
            return
        m = P.NOTEBOOK_NAME.match(text)
        if m:  # the message follows on the next line
            inc = Incident(kind="error", lines=[line], ranks=L.ranks(line), chain=[Exc(m.group("type"), "", line)])
            self._open[line.stream] = _Open(inc, "notebook")
            return
        exc = L.exception_line(full if len(full) <= CLASSIFY_CHARS else text, strict=True)
        if exc is not None and len(full) > CLASSIFY_CHARS:  # the type leads the line: the message is the rest
            exc = (exc[0], full[len(exc[0]):].lstrip(":").strip())
        if exc is None:
            # the regex is tried at every position; the words it needs are found by a substring test
            m = P.LOGGED_EXC.search(text) if "Error" in text or "Exception" in text else None
            if m:
                exc = (m.group("type"), full[m.start("msg"):].strip()) if m.group("type") else (m.group("qualified"), "")
            elif P.CPP_FRAME.match(text) or P.MESSAGE_FOLLOWS.match(text):
                # a C++ backtrace whose message the excerpt cut (its frames follow); a message printed
                # without its exception type whose telling part follows (P.MESSAGE_FOLLOWS)
                exc = (None, full.strip())
        if exc is not None:
            inc = Incident(kind="error", lines=[line], ranks=L.ranks(line), chain=[Exc(exc[0], exc[1], line)])
            self._open[line.stream] = _Open(inc, "message")
            return
        kind = standalone_kind(text[:STANDALONE_CHARS], warnings=True)
        if kind == "logged" and self._signature is not None and self._signature.search(text):
            kind = None  # a logged error the KB knows by its words is read as the error it states
        if kind:
            self._memo.remember(key, kind)
            return self._emit(self._stamped(Incident(kind=kind, lines=[line], ranks=L.ranks(line))))
        if self._signature is not None and self._signature.search(text) and not P.RAISE_LINE.match(text):
            inc = Incident(kind="error", lines=[line], ranks=L.ranks(line), chain=[Exc(None, full.strip(), line)])
            self._open[line.stream] = _Open(inc, "message")
            return None
        self._memo.remember(key, "")
        return NOTHING

    def _flattened(self, line: Line, rest: str) -> None:
        """A traceback whose newlines a paste turned into spaces (Markdown outside a code block):
        its frames and its exception are read from the one line."""
        found = list(P.FLAT_FRAME.finditer(rest))
        inc = Incident(kind="traceback", lines=[line], frames=[L.frame(m) for m in found], ranks=L.ranks(line))
        tail = rest[found[-1].end():] if found else rest
        m = P.FLAT_EXC.search(tail)
        if m:
            inc.chain.append(Exc(m.group("type"), (m.group("msg") or "").strip(), line))
        self._open[line.stream] = _Open(inc, "message" if inc.chain else "frames")

    # ---- continuing records: return False when the line does not belong here -----------------
    def _continue(self, op: _Open, line: Line) -> bool:
        if op.prefix and L.prefix_shape(line.text[:len(op.prefix)]) == op.prefix:
            line = replace(line, text=line.text[len(op.prefix):])
        elif op.prefix and op.state == "frames" and not op.incident.frames:
            op.prefix = L.shorter_prefix(op.prefix, line.text)
            if op.prefix:
                line = replace(line, text=line.text[len(op.prefix):])
        handler = {"frames": self._in_frames, "message": self._in_message,
                   "after": self._after_message, "chain": self._in_chain, "notebook": self._in_notebook,
                   "debugger": self._in_debugger}[op.state]
        return handler(op, line)

    def _in_debugger(self, op: _Open, line: Line) -> bool:
        """After VS Code's "Exception has occurred: T": the message's first line, the one to quote,
        then the frames (innermost first, as the debugger lists them)."""
        op.state, op.since_frame = "frames", 0
        if not line.text.strip() or P.frame_match(line.text) or P.TRACEBACK.search(line.text):
            return self._in_frames(op, line)
        exc = op.incident.chain[-1]
        exc.message, exc.line = line.text.strip(), line
        self._add(op, line)
        return True

    def _in_notebook(self, op: _Open, line: Line) -> bool:
        """VS Code's JSON error output: `"message": "...` (then its further lines) after the type."""
        exc = op.incident.chain[-1]
        if exc.line is op.incident.first and not exc.message:
            m = P.NOTEBOOK_MESSAGE.match(line.text)
            if m is None:  # not the shape after all: a "name" key of some other JSON
                self._open.pop(op.incident.first.stream, None)
                return False
            exc.message, exc.line = m.group("msg"), line
            self._add(op, line)
            if line.text.rstrip().endswith('",'):
                self._finish(op)
            return True
        end = P.NOTEBOOK_END.match(line.text)
        if end or P.TRACEBACK.search(line.text) or op.msg_lines >= MAX_MESSAGE_LINES:
            self._finish(op)
            return bool(end) and end.group().strip() == '",'  # the message's closing quote is its own
        exc.message = f"{exc.message}\n{line.text.strip()}"
        op.msg_lines += 1
        self._add(op, line)
        return True

    def _in_frames(self, op: _Open, line: Line) -> bool:
        text = line.text
        inc = op.incident
        if P.TRACEBACK.search(text) and inc.lines:
            self._finish(op)  # a new traceback: the old one was cut off
            return False
        m = P.frame_match(text) or (op.in_box and P.RICH_FRAME.match(text))
        if m:
            if len(inc.frames) >= MAX_FRAMES:
                del inc.frames[MAX_FRAMES // 4]
                self.cut_frames += 1
            inc.frames.append(L.frame(m))
            self._add(op, line)
            op.since_frame = 0
            return True
        op.since_frame += 1
        plain_header = not (inc.frames or op.ipython or op.in_box)
        if op.since_frame > (HEADER_GAP if plain_header else MAX_FRAME_GAP):
            self._finish(op)
            return False
        if op.in_box and P.RICH_BOX.match(text):
            m = P.RICH_WRAPPED_FUNC.match(text)
            if m and inc.frames and not inc.frames[-1].func:  # "...x.py:258 in" then "│ func │"
                f = inc.frames[-1]
                inc.frames[-1] = Frame(f.file, f.lineno, m.group(1))
            self._add(op, line)
            return True
        exc = L.exception_line(text, strict=False) or L.pytest_exception(text)
        if exc is not None:
            inc.chain.append(Exc(exc[0], exc[1], line))
            self._add(op, line)
            op.state, op.msg_lines = "message", 0
            return True
        if text.strip() == "" and len(inc.lines) > 1 and not inc.frames and not op.ipython:
            self._finish(op)
            return False
        if (inc.frames or op.ipython or plain_header) and (P.RECORD_START.match(text) or self._failure_kind(text)):
            self._finish(op)  # the process stopped mid-traceback, or the excerpt did
            return False
        self._add(op, line)  # source lines, carets, "[Previous line repeated N more times]"
        return True

    def _in_message(self, op: _Open, line: Line) -> bool:
        text = line.text
        if text.strip() == "":
            op.state, op.gap = "after", 0
            return True
        if P.ORIGINAL_TRACEBACK.match(text):  # the worker's traceback inside the wrapper's message
            op.state = "frames"
            self._add(op, line)
            return True
        if P.TRACEBACK.search(text) or P.RECORD_START.match(text) or op.msg_lines >= MAX_MESSAGE_LINES:
            self._finish(op)
            return False
        if P.CHAIN.match(text):
            op.state, op.gap = "chain", 0
            self._add(op, line)
            return True
        exc = op.incident.chain[-1]
        exc.message = f"{exc.message}\n{text.strip()}" if exc.message else text.strip()
        op.msg_lines += 1
        self._add(op, line)
        return True

    def _after_message(self, op: _Open, line: Line) -> bool:
        """After a blank line: a chain marker continues the incident, anything else ends it."""
        if P.CHAIN.match(line.text):
            op.state, op.gap = "chain", 0
            self._add(op, line)
            return True
        if line.text.strip() == "" and op.gap < 1:
            op.gap += 1
            return True
        self._finish(op)
        return False

    def _in_chain(self, op: _Open, line: Line) -> bool:
        if P.TRACEBACK.search(line.text):
            op.state = "frames"
            op.in_box = line.text.lstrip()[:1] in "╭│|"
            self._add(op, line)
            return True
        if line.text.strip() == "" and op.gap < CHAIN_GAP:
            op.gap += 1
            return True
        self._finish(op)
        return False

    # ---- helpers -------------------------------------------------------------------------------
    def _failure_kind(self, text: str) -> str | None:
        """_standalone_kind without warnings, remembered: the source lines of a traceback repeat on
        every rank that prints it."""
        text = text[:STANDALONE_CHARS]  # as _classify reads it: a 1 MB line costs no more than its head
        kind = self._in_record.get(text)
        if kind is None:
            kind = standalone_kind(text, warnings=False) or ""
            self._in_record.remember(text, kind)
        return kind or None

    def _add(self, op: _Open, line: Line) -> None:
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

    def _finish(self, op: _Open) -> None:
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


