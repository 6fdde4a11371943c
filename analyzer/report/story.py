"""A diagnosis's story, told once: what failed, why, what to do for this run, the lines that show it,
what else happened. The terminal report, the CI comment, GitHub's annotations and the TUI's cause view
lay it out; what to show and which values (the run's fix, the sources cited, the candidates above the
noise floor, the incidents besides the subject) is decided here, so the formats cannot drift apart.
Each format still chooses its words and how much of a list fits its room."""
from __future__ import annotations

from dataclasses import dataclass

from ..diagnose import Diagnosis
from ..facts import Fact, ordered
from ..lead import Lead
from ..model import Incident, Line
from ..scores import Scored
from . import cited, how_sure, strength

# the verdict in words: GitHub's last line, the TUI's banner (upper case)
HEADLINES = {"known": "known failure", "suspicious": "suspicious run", "unknown": "unknown failure",
             "clean": "no failure found"}

# what teaches vlkb a failure it does not know (kb/scaffold.py)
SCAFFOLD = "vlkb kb new ID --from LOG"


@dataclass(frozen=True)
class Candidate:
    """An entry that was considered: a runner-up beside the named one, or the nearest to an unknown one."""

    id: str
    title: str
    confidence: float


@dataclass(frozen=True)
class Fix:
    """What to change. `advice`: the entry's advice the run's facts call for, filled with the run's
    values; `text`: the entry's fix with the run's framework's bullets first, the other frameworks'
    bullets taken out into `others` (labelled `other_names`); `as_written`: the fix unsplit."""

    advice: tuple[str, ...]
    text: str
    others: tuple[str, ...]
    other_names: tuple[str, ...]
    as_written: str


@dataclass(frozen=True)
class Named:
    """The entry vlkb names (a failure it knows, or a silent one it suspects) and what it says."""

    id: str
    title: str
    confidence: float
    strength: str  # "matches" | "likely" | "possibly"
    how_sure: str  # "likely: confidence 0.82"
    signals: str
    why: str  # the entry's root cause
    fix: Fix
    evidence: tuple[Line, ...]  # the log lines that show it, best first
    sources: tuple[str, ...]  # the public reports cited, best first
    more_sources: int  # how many more `show` lists
    show: str  # the command that shows the whole entry
    has_repro: bool  # `vlkb verify` can replay it
    runners_up: tuple[Candidate, ...]  # --top: the other candidates above the noise floor
    raised_by: str = ""  # where a framework's source raises the message that matched (a source message), else ""


@dataclass(frozen=True)
class Story:
    verdict: str  # "known" | "unknown" | "suspicious" | "clean"
    headline: str  # the verdict in words (HEADLINES)
    subject: Incident | None  # what failed: the root failure, or the warning a silent entry matched
    stalled: bool  # the subject is a run that stopped mid-run, not an error
    suspicion: str  # a suspicious verdict's headline before its subject; "" otherwise
    named: Named | None
    nearest: tuple[Candidate, ...]  # unknown: the best entries, all below the threshold
    threshold: float
    lead: Lead | None  # unknown: the line to quote, who raised it, where to search
    scaffold: str  # unknown: the command that makes an entry of it; "" otherwise
    harmless: tuple[tuple[str, str], ...]  # clean: (entry id, why it is harmless here) for each one seen
    similar: tuple  # publicreport.Found: public reports of the same failure, best first
    seen: object  # vlkb.history.Seen, when the history is on
    run: tuple[Fact, ...]  # what the log states about the run, in reading order
    others: tuple[Incident, ...]  # every incident besides the subject, root first
    notes: tuple[str, ...]  # the reader's notes (lines shortened, inputs cut)
    inputs: tuple[str, ...]


def tell(d: Diagnosis) -> Story:
    """The story of `d`, built once for every format that lays it out."""
    subject = d.subject
    return Story(
        verdict=d.verdict, headline=HEADLINES[d.verdict], subject=subject,
        stalled=subject is not None and subject.kind == "stall",
        suspicion=d.suspicion if d.verdict == "suspicious" else "",
        named=_named(d, d.named) if d.named else None,
        nearest=tuple(map(_candidate, d.matches)) if d.verdict == "unknown" else (),
        threshold=d.threshold, lead=d.lead if d.verdict == "unknown" else None,
        scaffold=SCAFFOLD if d.verdict == "unknown" else "",
        harmless=tuple((s.entry.id, s.explained) for s in d.matches if s.explained) if d.verdict == "clean" else (),
        similar=tuple(d.similar), seen=d.seen, run=tuple(ordered(d.run)) if d.run else (),
        others=tuple(i for i in d.incidents if i is not subject),
        notes=tuple(d.stats.notes), inputs=tuple(d.inputs))


def _candidate(s: Scored) -> Candidate:
    return Candidate(s.entry.id, s.entry.title, s.confidence)


def _named(d: Diagnosis, s: Scored) -> Named:
    e = s.entry
    urls, more = cited(e)
    return Named(id=e.id, title=e.title, confidence=s.confidence, strength=strength(s.confidence),
                 how_sure=how_sure(s.confidence), signals=s.signal_summary, why=e.root_cause,
                 fix=_fix(d, s), evidence=tuple(s.evidence), sources=tuple(urls), more_sources=more,
                 show=f"vlkb kb show {e.id}", has_repro=bool(e.verify.get("repro")),
                 runners_up=tuple(map(_candidate, d.runners_up)), raised_by=s.raised_by)


def _fix(d: Diagnosis, s: Scored) -> Fix:
    split = d.fix(s.entry)
    return Fix(advice=tuple(s.advice), text=split.text, others=tuple(split.others),
               other_names=tuple(split.other_names), as_written=s.entry.fix)
