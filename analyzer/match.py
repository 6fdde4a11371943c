"""Score an incident against every KB entry: five signals, one calibrated confidence.

- regex: the entry's anchored patterns on the incident's message lines (precise, cheap);
- fuzzy: rapidfuzz similarity of the canonical message with the entry's canonical messages
  (survives rewording, truncation, numbers, paths);
- frames: share of the entry's telling frames present in the traceback;
- tfidf: cosine of the incident's text with the entry's document (catches excerpts cut before the
  defining line, where only frames and code lines remain);
- context: the entry's hints found elsewhere in the log (a warning, a config fact).
The confidence is a logistic function of the five, with weights fitted on the fixtures at KB build
time (kb/fit.py), so 0.8 means about 8 in 10 such matches were right on the fixtures.
"""
from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from . import defining, tfidf
from .conditions import verdicts
from .incidenttext import candidates, incident_document, incident_tokens
from .lead import package_of
from .model import Incident, Line
from .patterns import frame_match
from .regexinfo import required_literals
from .textnorm import canon
from .trigger import ahocorasick_rs

SHORTLIST = 16  # best TF-IDF entries (and at most as many trigger hits) fully scored per incident
CHAMPIONS = 64  # entries kept per term in the inverted index

FEATURES = ("regex", "fuzzy", "frames", "tfidf", "context")
MIN_FUZZY_LEN = 24  # canonical messages shorter than this are too generic to compare
# An entry's message is compared by its head, the part that names the failure: partial_ratio costs
# ~1 ms for a 440-character needle against a 600-character message and ~0.1 ms for 160 characters.
FUZZY_HEAD = 160


@dataclass
class Signal:
    name: str
    score: float
    detail: str = ""
    lines: list[Line] = field(default_factory=list)
    captures: dict[str, str] = field(default_factory=dict)  # the regex's named groups, for advice


@dataclass
class Scored:
    entry: object  # vlkb.kb.loader.Entry
    incident: Incident
    confidence: float
    signals: list[Signal]
    advice: list[str] = field(default_factory=list)  # the entry's advice that the run's facts call for
    explained: str = ""  # set when one of the entry's `unless` conditions holds: harmless in this run

    @property
    def features(self) -> list[float]:
        by = {s.name: s.score for s in self.signals}
        return [by.get(f, 0.0) for f in FEATURES]

    @property
    def signal_summary(self) -> str:
        """`regex 1.00, fuzzy 0.93, ...`: the signals that fired, as the reports show them."""
        return ", ".join(f"{g.name} {g.score:.2f}" for g in self.signals)

    @property
    def evidence(self) -> list[Line]:
        seen, out = set(), []
        for s in sorted(self.signals, key=lambda s: -s.score):
            for line in s.lines:
                key = (line.path, line.lineno, line.text)
                if key not in seen:
                    seen.add(key)
                    out.append(line)
        return out


@dataclass
class Calibration:
    coef: list[float]
    intercept: float
    threshold: float

    def confidence(self, features: list[float]) -> float:
        z = self.intercept + sum(w * x for w, x in zip(self.coef, features))
        return 1.0 / (1.0 + math.exp(-z))


