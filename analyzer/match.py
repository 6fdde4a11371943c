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

import re
from pathlib import Path

from rapidfuzz import fuzz

from . import defining, tfidf
from . import rx
from .conditions import settle
from .incidenttext import candidates, incident_document, incident_tokens
from .lead import package_of
from .model import Incident, Line
from .patterns import frame_match
from .scores import FEATURES, Calibration, Scored, Signal
from .shortlist import Shortlist
from .textnorm import canon

MIN_FUZZY_LEN = 24  # canonical messages shorter than this are too generic to compare
# An entry's message is compared by its head, the part that names the failure: partial_ratio costs
# ~1 ms for a 440-character needle against a 600-character message and ~0.1 ms for 160 characters.
FUZZY_HEAD = 160


class Matcher:
    def __init__(self, entries: list, idf: dict[str, float], vectors: dict[str, tfidf.Vector],
                 calibration: Calibration, literals: dict[str, list[str] | None] | None = None,
                 cache_dir: Path | None = None, source: bytes | None = None):
        """`literals`: each pattern's required literals as `kb fit` stored them (parsed here when absent);
        `cache_dir`, `source`: where the shortlist's tables are kept, and what they derive from (Shortlist)."""
        self.entries = entries
        self.idf = idf
        self.vectors = vectors
        self.calibration = calibration
        # each entry's messages canonicalised and their defining tokens, worked out for the entries an
        # incident makes the matcher score, once each (every entry at start-up was a third of it)
        self._canon_messages: dict[str, list[str]] = {}
        self._defining: dict[str, dict] = {}
        # which entries an incident is scored against (analyzer/shortlist.py); each pattern's required
        # literals also spare the regex itself where none of them is in the incident
        self._shortlist = Shortlist(entries, vectors, literals, cache_dir, source)
        self._need = self._shortlist.need

    def shortlist(self, inc: Incident, doc_vec: tfidf.Vector, cands: list[tuple[str, Line]]) -> list:
        """Entries worth scoring: the best by TF-IDF through the inverted index, every entry whose
        trigger phrase appears in the incident, and every entry one of whose patterns could match
        `cands` (its required literal is there). With a KB smaller than SHORTLIST, all of them."""
        seen = "\n".join(text for text, _ in cands)
        return [self.entries[i] for i in sorted(set().union(*self._shortlist.admitted(inc, doc_vec, seen)))]

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
        found = self._shortlist.literals_in(seen)  # once, for the shortlist and for each pattern's literals
        resembling, by_regex = self._shortlist.admitted(inc, doc_vec, seen, found)
        for i in sorted(resembling | by_regex):
            entry = self.entries[i]
            regex = self._regex(entry, cands, inc, found)
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

    def _regex(self, entry, cands, inc: Incident, found: set[str]) -> Signal:
        """`found`: the patterns' required literals that the candidate texts hold, found once for every
        entry (one with a thousand source messages then tests set membership, not a thousand
        substrings): a pattern none of whose literals is there cannot match and is not run."""
        best = Signal("regex", 0.0)
        for rule in entry.patterns:
            if rule.raised_in == "library" and not raised_in_library(inc):
                continue
            need = self._need.get(rule.source)
            if need is not None and not any(lit in found for lit in need):
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
        confirmed, contradicted = settle(entry.conditions, facts)
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
_PLAIN = rx.compile(r"[\w.+\-/:@=]{1,80}")


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


def _features(signals: list[Signal]) -> list[float]:
    by = {s.name: s.score for s in signals}
    return [by.get(f, 0.0) for f in FEATURES]

