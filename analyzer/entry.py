"""The entry model: one KB failure as the matcher reads it (its rules, conditions and advice), and
the fingerprint of a KB that the persisted index is fitted to. Entries are read from YAML by
vlkb.kb.loader; the core only needs their shape."""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from . import rx
from .conditions import Advice, Condition


# how a pattern made from a framework's source message (kb/sourcemsgs.py) begins its note: the report
# then says where that source raises it
SOURCE_NOTE = "raised by "


@dataclass(frozen=True)
class Rule:
    source: str  # the regex as written in the entry
    weight: float
    note: str = ""
    flags: int = 0
    raised_in: str = ""  # "library": the pattern counts only when installed library code raised the exception

    @cached_property
    def regex(self) -> re.Pattern:
        """Compiled on first use: most entries' patterns are never tried on a given log (the matcher
        scores an entry only when one of its patterns' required literals is there), and compiling
        every pattern of the KB was most of `vlkb diagnose`'s start-up."""
        return rx.compile(self.source, self.flags)


@dataclass
class Entry:
    id: str
    family: str
    title: str
    symptom: str
    root_cause: str
    fix: str
    patterns: list[Rule]
    messages: list[str]
    triggers: list[str]
    frames: list[str]
    context: list[Rule]
    conditions: list[Condition]
    unless: list[Condition]  # any one holding explains the signature away (harmless in that run)
    advice: list[Advice]
    frameworks: list[str]
    tags: list[str]
    sources: list[dict]
    verify: dict
    path: Path
    silent: bool = False  # the run does not stop: matched on warnings, only when nothing failed

    @cached_property
    def fixtures(self) -> list[Path]:
        """The entry's fixture logs beside its YAML: listed when asked (kb tools, TUI, verify), not at
        every start-up."""
        return sorted(self.path.parent.glob(f"{self.path.stem}.*.log"))

    def document(self) -> str:
        """The text TF-IDF indexes for this entry."""
        parts = [self.title, self.symptom, *self.messages, *self.triggers,
                 *(f.replace(":", " ") for f in self.frames), *(r.note for r in self.context)]
        return "\n".join(parts)


def fingerprint(entries: list[Entry]) -> str:
    """Hash of what the persisted index depends on: each entry's id and document."""
    h = hashlib.sha256()
    for e in sorted(entries, key=lambda e: e.id):
        h.update(json.dumps([e.id, e.document()]).encode())
    return h.hexdigest()[:16]
