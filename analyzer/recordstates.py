"""What the next line of a stream does to the record it has open, by the record's state: a
traceback's frames, an exception's message and what may follow a blank line after it, a chain
marker before the next traceback, VS Code's notebook and debugger outputs. Each handler returns
False when the line does not belong to the record, which is then finished and the line read anew.

RecordStates is mixed into records.RecordParser and works on its state (`_open`, `_in_record`,
`_add`, `_finish`).
"""
from __future__ import annotations

from dataclasses import replace

from . import patterns as P
from . import recordlines as L
from .model import Exc, Frame, Line
from .recordstart import STANDALONE_CHARS, OpenRecord
from .standalone import standalone_kind

MAX_FRAMES = 400  # frames kept of one traceback: its outermost quarter and its innermost (a recursion's)
MAX_MESSAGE_LINES = 60
# Lines a traceback may run without a frame or its exception: source lines, carets, an IPython or rich
# frame's code context take a few each; past this the traceback is over (the process stopped, or the
# excerpt did), and the lines after it go back to being scanned, not each parsed as part of it.
MAX_FRAME_GAP = 100
# Before its first frame a plain traceback has none of those: a header followed by this many other
# lines lost its frames (a paste, interleaved output), and the lines go back to being read on their own.
HEADER_GAP = 3
CHAIN_GAP = 3  # lines allowed between a chain marker and the next "Traceback"


