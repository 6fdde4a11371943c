"""Similar public reports: the issue threads whose error states the failure a log shows.

A failure no entry names is usually someone else's too, reported in a framework's issue tracker. A
person compares a report with their own failure by the exception, its message (numbers, paths and
names aside) and where it was raised. So does this module: a failure, the log's root or a report's
pasted error, is reduced to a `Signature` (the exception's own name, the canonical message of
textnorm.canon, the telling frames, the defining tokens of defining.py), and a report is scored
against a failure by what the two share: TF-IDF over the canonical message, rapidfuzz over its
words, the frames in common. A report whose defining token or exception differs is never similar,
however alike the words (exit -8 against -9, an empty shape against a sized one).

The store of reports (SQLite, FTS5 for the candidate set) is vlkb/report_index.py; this module is the pure
part, in the core, so that reading a report and reading a log are the same code. A failure's
`Signature` is read in analyzer/signature.py; the report records (`Report`, `Likeness`, `Found`) are
analyzer/publicreport.py's.
"""
from __future__ import annotations

import io
import math

from rapidfuzz import fuzz

from . import tfidf
from .elect import elect
from .fold import Collector
from .model import Incident
from .publicreport import Likeness
from .reader import ReadStats, Source
from .records import RecordParser
from .scan import scan
from .signature import Signature, message_words

# the weights of what a report and a failure share; without frames on both sides the message decides
WEIGHTS = {"tfidf": 0.5, "fuzzy": 0.3, "frames": 0.2}
FLOOR = 0.6  # below it a report is not shown as similar: on the dev split's unknowns, those under it were other failures
# a message of fewer words than this besides its exception's name ("list index out of range", a
# KeyError's key, a launcher's "returned non-zero exit status") is said by thousands of different
# failures: only with a telling frame in common is a report of it the same failure
SPECIFIC_WORDS = 4
MIN_NAME_OVERLAP = 0.5  # of the quoted names, both sides' union (Jaccard)


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
        incidents = elect(collector.incidents())
        return incidents[0] if incidents and incidents[0].root else None


def compare(mine: Signature, my_vec: dict, theirs: Signature, their_vec: dict, idf: dict,
            floor: float = 0.0) -> Likeness | None:
    """The report's likeness to the failure; None when a deciding token or the exception differs, or
    when the likeness cannot reach `floor` even with the fuzzy part at its most (fuzzy matching is
    most of a comparison's cost, and a search for close reports skips it for the far ones)."""
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
    lengths = _length_ratio(mine.text, theirs.text)
    parts = {"tfidf": max(0.0, tfidf.cosine(my_vec, their_vec)), "fuzzy": lengths}  # fuzzy: its bound, first
    weights = dict(WEIGHTS)
    if mine.frames and theirs.frames:
        parts["frames"] = len(both) / min(len(mine.frames), len(theirs.frames))
    else:
        weights.pop("frames")
    total = sum(weights.values())
    if floor > 0 and sum(parts[k] * w for k, w in weights.items()) / total < floor:
        return None
    parts["fuzzy"] = fuzz.token_set_ratio(mine.text, theirs.text) / 100 * lengths
    score = sum(parts[k] * w for k, w in weights.items()) / total
    words = sorted(set(my_vec) & set(their_vec), key=lambda t: (-idf.get(t, 0.0), t))[:6]  # ties by name: a set's order is the run's
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

