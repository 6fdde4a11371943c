"""What one line of a record says, read without the parser's state: an exception line (strict outside a
traceback), a frame, pytest's exception line, a job runner's prefix on every line, the rank a line came
from, and torchrun's root-cause block. records.RecordParser folds lines into incidents with these."""
from __future__ import annotations

import re

from . import patterns as P
from . import rx
from .model import Frame, Incident, Line


def exception_line(text: str, strict: bool) -> tuple[str, str] | None:
    """(type, message) when `text` is a Python exception line."""
    if not text or text[0].isspace():
        return None
    m = P.EXC_LINE.match(text.rstrip())
    if not m:
        return None
    has_colon = m.group("msg") is not None
    if strict and not has_colon and not P.BARE_EXC.match(text):
        return None
    if not (has_colon or P.EXC_SUFFIX.search(m.group("name"))):
        return None
    if strict and not P.EXC_SUFFIX.search(m.group("name")) \
            and not (P.QUALIFIED_TYPE.match(m.group("type")) and (m.group("msg") or "").strip()):
        return None
    if m.group("name") in ("Error", "Exception") and not (m.group("msg") or "").strip():
        return None  # a user's "Error:" heading, not a raised exception
    return m.group("type"), (m.group("msg") or "").strip()


def caused_by(text: str) -> tuple[str, str] | None:
    """(type, message) of a JVM or Node chain's `Caused by: <exception line>`."""
    m = P.CAUSED_BY.match(text)
    return exception_line(text[m.end():], strict=True) if m else None


def cut_in_first_frame(inc: Incident) -> bool:
    """A traceback header whose first frame the excerpt cut ('  File "/home/u/proj', even '  Fi'), or
    flattened onto the header's own line by a paste that lost the newlines; a thread's exception header
    ("Exception in thread Thread-5:") however little of its traceback follows."""
    first = inc.lines[0].text
    if P.THREAD_EXC.match(first):
        return True
    found = P.TRACEBACK.search(first)
    if found and 'File "' in first[found.end():]:
        return True
    nxt = next((line.text.strip() for line in inc.lines[1:3] if line.text.strip()), "")
    return bool(nxt) and (P.CUT_FRAME.match(nxt) is not None or 'File "'.startswith(nxt)
                          or "Traceback (most recent call last):".startswith(nxt))


def pytest_exception(text: str) -> tuple[str, str] | None:
    """pytest's exception line, "E       RuntimeError: msg", as (type, message)."""
    m = P.PYTEST_EXC.match(text)
    return exception_line(text[m.end():], strict=True) if m else None


def frame(m: re.Match) -> Frame:
    """A frame from any of the frame patterns (groups file, line and func)."""
    return Frame(m.group("file"), int(m.group("line") or 0), (m.group("func") or "").strip())


DIGITS = rx.compile(r"\d")


def prefix_shape(head: str) -> str:
    """A job runner's prefix on every line (`2023-04-29 06:01:12.977 [177/train/578 (pid 1)] [id] `),
    digits masked, so the traceback's own lines can be read under it; "" when there is none to strip.
    Rank prefixes were already removed, and an indented or boxed header has no prefix."""
    if len(head) < 8 or not head.endswith(" ") or "─" in head or head[0] in "│╭":
        return ""
    if head[0] in " |" and sum(ch.isdigit() for ch in head) < 6:
        return ""  # indentation, or a table's cell without a time stamp in it (a log console's export has one)
    return DIGITS.sub("0", head)


def shorter_prefix(prefix: str, text: str) -> str:
    """The header's prefix held more than its frames' (a logger's prefix, then the server's own
    "[2024-11-14 22:16:37 TP0] " before "Traceback"): the longest part of it, cut after a space, that
    the first frame line starts with, when a frame follows it; else ""."""
    for end in range(len(prefix) - 1, 7, -1):
        if prefix[end - 1] == " " and prefix_shape(text[:end]) == prefix[:end] and P.frame_match(text[end:]):
            return prefix[:end]
    return ""


def ranks(line: Line) -> list[str]:
    return [line.who] if line.who is not None else []


def read_root_cause(inc: Incident) -> None:
    """torchrun's ChildFailedError names the rank that failed first, and how it died."""
    in_root = False
    for line in inc.lines:
        if P.ROOT_CAUSE.search(line.text):
            in_root = True
        elif in_root:
            m = P.BLOCK_RANK.match(line.text)
            if m:
                inc.root_rank = m.group(1)
                return