class RecordStates:
    """What a line does to the record its stream has open (records.RecordParser.feed)."""

    def _continue(self, op: OpenRecord, line: Line) -> bool:
        if op.prefix and L.prefix_shape(line.text[:len(op.prefix)]) == op.prefix:
            line = replace(line, text=line.text[len(op.prefix):])
        elif op.prefix and op.state == "frames" and not op.incident.frames:
            op.prefix = L.shorter_prefix(op.prefix, line.text)
            if op.prefix:
                line = replace(line, text=line.text[len(op.prefix):])
        return _HANDLERS[op.state](self, op, line)

    def _in_debugger(self, op: OpenRecord, line: Line) -> bool:
        """After VS Code's "Exception has occurred: T": the message's first line, the one to quote,
        then the frames (innermost first, as the debugger lists them)."""
        op.state, op.since_frame = "frames", 0
        if not line.text.strip() or P.frame_match(line.text) or P.TRACEBACK.search(line.text):
            return self._in_frames(op, line)
        exc = op.incident.chain[-1]
        exc.message, exc.line = line.text.strip(), line
        self._add(op, line)
        return True

    def _in_notebook(self, op: OpenRecord, line: Line) -> bool:
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

    def _in_frames(self, op: OpenRecord, line: Line) -> bool:
        text = line.text
        inc = op.incident
        kind = self._frame_lines.get(text)
        if kind is None:
            kind = _frame_line(text)
            self._frame_lines.remember(text, kind)
        if kind is not _OTHER:  # a frame, or a source line: what the rest of this method makes of it, remembered
            return self._frame_or_source(op, line, kind)
        if P.TRACEBACK.search(text) and inc.lines:
            self._finish(op)  # a new traceback: the old one was cut off
            return False
        m = P.frame_match(text) or (op.in_box and P.RICH_FRAME.match(text))
        if m:
            return self._add_frame(op, L.frame(m), line)
        if self._gap_ends(op):
            return False
        plain_header = not (inc.frames or op.ipython or op.in_box)
        if op.in_box and P.RICH_BOX.match(text):
            m = P.RICH_WRAPPED_FUNC.match(text)
            if m and inc.frames and not inc.frames[-1].func:  # "...x.py:258 in" then "│ func │"
                f = inc.frames[-1]
                inc.frames[-1] = Frame(f.file, f.lineno, m.group(1))
            self._add(op, line)
            return True
        exc = L.exception_line(text, strict=False) or L.pytest_exception(text) or _indented_exception(op, text)
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
        if op.dump and text.strip():  # faulthandler writes no source lines: its dump ended
            self._finish(op)
            return False
        self._add(op, line)  # source lines, carets, "[Previous line repeated N more times]"
        return True

    def _frame_or_source(self, op: OpenRecord, line: Line, kind) -> bool:
        """_in_frames for a line `_frame_line` told apart: a frame, or a source line under one."""
        if kind is not _SOURCE:
            return self._add_frame(op, kind, line)
        if self._gap_ends(op):
            return False
        inc = op.incident
        if op.dump or ((inc.frames or op.ipython or not op.in_box) and self._failure_kind(line.text)):
            self._finish(op)  # (faulthandler writes no source lines: a line that could be one ends its dump)
            return False
        self._add(op, line)
        return True

    def _add_frame(self, op: OpenRecord, frame: Frame, line: Line) -> bool:
        inc = op.incident
        if not inc.frames:
            op.indent = max(0, len(line.text) - len(line.text.lstrip()) - 2)
        if len(inc.frames) >= MAX_FRAMES:  # keep the outermost quarter and the innermost frames
            del inc.frames[MAX_FRAMES // 4]
            self.cut_frames += 1
        inc.frames.append(frame)
        self._add(op, line)
        op.since_frame = 0
        return True

    def _gap_ends(self, op: OpenRecord) -> bool:
        """One more line without a frame: whether it is one too many, and the record is finished."""
        op.since_frame += 1
        inc = op.incident
        plain_header = not (inc.frames or op.ipython or op.in_box)
        if op.since_frame > (HEADER_GAP if plain_header else MAX_FRAME_GAP):
            self._finish(op)
            return True
        return False

    def _in_message(self, op: OpenRecord, line: Line) -> bool:
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
        cause = L.caused_by(text)
        if cause:  # a JVM or Node chain names its causes in turn: the last is the headline, as in Python's
            op.incident.chain.append(Exc(cause[0], cause[1], line))
            op.msg_lines += 1
            self._add(op, line)
            return True
        exc = op.incident.chain[-1]
        exc.message = f"{exc.message}\n{text.strip()}" if exc.message else text.strip()
        op.msg_lines += 1
        self._add(op, line)
        return True

    def _after_message(self, op: OpenRecord, line: Line) -> bool:
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

    def _in_chain(self, op: OpenRecord, line: Line) -> bool:
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

    def _failure_kind(self, text: str) -> str | None:
        """standalone.standalone_kind without warnings, remembered: the source lines of a traceback repeat on
        every rank that prints it."""
        text = text[:STANDALONE_CHARS]  # as _classify reads it: a 1 MB line costs no more than its head
        kind = self._in_record.get(text)
        if kind is None:
            kind = standalone_kind(text, warnings=False) or ""
            self._in_record.remember(text, kind)
        return kind or None


_HANDLERS = {"frames": RecordStates._in_frames, "message": RecordStates._in_message,
             "after": RecordStates._after_message, "chain": RecordStates._in_chain,
             "notebook": RecordStates._in_notebook, "debugger": RecordStates._in_debugger}

_SOURCE, _OTHER = "source", "other"


def _frame_line(text: str):
    """What a line inside a traceback's frames is, by its text alone: its Frame, _SOURCE for a line
    that only a frame's source can be (indented code, a caret: no header, frame, box, exception, blank
    or record start), else _OTHER, which _in_frames reads with the record's state. Frames and source
    lines repeat on every rank that prints the traceback."""
    if P.TRACEBACK.search(text):
        return _OTHER
    m = P.frame_match(text)
    if m:
        return L.frame(m)
    if (not text.strip() or P.RICH_FRAME.match(text) or P.RICH_BOX.match(text) or P.RECORD_START.match(text)
            or L.exception_line(text, strict=False) or L.pytest_exception(text)
            or text[:1].isspace() and L.exception_line(text.lstrip(), strict=False)):  # an indented traceback's
        return _OTHER
    return _SOURCE


def _indented_exception(op, text: str) -> tuple[str, str] | None:
    """The exception of a traceback indented by `op.indent` columns, stated at that indentation
    (torchrun's error summary, a logger's continuation lines: "  ValueError: Mesh 'tp' is not available")."""
    d = op.indent
    if d and len(text) > d and text[:d].isspace() and not text[d].isspace() and op.incident.frames:
        return L.exception_line(text[d:], strict=False)
    return None