class Matcher:
    def __init__(self, entries: list, idf: dict[str, float], vectors: dict[str, tfidf.Vector],
                 calibration: Calibration, literals: dict[str, list[str] | None] | None = None):
        """`literals`: each pattern's required literals as `kb fit` stored them (parsed here when absent)."""
        self.entries = entries
        self.idf = idf
        self.vectors = vectors
        self.calibration = calibration
        # each entry's messages canonicalised and their defining tokens, worked out for the entries an
        # incident makes the matcher score, once each (every entry at start-up was a third of it)
        self._canon_messages: dict[str, list[str]] = {}
        self._defining: dict[str, dict] = {}
        # inverted TF-IDF index and trigger phrases: a large KB is narrowed to a shortlist per incident.
        # Each term keeps its CHAMPIONS heaviest entries (champion lists, Manning et al., IR ch. 7), and
        # terms found in over a quarter of the entries are dropped: neither discriminates.
        postings: dict[str, list[tuple[float, int]]] = {}
        for i, e in enumerate(entries):
            for term, w in vectors.get(e.id, {}).items():
                postings.setdefault(term, []).append((w, i))
        common = max(SHORTLIST, len(entries) // 4)
        self._postings = {t: [(i, w) for w, i in heapq.nlargest(CHAMPIONS, p)]
                          for t, p in postings.items() if len(p) <= common}
        self._phrase_entries: dict[str, list[int]] = {}
        for i, e in enumerate(entries):
            for phrase in dict.fromkeys(e.triggers):
                self._phrase_entries.setdefault(phrase, []).append(i)
        self._phrases = _automaton(sorted(self._phrase_entries)) if len(entries) > SHORTLIST else None
        # a regex that matches must never be left out by the shortlist: each pattern's required
        # literals (regexinfo.required_literals) put its entry in; a pattern without one, always
        by_literal: dict[str, set[int]] = {}
        self._always = set()
        # the same literals spare the regex itself: a pattern none of whose literals is in the
        # incident cannot match there, so it is neither compiled nor run (compiling the patterns of
        # the entries a log makes the matcher score was most of a small log's diagnosis)
        self._need: dict[str, tuple[str, ...] | None] = {}
        for i, e in enumerate(entries):
            for rule in e.patterns:
                pattern = rule.source
                need = literals[pattern] if literals and pattern in literals else required_literals(rule.regex)
                self._need[pattern] = tuple(need) if need else None
                if need is None:
                    self._always.add(i)
                for lit in need or ():
                    by_literal.setdefault(lit, set()).add(i)
        self._literal_entries = {lit: sorted(ids) for lit, ids in by_literal.items()}
        self._literals = _automaton(sorted(by_literal)) if len(entries) > SHORTLIST else None

    def shortlist(self, inc: Incident, doc_vec: tfidf.Vector, cands: list[tuple[str, Line]]) -> list:
        """Entries worth scoring: the best by TF-IDF through the inverted index, every entry whose
        trigger phrase appears in the incident, and every entry one of whose patterns could match
        `cands` (its required literal is there). With a KB smaller than SHORTLIST, all of them."""
        seen = "\n".join(text for text, _ in cands)
        return [self.entries[i] for i in sorted(set().union(*self._admitted(inc, doc_vec, seen)))]

    def _admitted(self, inc: Incident, doc_vec: tfidf.Vector, seen: str) -> tuple[set, set]:
        """The shortlist as two sets of entry indexes: those admitted by resemblance (TF-IDF, a
        trigger phrase) and those admitted only because one of their patterns could match (`seen`:
        the candidate texts joined). The second kind is there for its regex alone: scored in full
        only when that regex does match."""
        if len(self.entries) <= SHORTLIST:
            return set(range(len(self.entries))), set()
        acc: dict[int, float] = {}
        for term, w in doc_vec.items():
            for i, ew in self._postings.get(term, ()):
                acc[i] = acc.get(i, 0.0) + w * ew
        text = "\n".join(line.text for line in inc.lines[:200])
        hits = set()
        if self._phrases is not None:
            text, spans = _found(self._phrases, text)
            found = {text[s:e] for _, s, e in spans}
            hits = {i for phrase in found for i in self._phrase_entries.get(phrase, ())}
        rank = lambda i: acc.get(i, 0.0)  # noqa: E731
        chosen = heapq.nlargest(SHORTLIST, hits, key=rank)  # trigger hits first, best first
        chosen += heapq.nlargest(SHORTLIST, (i for i in acc if i not in hits), key=rank)
        by_regex = set(self._always)
        if self._literals is not None:
            seen, spans = _found(self._literals, seen)
            for s, e in {(s, e) for _, s, e in spans}:
                by_regex.update(self._literal_entries.get(seen[s:e], ()))
        else:  # without the automaton wheel: test the literals directly
            by_regex.update(i for lit, ids in self._literal_entries.items() if lit in seen for i in ids)
        resembling = set(chosen)
        return resembling, by_regex - resembling

    def score(self, inc: Incident, context_lines: list[Line], facts: dict | None = None) -> list[Scored]:
        """`facts`: key -> Fact read from the log (analyzer/facts.py), for the entries' conditions."""
        facts = facts or {}
        cands = candidates(inc)
        canon_msg = canon(" ".join(filter(None, [inc.exception, inc.message[:2000]])))[:600]
        doc_vec = tfidf.transform(incident_document(inc), self.idf)
        frames = {f.basename for f in inc.frames} | {f.func for f in inc.frames} | \
                 {f"{f.basename}:{f.func}" for f in inc.frames}
        mine = incident_tokens(inc)
        out = []
        seen = "\n".join(text for text, _ in cands)
        resembling, by_regex = self._admitted(inc, doc_vec, seen)
        for i in sorted(resembling | by_regex):
            entry = self.entries[i]
            regex = self._regex(entry, cands, inc, seen)
            if i in by_regex and regex.score == 0:
                continue  # admitted for a pattern whose literal is there, and the pattern failed
            if regex.score == 0 and defining.conflict(mine, self._defining_tokens(entry)):
                # the token that decides differs (exit -8 vs -9, an empty shape vs a sized one):
                # resemblance must not name this entry, only its own regex could
                signals = [self._context(entry, context_lines, facts)]
            else:
                signals = [
                    regex,
                    self._fuzzy(entry, canon_msg, inc),
                    self._frames(entry, frames, inc),
                    Signal("tfidf", round(tfidf.cosine(doc_vec, self.vectors.get(entry.id, {})), 4)),
                    self._context(entry, context_lines, facts),
                ]
            signals = [s for s in signals if s.score != 0]
            conf = self.calibration.confidence(_features(signals))
            if inc.exception and inc.message.strip() and not inc.truncated and not _stated(signals):
                # the log states an exception that neither the entry's patterns nor its messages resemble:
                # frames and vocabulary alone say where it happened, not that it is this failure (a bare
                # `AssertionError` states nothing to resemble: its frames may decide)
                conf = min(conf, self.calibration.threshold * BELOW)
            captures = next((g.captures for g in signals if g.name == "regex"), {})
            advice = [a for a in (x.render(facts, captures) for x in entry.advice) if a]
            harmless = [c for c in entry.unless if c.holds(facts)]
            explained = "; ".join(f"log shows {c.describe()}" + (f" ({c.note})" if c.note else "") for c in harmless)
            out.append(Scored(entry, inc, 0.0 if harmless else round(conf, 4), signals, advice, explained))
        # confidence saturates near 1 and is rounded: among equals, the entry with more evidence leads
        out.sort(key=lambda s: (-s.confidence, -sum(g.score for g in s.signals)))
        return out

    def _regex(self, entry, cands, inc: Incident, seen: str) -> Signal:
        """`seen`: the candidate texts joined, where a pattern's required literals are looked for."""
        best = Signal("regex", 0.0)
        for rule in entry.patterns:
            if rule.raised_in == "library" and not raised_in_library(inc):
                continue
            need = self._need.get(rule.source)
            if need is not None and not any(lit in seen for lit in need):
                continue
            for text, line in cands:
                m = rule.regex.search(text)
                if m:
                    if rule.weight > best.score:
                        best = Signal("regex", rule.weight, rule.regex.pattern, [line], _captures(m))
                    break
        return best

    def _canon(self, entry) -> list[str]:
        got = self._canon_messages.get(entry.id)
        if got is None:
            got = self._canon_messages[entry.id] = [canon(m)[:FUZZY_HEAD] for m in entry.messages]
        return got

    def _defining_tokens(self, entry) -> dict:
        got = self._defining.get(entry.id)
        if got is None:
            got = self._defining[entry.id] = defining.union([defining.tokens(m) for m in entry.messages])
        return got

    def _fuzzy(self, entry, canon_msg: str, inc: Incident) -> Signal:
        if len(canon_msg) < MIN_FUZZY_LEN:
            return Signal("fuzzy", 0.0)
        best = 0.0
        for msg in self._canon(entry):
            short, long_ = sorted((canon_msg, msg), key=len)
            # partial_ratio aligns the shorter text inside the longer one; scale down short ones
            # below half-similar is noise (clamped to 0 below), so rapidfuzz may stop early there
            score = fuzz.partial_ratio(short, long_, score_cutoff=50) / 100 * min(1.0, len(short) / 60)
            best = max(best, score)
        best = round(max(0.0, (best - 0.5) / 0.5), 4)  # below half-similar is noise
        return Signal("fuzzy", best, "message similarity", [inc.quoted] if best else [])

    @staticmethod
    def _frames(entry, frames: set[str], inc: Incident) -> Signal:
        if not entry.frames or not frames:
            return Signal("frames", 0.0)
        hit = [f for f in entry.frames if f in frames]
        if not hit:
            return Signal("frames", 0.0)
        funcs = {h.split(":")[-1] for h in hit}
        lines = [l for l in inc.lines if (m := frame_match(l.text)) and (m.group("func") or "") in funcs][:3]
        return Signal("frames", round(len(hit) / len(entry.frames), 4), ", ".join(hit), lines)

    @staticmethod
    def _context(entry, context_lines: list[Line], facts: dict) -> Signal:
        """The strongest hint found in the log (a regex on config lines and warnings, or a condition
        on a fact it confirms), less the strongest condition it contradicts."""
        best = Signal("context", 0.0)
        for rule in entry.context:
            for line in context_lines:
                if rule.regex.search(line.text):
                    if rule.weight > best.score:
                        best = Signal("context", rule.weight, rule.note or rule.regex.pattern, [line])
                    break
        confirmed, contradicted = verdicts(entry.conditions, facts)
        if confirmed or contradicted:
            pro = max(best.score, max((c.weight for c in confirmed), default=0.0))
            against = max((c.weight for c in contradicted), default=0.0)
            detail = "; ".join([best.detail] * (best.score > 0) + [f"log shows {c.describe()}" for c in confirmed]
                               + [f"log contradicts {c.describe()}" for c in contradicted])
            lines = best.lines + [facts[c.fact].line for c in confirmed + contradicted]
            best = Signal("context", round(pro - against, 4), detail, lines)
        return best


# A captured value goes into advice text, which every report renders: only a plain name or
# version passes (a module, a keyword argument, a library), never markup or a whole log line.
_PLAIN = re.compile(r"[\w.+\-/:@=]{1,80}")


def raised_in_library(inc: Incident | None) -> bool:
    """Whether the exception was raised in library code: the traceback's last frame, where Python
    reports a call with the wrong arguments, is installed or a framework's checkout (lead.package_of),
    not the user's own script."""
    return bool(inc and inc.frames and package_of(inc.frames[-1].file))


# what a named entry's confidence is held to when only frames and vocabulary support it (a share of
# the threshold: it stays a candidate, reported as the nearest entry)
BELOW = 0.9
# fuzzy similarity from which a stated exception counts as resembling an entry's messages
RESEMBLES = 0.3


def _stated(signals: list) -> bool:
    """Whether the incident's own exception line supports the entry: its regex, or its messages."""
    return any(g.name == "regex" or (g.name == "fuzzy" and g.score >= RESEMBLES) for g in signals)


def _captures(m: re.Match) -> dict[str, str]:
    return {k: v for k, v in m.groupdict().items() if v and _PLAIN.fullmatch(v)}


def _automaton(phrases: list[str]):
    if ahocorasick_rs is None or not phrases:  # without the wheel the shortlist rests on TF-IDF alone
        return None
    return ahocorasick_rs.AhoCorasick(phrases, matchkind=ahocorasick_rs.MatchKind.Standard)


def _features(signals: list[Signal]) -> list[float]:
    by = {s.name: s.score for s in signals}
    return [by.get(f, 0.0) for f in FEATURES]


def _found(automaton, text: str) -> tuple[str, list]:
    """(text, overlapping matches) of an ahocorasick-rs automaton. A lone surrogate (an unescaped JSON
    "\ud83d" that a wrapper decoded) cannot be encoded for it: each becomes one U+FFFD, so the text
    keeps its length and the spans index it."""
    try:
        return text, automaton.find_matches_as_indexes(text, overlapping=True)
    except UnicodeEncodeError:
        text = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
        return text, automaton.find_matches_as_indexes(text, overlapping=True)
