"""A failure reduced to what a person compares it by: the exception, the message, where it was raised.

A `Signature` holds the exception's own name, the canonical message of textnorm.canon, the telling
frames and the deciding tokens (defining.py, an exit status, the names a message quotes). It is read
from an incident (a log's root, a report's pasted error read by similar.Reader) or, where the parser
finds no failure, from the pasted text as it stands. analyzer/similar.py compares two of them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from . import defining
from . import rx
from .lead import STDLIB
from .incidenttext import incident_tokens
from .model import Incident
from .textnorm import canon

MESSAGE_CHARS = 600  # of a message, as the matcher reads it: a long one's head decides
MAX_FRAMES = 4
# frames in nearly every traceback (torch's module plumbing, decorators, launchers' entry points):
# sharing them says nothing
PLUMBING = frozenset({"_call_impl", "_wrapped_call_impl", "wrapper", "decorate_context", "inner", "__call__",
                      "<module>", "main", "run", "launch", "forward", "_fn", "new_fn", "wrapped_fn"})
MIN_TEXT = 12  # a canonical message shorter than this ("error", "killed") compares nothing
# the words of a traceback's or a thread dump's header are in every report that pastes one
_HEADERS = rx.compile(r"Traceback \(most recent call last\):?|\(most recent call first\):?")
_GENERIC = frozenset("""the and for not with from this that are was were has have had but can cannot could
out into onto than then there their its only also any all one when while which what got get error errors
exception failed failure invalid expected unexpected none object objects found""".split())
_WORD = rx.compile(r"[^\W\d_]{3,}")


def message_words(text: str) -> list[str]:
    """The words of a canonical message that FTS5 indexes and specificity counts: letters only, three or more."""
    return _WORD.findall(text)


# the names a message quotes ('dtype', `pad_token`, ‘x‘) or calls (format_example()): "'NoneType' object
# has no attribute 'dtype'" and "... 'device'" share every other word and are different failures
_NAMES = rx.compile(r"['`\u2018\u2019\u201c\u201d\"]([A-Za-z_][\w.]{0,80})['`\u2018\u2019\u201c\u201d\"]"
                    r"|\b([A-Za-z_][\w.]{0,80})\(\)")
# an exit status a launcher or a shell states: 127 (command not found) and 1 are different failures
_STATUS = rx.compile(r"(?:exit(?:ed with)?(?: non-zero)? status|exit code|exitcode|return code)\s*[:=]?\s*(-?\d{1,10})\b",
                     re.I)


# a quoted path: its file's name is what the message is about ("No such file or directory: '.../nvcc'")
_QUOTED_PATH = rx.compile(r"['\"`](?:[A-Za-z]:)?[^'\"`\s]{0,300}[\\/]([^'\"`\s\\/]{1,120})['\"`]")


def names(text: str) -> frozenset[str]:
    """The identifiers a message quotes or calls, and the file names of the paths it quotes."""
    head = text[:MESSAGE_CHARS]
    found = {(a or b).rsplit(".", 1)[-1] for a, b in _NAMES.findall(head)}
    return frozenset(found | set(_QUOTED_PATH.findall(head)))


@dataclass(frozen=True)
class Signature:
    exception: str | None  # the type's own name: torch.OutOfMemoryError -> OutOfMemoryError
    text: str  # "exception: message", canonical (numbers, paths, hex and dotted names masked)
    frames: tuple[str, ...] = ()  # "file.py:function", innermost last, plumbing left out
    defining: dict = field(default_factory=dict)  # kind -> frozenset: defining.tokens, "status", "names"

    @property
    def usable(self) -> bool:
        """Enough to compare: a message of some length that says more than its exception's name (frames
        alone, or a bare `AssertionError`, match every report of a trainer)."""
        return len(self.text) >= MIN_TEXT and self.specificity > 0

    @cached_property  # frozen: read once per signature (a report's is compared with many logs' roots)
    def specificity(self) -> int:
        """How many distinct words the message says besides its exception's name and the words
        every error message uses."""
        name = (self.exception or "").lower()
        return len({w for w in message_words(self.text) if w != name and w not in _GENERIC})

    def to_json(self) -> dict:
        return {"exception": self.exception, "text": self.text, "frames": list(self.frames),
                "defining": {k: sorted(map(str, v)) for k, v in self.defining.items()}}

    @classmethod
    def from_json(cls, d: dict) -> "Signature":
        defining = {k: frozenset(int(x) if k in ("signal", "status") else x for x in v) for k, v in d["defining"].items()}
        return cls(d["exception"], d["text"], tuple(d["frames"]), defining)


def _canonical(exc: str | None, message: str) -> str:
    message = _HEADERS.sub(" ", message)
    return canon(f"{exc}: {message}" if exc else message)[:MESSAGE_CHARS]


# a C++ stack frame of torch's libraries ("frame #3: c10::Error::Error(...) + 0x96 (... in libc10.so)")
# is in every native crash's trace: as a root's line it says nothing of which failure it was
_CPP_FRAME = rx.compile(r"^\s*frame #\d+: ")
# a traceback's frame line taken for a root's message (a logger that prints the frames of its own error)
_FRAME_LINE = rx.compile(r'\bFile "[^"]{1,500}", line \d+')
# a logger that quotes the real error ("mmengine - WARNING - command error: '...'!"): the quoted error is
# the message
_QUOTED_ERROR = rx.compile(r"\bcommand error: '(.{12,})'!?\s*$")


def _message(inc: Incident) -> str:
    if inc.truncated:
        return ""
    message = (inc.message.strip() or inc.quoted.text.strip())[:MESSAGE_CHARS]
    if _CPP_FRAME.match(message) or _FRAME_LINE.search(message):
        return ""
    m = _QUOTED_ERROR.search(message)
    return m.group(1) if m else message


def signature(inc: Incident) -> Signature:
    exc = inc.exception.rsplit(".", 1)[-1] if inc.exception else None
    message = _message(inc)
    text = _canonical(exc, message)
    frames = tuple(f"{f.basename}:{f.func}" for f in inc.frames
                   if f.func not in PLUMBING and not STDLIB.search(f.file))[-MAX_FRAMES:]
    return Signature(exc, text, frames, _deciding(incident_tokens(inc), message))


def _deciding(tokens: dict, message: str) -> dict:
    out = dict(tokens)
    status = frozenset(int(x) for x in _STATUS.findall(message))
    if status:
        out["status"] = status
    quoted = names(message)
    if quoted:
        out["names"] = quoted
    return out


_EXCEPTION = rx.compile(r"^\W{0,4}(?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception|Exit|Interrupt)):")


def text_signature(text: str) -> Signature:
    """A pasted error the parser finds no failure in (a message quoted without its exception, a
    warning-shaped line): its words as they stand."""
    head = " ".join(text.split())[:MESSAGE_CHARS]
    m = _EXCEPTION.match(head)
    exc = m.group(1) if m else None
    return Signature(exc, _canonical(None, head), (), _deciding(defining.tokens(head), head))
