"""Similar public reports: the issue threads whose error states the failure a log shows.

A failure no entry names is usually someone else's too, reported in a framework's issue tracker. A
person compares a report with their own failure by the exception, its message (numbers, paths and
names aside) and where it was raised. So does this module: a failure, the log's root or a report's
pasted error, is reduced to a `Signature` (the exception's own name, the canonical message of
textnorm.canon, the telling frames, the defining tokens of defining.py), and a report is scored
against a failure by what the two share: TF-IDF over the canonical message, rapidfuzz over its
words, the frames in common. A report whose defining token or exception differs is never similar,
however alike the words (exit -8 against -9, an empty shape against a sized one).

The store of reports (SQLite, FTS5 for the candidate set) is vlkb/reports.py; this module is the pure
part, in the core, so that reading a report and reading a log are the same code.
"""
from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from . import defining, tfidf
from .elect import elect
from .fold import Collector
from .lead import STDLIB
from .incidenttext import incident_tokens
from .model import Incident
from .reader import ReadStats, Source
from .records import RecordParser
from .scan import scan
from .textnorm import canon

MESSAGE_CHARS = 600  # of a message, as the matcher reads it: a long one's head decides
MAX_FRAMES = 4
# frames in nearly every traceback (torch's module plumbing, decorators, launchers' entry points):
# sharing them says nothing
PLUMBING = frozenset({"_call_impl", "_wrapped_call_impl", "wrapper", "decorate_context", "inner", "__call__",
                      "<module>", "main", "run", "launch", "forward", "_fn", "new_fn", "wrapped_fn"})
# the weights of what a report and a failure share; without frames on both sides the message decides
WEIGHTS = {"tfidf": 0.5, "fuzzy": 0.3, "frames": 0.2}
FLOOR = 0.6  # below it a report is not shown as similar: on the dev split's unknowns, those under it were other failures
MIN_TEXT = 12  # a canonical message shorter than this ("error", "killed") compares nothing
# a message of fewer words than this besides its exception's name ("list index out of range", a
# KeyError's key, a launcher's "returned non-zero exit status") is said by thousands of different
# failures: only with a telling frame in common is a report of it the same failure
SPECIFIC_WORDS = 4
# the words of a traceback's or a thread dump's header are in every report that pastes one
_HEADERS = re.compile(r"Traceback \(most recent call last\):?|\(most recent call first\):?")
_GENERIC = frozenset("""the and for not with from this that are was were has have had but can cannot could
out into onto than then there their its only also any all one when while which what got get error errors
exception failed failure invalid expected unexpected none object objects found""".split())
_WORD = re.compile(r"[^\W\d_]{3,}")


def message_words(text: str) -> list[str]:
    """The words of a canonical message that FTS5 indexes and specificity counts: letters only, three or more."""
    return _WORD.findall(text)


# the names a message quotes ('dtype', `pad_token`, ‘x‘) or calls (format_example()): "'NoneType' object
# has no attribute 'dtype'" and "... 'device'" share every other word and are different failures
_NAMES = re.compile(r"['`\u2018\u2019\u201c\u201d\"]([A-Za-z_][\w.]{0,80})['`\u2018\u2019\u201c\u201d\"]"
                    r"|\b([A-Za-z_][\w.]{0,80})\(\)")
# an exit status a launcher or a shell states: 127 (command not found) and 1 are different failures
_STATUS = re.compile(r"(?:exit(?:ed with)?(?: non-zero)? status|exit code|exitcode|return code)\s*[:=]?\s*(-?\d{1,10})\b",
                     re.I)
MIN_NAME_OVERLAP = 0.5  # of the quoted names, both sides' union (Jaccard)


