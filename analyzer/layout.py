"""Raw line -> its cleaned parts, the per-line work of the scan, keyed by the line's layout.

A line's cleaning depends on where its prefixes end, never on the values of its digits (textnorm.
clean_spans). So lines that differ only in their digits (each rank's copy of a traceback line, a
watchdog notice with its own time and pid) are cleaned once: the first one's layout (where the text,
the rank, the host and the time sit) is remembered under the line with every digit zeroed, and the
next ones are cut at the same offsets. That holds for plain ASCII without control bytes, where a
character is a byte and terminal stripping removes nothing; every other line is cleaned in full.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import rx
from .memo import MAX_KEY_LEN, Memo
from .model import who_label
from .textnorm import CONTROL_C0, CleanLine, Span, clean, clean_spans, split_glued, unflatten

# every digit as 0: lines of one such key differ only in their digits, so they clean alike and hold
# their parts at the same byte offsets when they are plain ASCII
_ZEROS = bytes.maketrans(b"123456789", b"000000000")
# bytes after which offsets in the raw line are not offsets in the cleaned one: C0 controls (a \r
# redraw keeps only its last part), syslog's escaped ESC ("#033["), an escaped newline (a flattened
# traceback is split in lines), a colour code that lost its ESC at the line's start (textnorm strips it)
# (looked for with bytes methods: a regex alternation tried at every position was a tenth of a noisy log's scan)
_C0_BYTES = bytes([*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f])  # CONTROL_C0's class
_SGR_AT_START = rx.compile(rb"\[(?:\d{1,3};){0,4}\d{1,3}m")


def _moves(raw: bytes) -> bool:
    return (len(raw.translate(None, _C0_BYTES)) != len(raw) or b"#033[" in raw or b"\\n" in raw
            or (raw[:1] == b"[" and _SGR_AT_START.match(raw) is not None))


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a cleaned line's parts sit in its raw text."""

    text_at: int
    rank: Span | None
    host: Span | None
    ts: Span | None

    def cut(self, raw: str) -> CleanLine:
        return CleanLine(raw[self.text_at:], _part(raw, self.rank), _part(raw, self.host), _part(raw, self.ts))


def _part(raw: str, span: Span | None) -> str | None:
    return raw[span[0]:span[1]] if span else None


class Cleaner:
    """Cleans raw lines into the parts the parser reads, remembering both whole lines (a warning
    repeated byte for byte) and layouts (the same line with new digits)."""

    def __init__(self):
        self.lines = Memo()  # raw line -> its cleaned parts
        self.layouts = Memo()  # raw line with its digits zeroed -> its Layout (False: clean it in full)

    def __call__(self, raw: bytes) -> list[CleanLine]:
        parts = self.lines.get(raw)
        if parts is None:
            parts = self._by_layout(raw) or _cleaned(raw.decode("utf-8", "replace"))
            self.lines.remember(raw, parts)
        return parts

    def who(self, raw: bytes) -> str | None:
        """The rank label of a raw line, as a full clean of the whole line reads it (the scan counts
        the ranks of lines it skips by shape): cut at its layout's offsets when it has one."""
        layout = self._layout_of(raw)
        if not layout:
            c = clean_spans(raw.decode("utf-8", "replace"))[0]
            return who_label(c.rank, c.host)
        text = raw.decode("ascii")
        return who_label(_part(text, layout.rank), _part(text, layout.host))

    def _by_layout(self, raw: bytes) -> list[CleanLine] | None:
        layout = self._layout_of(raw)
        return [layout.cut(raw.decode("ascii"))] if layout else None

    def _layout_of(self, raw: bytes) -> Layout | None:
        """The layout of a plain ASCII line without control bytes, remembered per digit-zeroed form;
        None for any other line, and for one that is not cut from its raw text (_layout)."""
        if len(raw) > MAX_KEY_LEN or not raw.isascii() or _moves(raw):
            return None
        key = raw.translate(_ZEROS)
        layout = self.layouts.get(key)
        if layout is None:
            layout = _layout(raw.decode("ascii"))
            self.layouts.remember(key, layout or False)
        return layout or None


def _layout(text: str) -> Layout | None:
    """The line's layout; None when it is not one cleaned line cut from the raw text (a tqdm bar
    glued before a rank's line is two, a CSV-escaped frame is rewritten)."""
    noise, _ = split_glued(text)
    if noise:
        return None
    c, rank, host, ts, text_at = clean_spans(text)
    return None if text_at < 0 else Layout(text_at, rank, host, ts)


def _cleaned(text: str) -> list[CleanLine]:
    """The parts of one decoded line: a tqdm bar glued before a rank's line, then the line, or each
    line of a traceback flattened into it."""
    noise, text = split_glued(text)
    return ([clean(noise)] if noise else []) + [clean(piece) for piece in unflatten(text)]
