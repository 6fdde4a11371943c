"""What a match is worth: the signals one entry scored on an incident, the scored entry the reports
show, and the calibration that turns the five signals into one confidence.

The result model of analyzer/match.py, apart from the matching: `kb fit` fits a `Calibration` over
`FEATURES`, the loader reads it back, and every output format reads `Scored`, without the matcher.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .entry import SOURCE_NOTE
from .model import Incident, Line

FEATURES = ("regex", "fuzzy", "frames", "tfidf", "context")


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
    def raised_by(self) -> str:
        """Where a framework's source raises the message that matched, when a source message matched
        (kb/sourcemsgs.py): "repo path:line (exception, commit): the condition"; "" otherwise."""
        detail = next((g.detail for g in self.signals if g.name == "regex"), None)
        rule = next((r for r in self.entry.patterns if r.source == detail), None) if detail else None
        return rule.note[len(SOURCE_NOTE):] if rule is not None and rule.note.startswith(SOURCE_NOTE) else ""

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