# a quoted path: its file's name is what the message is about ("No such file or directory: '.../nvcc'")
_QUOTED_PATH = re.compile(r"['\"`](?:[A-Za-z]:)?[^'\"`\s]{0,300}[\\/]([^'\"`\s\\/]{1,120})['\"`]")


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

    @property
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
_CPP_FRAME = re.compile(r"^\s*frame #\d+: ")
# a traceback's frame line taken for a root's message (a logger that prints the frames of its own error)
_FRAME_LINE = re.compile(r'\bFile "[^"]{1,500}", line \d+')
# a logger that quotes the real error ("mmengine - WARNING - command error: '...'!"): the quoted error is
# the message
_QUOTED_ERROR = re.compile(r"\bcommand error: '(.{12,})'!?\s*$")


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


_EXCEPTION = re.compile(r"^\W{0,4}(?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception|Exit|Interrupt)):")


def text_signature(text: str) -> Signature:
    """A pasted error the parser finds no failure in (a message quoted without its exception, a
    warning-shaped line): its words as they stand."""
    head = " ".join(text.split())[:MESSAGE_CHARS]
    m = _EXCEPTION.match(head)
    exc = m.group(1) if m else None
    return Signature(exc, _canonical(None, head), (), _deciding(defining.tokens(head), head))


class Reader:
    """A pasted excerpt (a report's error, a fixture) to its root incident, by the same parser and
    election as a log. `trigger` and `phrases` are the engine's, so the KB's failure phrases count."""

    def __init__(self, trigger=None, phrases=None):
        self.trigger, self.phrases = trigger, phrases

    def root(self, text: str, label: str = "report") -> Incident | None:
        data = text.encode("utf-8", "replace")
        collector = Collector()
        parser = RecordParser(collector.add, self.phrases)
        scan([Source(label, lambda: io.BytesIO(data))], parser, ReadStats(), None, self.trigger, collector, 1)
        incidents = elect(collector.order)
        return incidents[0] if incidents and incidents[0].root else None


@dataclass(frozen=True)
class Likeness:
    """How one report resembles a failure: the score and what it rests on."""

    score: float
    parts: dict  # signal -> score in [0, 1]
    shared_words: tuple[str, ...]  # the message's informative words the report also states
    shared_frames: tuple[str, ...]


def compare(mine: Signature, my_vec: dict, theirs: Signature, their_vec: dict, idf: dict) -> Likeness | None:
    """The report's likeness to the failure; None when a deciding token or the exception differs."""
    if not (mine.usable and theirs.usable):
        return None
    if mine.exception and theirs.exception and mine.exception != theirs.exception:
        return None
    for kind, values in mine.defining.items():
        other = theirs.defining.get(kind)
        if kind == "names":
            if other and len(values & other) < MIN_NAME_OVERLAP * len(values | other):
                return None
        elif other and not values & other:
            return None
    if ("signal" in mine.defining) != ("signal" in theirs.defining):
        return None  # a process killed by a signal and one that raised are different failures
    both = set(mine.frames) & set(theirs.frames)
    if not both and min(mine.specificity, theirs.specificity) < SPECIFIC_WORDS:
        return None
    parts = {"tfidf": max(0.0, tfidf.cosine(my_vec, their_vec)),
             "fuzzy": fuzz.token_set_ratio(mine.text, theirs.text) / 100 * _length_ratio(mine.text, theirs.text)}
    weights = dict(WEIGHTS)
    if mine.frames and theirs.frames:
        parts["frames"] = len(both) / min(len(mine.frames), len(theirs.frames))
    else:
        weights.pop("frames")
    total = sum(weights.values())
    score = sum(parts[k] * w for k, w in weights.items()) / total
    words = sorted(set(my_vec) & set(their_vec), key=lambda t: -idf.get(t, 0.0))[:6]
    return Likeness(round(score, 4), {k: round(v, 4) for k, v in parts.items()}, tuple(words),
                    tuple(f for f in mine.frames if f in both))


def _length_ratio(a: str, b: str) -> float:
    """token_set_ratio is 100 when one text's words are a subset of the other's: a three-word message
    would equal every long one holding its words. Scale by how alike the lengths are (square root: a
    report that adds a clause is still the same failure)."""
    short, long_ = sorted((len(a.split()), len(b.split())))
    return math.sqrt(short / long_) if long_ else 0.0


