"""Which record a line opens when its stream has none open: a traceback (from its header, a frame
whose header was lost, a rich box's row, or flattened onto one line), an exception line that a
message may follow, or an incident of one line (standaloneshapes.STANDALONE).

RecordStarts is mixed into records.RecordParser and works on its state (`_open`, `_memo`, `_emit`,
`_signature`); a frame line hands on to RecordStates._in_frames.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import patterns as P
from . import recordlines as L
from .model import Exc, Incident, Line
from .standalone import standalone_kind
from .textnorm import template

# A line is classified by its first CLASSIFY_CHARS characters: what makes a line a record (a traceback
# header, an exception type, a kill notice) is at its start or within a prefix of it, and a 100 KB
# tensor dump must not cost every regex a pass over 100 KB. A message found there keeps its full text.
CLASSIFY_CHARS = 4096
# a line that is an incident on its own (a kill notice, a watchdog, a metric) says so in its first 1 KB
STANDALONE_CHARS = 1024
NOTHING = "nothing"  # what `feed` returns for a line that is no incident and opens no record


@dataclass(slots=True)
class OpenRecord:
    """A record a stream has open, and where the parser is in it."""
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
    # columns the whole traceback is indented by, read off its first frame (Python puts two spaces
    # before "File"): a traceback logged or quoted indented states its exception that far in
    indent: int = 0
    dump: bool = False  # faulthandler's frames (no source lines under them)


class RecordStarts:
    """What a line opens while its stream has no record open (records.RecordParser.feed)."""

    def _start(self, line: Line) -> Incident | str | None:
        known = self._texts.get(line.text)  # a text met before costs no template
        if known is None:
            key = template(line.text)
            known = self._memo.get(key)
            if known is None:
                return self._classify(line, key)
            self._texts.remember(line.text, known)
        if known:
            return self._emit(self._stamped(self._signalled(Incident(kind=known, lines=[line], ranks=L.ranks(line)))))
        return NOTHING

    def _signalled(self, inc: Incident) -> Incident:
        """`inc`, noting the stream whose faulthandler dump it starts (a thread's header)."""
        if inc.kind == "signal" and "(most recent call first)" in inc.first.text:
            self._dumped.add(inc.first.stream)
        return inc

    def _classify(self, line: Line, key: str) -> Incident | str | None:
        """`key`: the line's template, under which a one-line outcome is remembered."""
        full = line.text
        text = full[:CLASSIFY_CHARS]
        found = P.TRACEBACK.search(text) or ("Traceback (most" in text and P.CUT_TRACEBACK.search(text)) or None
        if found and 'File "' in full[found.end():]:  # a flattened traceback, read from its first 64 KB
            return self._flattened(line, full[found.end():found.end() + 16 * CLASSIFY_CHARS])
        if not found and text.lstrip().startswith('File "') and len(P.FLAT_FRAME.findall(text, 0, 2048)) >= 2:
            return self._flattened(line, full[:16 * CLASSIFY_CHARS])  # the same, its header cut off
        if found:
            inc = Incident(kind="traceback", lines=[line], ranks=L.ranks(line))
            m = P.IPYTHON_HEADER.match(text)
            if m:  # IPython names the exception first; its message comes at the end
                inc.chain.append(Exc(m.group("type"), "", line))
            self._open[line.stream] = OpenRecord(inc, "frames", in_box=text.lstrip()[:1] in "╭│|─",
                                            ipython=m is not None, prefix=L.prefix_shape(text[:found.start()]))
            return
        if P.THREAD_EXC.match(text):  # threading's header: the thread's traceback follows
            inc = Incident(kind="traceback", lines=[line], ranks=L.ranks(line))
            self._open[line.stream] = OpenRecord(inc, "chain")
            return
        m = P.RICH_PATH_FRAME.match(text) or (text[:1] == "│" and P.RICH_FRAME.match(text))
        if m:  # a rich traceback box whose top the excerpt lost (its row may be a wrapped path's tail)
            inc = Incident(kind="traceback", lines=[line], frames=[L.frame(m)], ranks=L.ranks(line))
            self._open[line.stream] = OpenRecord(inc, "frames", in_box=True)
            return
        m = P.frame_match(text)
        if m:  # frames whose "Traceback" header the excerpt or interleaving lost
            inc = Incident(kind="traceback", lines=[], ranks=L.ranks(line))
            faulthandler = P.FAULT_FRAME.match(text) is not None  # its frames come innermost first
            if faulthandler and line.stream in self._dumped:
                return NOTHING  # a thread's frames in the dump its header began
            self._open[line.stream] = op = OpenRecord(inc, "frames", innermost_first=faulthandler, dump=faulthandler)
            self._in_frames(op, line)
            return
        m = P.DEBUGGER_EXC.match(text)
        if m:  # the message follows on the next line, then the frames
            inc = Incident(kind="error", lines=[line], ranks=L.ranks(line), chain=[Exc(m.group("type"), "", line)])
            self._open[line.stream] = OpenRecord(inc, "debugger", innermost_first=True)
            return
        m = P.NOTEBOOK_NAME.match(text)
        if m:  # the message follows on the next line
            inc = Incident(kind="error", lines=[line], ranks=L.ranks(line), chain=[Exc(m.group("type"), "", line)])
            self._open[line.stream] = OpenRecord(inc, "notebook")
            return
        exc = L.exception_line(full if len(full) <= CLASSIFY_CHARS else text, strict=True)
        if exc is not None and len(full) > CLASSIFY_CHARS:  # the type leads the line: the message is the rest
            exc = (exc[0], full[len(exc[0]):].lstrip(":").strip())
        if exc is None:
            exc = L.caused_by(text)
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
            self._open[line.stream] = OpenRecord(inc, "message")
            return
        kind = standalone_kind(text[:STANDALONE_CHARS], warnings=True)
        if (kind == "logged" or (kind == "signal" and P.LIBCXXABI.match(text))) and self._signature is not None \
                and self._signature.search(text):
            kind = None  # a logged error or a C++ exception the KB knows by its words is read as the error it states
        if kind:
            self._memo.remember(key, kind)
            return self._emit(self._stamped(self._signalled(Incident(kind=kind, lines=[line], ranks=L.ranks(line)))))
        if self._signature is not None and self._signature.search(text) and not P.RAISE_LINE.match(text):
            inc = Incident(kind="error", lines=[line], ranks=L.ranks(line), chain=[Exc(None, full.strip(), line)])
            self._open[line.stream] = OpenRecord(inc, "message")
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
        self._open[line.stream] = OpenRecord(inc, "message" if inc.chain else "frames")
