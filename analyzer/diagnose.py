"""From log inputs to a diagnosis: scan, fold, elect the root, match it against the KB."""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import tfidf
from .elect import elect
from .fold import MAX_FAILURES, TAIL_FAILURES, Collector
from .facts import Fact, FactSheet
from .factshapes import trigger_pieces
from .framework import SplitFix, detect, split_fix
from .generation import GENERATED, degenerate
from .lead import Lead, lead
from .match import Matcher
from .model import Exc, Incident, Line
from .patterns import TRIGGER
from .flat import frozen
from .progress import diverged, stall
from .reader import ReadStats, expand, safe_label
from .records import MAX_KEPT_CHARS, RecordParser
from .recordstates import MAX_FRAMES
from .scan import scan
from .scores import Calibration, Scored
from .trigger import Phrases, Trigger

DEFAULT_THRESHOLD = 0.5
# An unknown failure's nearest entries are shown from this confidence up: below it they are noise.
NEAREST_FLOOR = 0.1
# a log written this recently may belong to a run that is still going: a stop is only a suspicion then
LIVE_SECONDS = 120
# a silent entry with this tag describes where a log stopped (progress.py): it is offered the last
# progress line of a log that ends mid-run, and nothing else
STALL_TAG = "stall"
# How often a log that stops mid-run with no error is a hang or a kill rather than an excerpt cut
# short: on the field corpus's dev split the suspicion fired on 32 logs and 7 were hangs (the rest
# were pastes that ended before their error, or healthy runs still going). A stall is said as a
# suspicion at this confidence, whatever its pattern scores: the words are sure, the stop is not.
# tests/test_field.py measures it again.
STALL_CONFIDENCE = 0.22


@dataclass
class Diagnosis:
    verdict: str  # "known" | "unknown" | "suspicious" | "clean"
    matches: list[Scored]  # best first; below threshold when the verdict is "unknown" or "clean"
    incidents: list[Incident]  # root first; no root when nothing failed ("suspicious", "clean")
    facts: list[Line]  # lines that state how the run was configured
    stats: ReadStats
    threshold: float
    inputs: list[str] = field(default_factory=list)
    run: dict = field(default_factory=dict)  # key -> Fact: versions, model, config (analyzer/facts.py)
    seen: object = None  # vlkb.history.Seen: earlier sightings of the root, when history is on
    lead: Lead | None = None  # for an unknown failure: the line to quote, the library, where to search
    frameworks: list[str] = field(default_factory=list)  # the training frameworks that ran, most specific first
    similar: list = field(default_factory=list)  # publicreport.Found: public reports of the root's failure, best first

    def fix(self, entry) -> SplitFix:
        """The entry's fix told for this run: its framework's bullets first, the others folded."""
        return split_fix(entry.fix, self.frameworks)

    @property
    def root(self) -> Incident | None:
        return self.incidents[0] if self.incidents and self.incidents[0].root else None

    @property
    def named(self) -> Scored | None:
        """The entry vlkb names (a failure it knows, or a silent one it suspects), else None."""
        return self.matches[0] if self.verdict in ("known", "suspicious") else None

    @property
    def runners_up(self) -> list[Scored]:
        """After the named entry, the other candidates `--top` asked for that are more than noise."""
        return [s for s in self.matches[1:] if s.confidence >= NEAREST_FLOOR] if self.named else []

    @property
    def suspicion(self) -> str:
        """What a suspicious verdict's headline says before its subject."""
        if self.subject is not None and self.subject.kind == "stall":
            return ("No error in the log, but it stops mid-run with no end-of-training summary (a hang, a kill, "
                    "or a log cut short); last progress: ")
        if self.subject is not None and self.subject.chain and self.subject.chain[0].type is None:
            if self.subject.chain[0].message.startswith(GENERATED):  # generation.degenerate
                return "No step failed, but the output the log shows has degenerated: "
            return "No step failed, but the numbers it reports say the run may not be training: "  # flat.frozen
        return "No step failed, but a warning says the run may not be training: "

    @property
    def subject(self) -> Incident | None:
        """What the report is about: the root failure, or the warning a silent entry matched."""
        if self.verdict == "suspicious":
            return self.matches[0].incident
        return self.root