def query_words(sig: Signature, idf: dict, n: int = 12) -> list[str]:
    """The message's most informative words (by the reports' idf), for the FTS5 candidate query."""
    words = set(message_words(sig.text))
    return sorted(words, key=lambda w: (-idf.get(w, 0.0), w))[:n]


_FIX_WORDS = {"fix": "fixed by", "workaround": "worked around by", "no-fix": "closed without a fix"}  # fixed-in: its release
_REPO = re.compile(r"^https://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/\d+$")


@dataclass(frozen=True)
class Report:
    """One public report: a record of data/reports, the user's, or a KB fixture (vlkb/reports.py reads them)."""

    url: str
    error: str  # the error as the report printed it (a fixture: its whole log window)
    title: str | None = None
    frames: tuple[str, ...] = ()
    framework: str | None = None
    model: str | None = None
    versions: dict = field(default_factory=dict)
    fix_kind: str = "unknown"
    fix_text: str = ""
    fix_version: str | None = None
    entry: str | None = None  # the KB entry a fixture proves
    origin: str = "public"  # "public" (data/reports), "kb" (a fixture), "user" ($VLKB_HOME/reports)

    @property
    def repo(self) -> str | None:
        m = _REPO.match(self.url)
        return m.group(1) if m else None

    def excerpt(self) -> str:
        """The text the parser reads: the frames under a traceback header, then the error."""
        if not self.frames:
            return self.error
        return "\n".join(["Traceback (most recent call last):", *(f"  {f.strip()}" for f in self.frames), self.error])


@dataclass(frozen=True)
class Found:
    """A public report found similar to the failure, as every format shows it."""

    report: Report
    quoted: str  # the report's error line, as its root was read
    likeness: Likeness

    @property
    def url(self) -> str:
        return self.report.url

    @property
    def entry(self) -> str | None:
        """The KB entry whose fixture this report is: vlkb files it under that entry."""
        return self.report.entry

    @property
    def resolution(self) -> str:
        """What resolved it, in one line, or "" when the report does not say; a report an entry's
        fixture proves says which."""
        said = self._said()
        if self.entry:
            return (f"{said}; " if said else "") + f"vlkb entry {self.entry} (`vlkb kb show {self.entry}`)"
        return said

    def _said(self) -> str:
        r = self.report
        words = _FIX_WORDS.get(r.fix_kind, "")
        version = f" {r.fix_version}" if r.fix_version else ""
        if r.fix_kind == "no-fix":
            return words + (f": {r.fix_text}" if r.fix_text else "")
        if r.fix_kind == "fixed-in":
            return f"fixed in{version or ' the project'}" + (f": {r.fix_text}" if r.fix_text else "")
        return f"{words} {r.fix_text}".strip() if r.fix_text else ""

    @property
    def why(self) -> str:
        """What it shares with the failure: the message's telling words, the frames."""
        parts = []
        if self.likeness.shared_words:
            parts.append("message: " + " ".join(self.likeness.shared_words))
        if self.likeness.shared_frames:
            parts.append("frames: " + ", ".join(self.likeness.shared_frames))
        return "; ".join(parts)

    @property
    def stated_versions(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(self.report.versions.items()))

    def to_json(self) -> dict:
        r = self.report
        return {"url": r.url, "title": r.title, "repo": r.repo, "quoted": self.quoted,
                "score": self.likeness.score, "signals": self.likeness.parts,
                "shared_words": list(self.likeness.shared_words), "shared_frames": list(self.likeness.shared_frames),
                "framework": r.framework, "model": r.model, "versions": r.versions,
                "resolution": {"kind": r.fix_kind, "text": r.fix_text or None, "version": r.fix_version, "entry": r.entry},
                "origin": r.origin}