class Engine:
    """A loaded KB with its index (vlkb.kb.load_engine builds one); reuse one for many diagnoses."""

    def __init__(self, entries: list, idf: dict, vectors: dict, calibration: Calibration,
                 literals: dict | None = None, cache_dir: Path | None = None, source: bytes | None = None):
        """`cache_dir`: where compiled matchers and derived tables may be kept between runs
        (analyzer/trigger.py, analyzer/shortlist.py); `source`: what `vectors` and `literals` were read
        from (the index file's bytes), which the kept tables are named by."""
        self.entries = entries
        self.calibration = calibration
        self.matcher = Matcher(entries, idf, vectors, calibration, literals, cache_dir, source)
        self._silent_phrases = [t for e in entries if e.silent for t in e.triggers]
        # a silent entry's phrases find its warnings among incidents; they never make a failure
        phrases = sorted({t for e in entries if not e.silent for t in e.triggers})
        self.signature = Phrases(phrases) if phrases else None
        self.trigger = Trigger(b"|".join(
            [TRIGGER.pattern, *trigger_pieces(), *(re.escape(p.encode()) for p in phrases)]), cache_dir=cache_dir)

    def diagnose(self, inputs: list[str], top: int = 3, jobs: int | None = None) -> Diagnosis:
        """`jobs`: processes that read a large regular file (scan.scan): 1, 2, or None to decide."""
        collector = Collector()
        stats = ReadStats()
        sheet = FactSheet()
        parser = RecordParser(collector.add, self.signature)
        scan(expand(inputs), parser, stats, sheet.observe, self.trigger, collector, jobs)
        if parser.cut_lines:
            stats.notes.append(f"{parser.cut_lines} lines longer than {MAX_KEPT_CHARS >> 10} KiB were kept shortened (head and tail)")
        if parser.cut_frames:
            stats.notes.append(f"{parser.cut_frames} frames from the middle of tracebacks over {MAX_FRAMES} were not kept")
        incidents = elect(collector.incidents())
        frameworks = detect(incidents, sheet.facts)
        if frameworks:
            sheet.facts.setdefault("framework", Fact("framework", frameworks[0][0], frameworks[0][1]))
        d = self._verdict(incidents, collector, stats, sheet, [safe_label(i) for i in inputs], top)
        d.frameworks = [f for f, _ in frameworks]
        return d

    def _verdict(self, incidents: list[Incident], collector: Collector, stats: ReadStats, sheet: FactSheet,
                 inputs: list[str], top: int) -> Diagnosis:
        if collector.dropped:
            stats.notes.append(f"{collector.dropped} further distinct warnings/metrics were not kept")
        if collector.dropped_failures:
            stats.notes.append(f"{collector.dropped_failures} distinct failures after the first {MAX_FAILURES} and before "
                               f"the last {TAIL_FAILURES} were not kept (bounded memory)")
        threshold = self.calibration.threshold
        root = incidents[0] if incidents and incidents[0].root else None
        facts = list(sheet.lines.values())
        context = facts + [i.first for i in incidents if i.kind == "warning"]
        if root is None:
            scored = self._silent_matches(incidents + self._diverged(stats) + self._statements(stats), context,
                                          sheet.facts)[:top]
            if not (scored and scored[0].confidence >= threshold):
                # a stop mid-run is said, as a suspicion whose confidence stays under the threshold
                scored = self._stalled(stats, context, sheet.facts)[:top] or scored
            suspect = scored and (scored[0].confidence >= threshold or scored[0].incident.kind == "stall")
            return Diagnosis("suspicious" if suspect else "clean", scored, incidents, facts, stats, threshold,
                             inputs, sheet.facts)
        subject = merge_fragments(root, incidents)
        scored = [s for s in self.matcher.score(subject, context, sheet.facts) if s.signals and not s.entry.silent][:top]
        if scored and scored[0].confidence >= threshold:
            return Diagnosis("known", scored, incidents, facts, stats, threshold, inputs, sheet.facts)
        nearest = [s for s in scored if s.confidence >= NEAREST_FLOOR]
        return Diagnosis("unknown", nearest, incidents, facts, stats, threshold, inputs, sheet.facts,
                         lead=lead(subject, sheet.facts))

    def _stalled(self, stats: ReadStats, context: list[Line], facts: dict) -> list[Scored]:
        """No failure and no silent warning: did the log end mid-run? The last progress line of the
        input that stopped earliest is scored against the silent entries (the hang entry's patterns
        name progress shapes), so the suspicion carries the usual calibrated confidence."""
        stalls = [s for label, tail, last in stats.tails if (s := stall(tail, label, last))]
        if not stalls:
            return []
        first = min(stalls, key=lambda s: (s.done / s.total) if s.total else 2.0)
        age = _age(first.line.path)
        if age is not None and age < LIVE_SECONDS:
            stats.notes.append(f"{first.line.path} was written {age:.0f} s ago: if the run is still going, it has not stopped")
        inc = Incident(kind="stall", lines=[first.line], ranks=[first.line.rank] if first.line.rank else [],
                       chain=[Exc(None, first.describe(), first.line)])
        return [replace(s, confidence=min(s.confidence, STALL_CONFIDENCE))
                for s in self.matcher.score(inc, context, facts) if STALL_TAG in s.entry.tags and s.signals
                and any(g.name == "regex" for g in s.signals)]

    @staticmethod
    def _diverged(stats: ReadStats) -> list[Incident]:
        """The inputs whose last reported loss is 10^4 or more, each as a warning on that line: a
        silent entry (loss-divergence) names it."""
        lines = [line for label, tail, last in stats.tails if (line := diverged(tail, label, last))]
        return [Incident(kind="warning", lines=[line], ranks=[line.rank] if line.rank else []) for line in lines]

    @staticmethod
    def _statements(stats: ReadStats) -> list[Incident]:
        """What the end of each input says went wrong without a failure: numbers that stopped moving
        (flat.frozen) or generated text looping (generation.degenerate), each as a warning on the
        line it was read from, stating what repeats: a silent entry names it."""
        found = [f for label, tail, last in stats.tails for read in (frozen, degenerate) if (f := read(tail, label, last))]
        return [Incident(kind="warning", lines=[line], ranks=[line.rank] if line.rank else [],
                         chain=[Exc(None, said, line)]) for line, said in found]

    def _silent_matches(self, incidents: list[Incident], context: list[Line], facts: dict) -> list[Scored]:
        """A run that did not fail can still have gone wrong: score the warnings that carry a silent
        entry's trigger phrase against the silent entries, best first."""
        best: dict[str, Scored] = {}
        for inc in incidents:
            if inc.kind != "warning":
                continue
            said = [line.text for line in inc.lines[:4]] + [e.message for e in inc.chain]
            if any(p in text for p in self._silent_phrases for text in said):
                for s in self.matcher.score(inc, context, facts):
                    if s.entry.silent and STALL_TAG not in s.entry.tags and s.signals \
                            and s.confidence > getattr(best.get(s.entry.id), "confidence", -1):
                        best[s.entry.id] = s
        return sorted(best.values(), key=lambda s: -s.confidence)


def _age(path: str) -> float | None:
    """Seconds since a regular file was last written; None for stdin and what cannot be read."""
    try:
        return max(0.0, time.time() - os.stat(path).st_mtime)
    except (OSError, ValueError):
        return None


def merge_fragments(root: Incident, incidents: list[Incident]) -> Incident:
    """The root as it is matched: a traceback cut before its exception together with the other cut
    fragments (pasted excerpts and interleaved ranks split one failure's traceback into pieces); any
    other root as it is."""
    pieces = [i for i in incidents if i.truncated and not i.cascade] if root.truncated else []
    if len(pieces) < 2:
        return root
    merged = Incident(kind=root.kind, lines=[l for i in pieces for l in i.lines],
                      frames=[f for i in pieces for f in i.frames], chain=list(root.chain),
                      ranks=sorted({r for i in pieces for r in i.ranks}), root=True)
    return merged


def fit_vectors(entries: list) -> tuple[dict, dict]:
    docs = [e.document() for e in entries]
    idf = tfidf.fit_idf(docs)
    return idf, {e.id: tfidf.transform(d, idf) for e, d in zip(entries, docs)}
