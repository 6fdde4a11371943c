"""Fold identical incidents across ranks as the parser emits them, in bounded memory: the same
failure printed by 512 ranks is one incident with 512 ranks and a few sample lines."""
from __future__ import annotations

import hashlib
import re
from collections import deque

from .memo import Memo
from .model import Incident, Line
from .textnorm import canon, template

MAX_INCIDENTS = 5000  # distinct incidents kept; beyond this only failures are added
MAX_FOLDED_LINES = 8  # sample lines kept from the other occurrences of a folded incident
# distinct failures (tracebacks, errors, NCCL, signals) kept from the start of the log, and the
# characters of their lines, whichever bites first; past that only the latest TAIL_FAILURES (and
# TAIL_CHARS) are kept, for a log whose end holds its root: memory stays bounded whatever the input
MAX_FAILURES, MAX_FAILURE_CHARS = 2000, 24 << 20
TAIL_FAILURES, TAIL_CHARS = 200, 8 << 20
DROPPABLE = ("warning", "metric", "launcher", "logged")  # kinds that are never a failure of their own


def fingerprint(inc: Incident) -> tuple:
    frames = tuple(f"{f.basename}:{f.func}" for f in inc.frames[-3:])
    if inc.kind == "metric":
        return ("metric", canon(re.sub(r"[\d.eE+-]+", "", inc.first.text[:2000]))[:80])
    return (inc.kind, inc.exception, canon(inc.message[:2000])[:300], frames)


def stable_id(inc: Incident) -> str:
    """`fingerprint` hashed: stable across ranks, paths, numbers and timestamps, what the failure is
    and not where it ran (SARIF's partial fingerprints, the history's key)."""
    return hashlib.sha256(repr(fingerprint(inc)).encode()).hexdigest()[:16]


class Collector:
    """Receives incidents from the parser and folds duplicates as they arrive (bounded memory)."""

    def __init__(self):
        self._by_print: dict[tuple, Incident] = {}
        self._print_of_line = Memo()  # kind + text -> fingerprint, for one-line incidents
        self.order: list[Incident] = []  # kept in arrival order, but for the failures past the budget
        # the latest failures past it: (fingerprint, incident, chars, how many of `order` came before it)
        self._tail: deque = deque()
        self._failures = self._failure_chars = self._tail_chars = 0
        self.dropped = 0  # warnings, metrics and notices past MAX_INCIDENTS
        self.dropped_failures = 0  # failures between the first MAX_FAILURES and the latest TAIL_FAILURES

    def add(self, inc: Incident) -> Incident | None:
        """Keep or fold `inc`; return the incident it now lives in (None when dropped)."""
        key = self._fingerprint(inc)
        seen = self._by_print.get(key)
        if seen is not None:
            for r in inc.ranks:
                if r not in seen.ranks:
                    seen.ranks.append(r)
            self.again(seen, inc.first)
            return seen
        if len(self.order) >= MAX_INCIDENTS and inc.kind in DROPPABLE:
            self.dropped += 1
            return None
        self._by_print[key] = inc
        if inc.kind not in DROPPABLE:
            chars = sum(len(line.text) for line in inc.lines)
            if self._failures >= MAX_FAILURES or self._failure_chars + chars > MAX_FAILURE_CHARS:
                self._keep_latest(key, inc, chars)
                return inc
            self._failures += 1
            self._failure_chars += chars
        self.order.append(inc)
        return inc

    def _keep_latest(self, key: tuple, inc: Incident, chars: int) -> None:
        self._tail.append((key, inc, chars, len(self.order)))
        self._tail_chars += chars
        while len(self._tail) > TAIL_FAILURES or (self._tail_chars > TAIL_CHARS and len(self._tail) > 1):
            old_key, _, old_chars, _ = self._tail.popleft()
            del self._by_print[old_key]  # a later occurrence of it is a new incident
            self._tail_chars -= old_chars
            self.dropped_failures += 1

    def incidents(self) -> list[Incident]:
        """Every incident kept, in the order they arrived: each failure past the budget goes after the
        incidents of `order` that came before it."""
        out, at = [], 0
        for _, inc, _, before in self._tail:
            out += self.order[at:before]
            out.append(inc)
            at = before
        return out + self.order[at:]

    @staticmethod
    def again(seen: Incident, line: Line) -> None:
        """One more occurrence of a one-line incident already kept, from a rank it already lists."""
        seen.count += 1
        if _sampled(seen):
            seen.lines.append(line)

    @staticmethod
    def recount(seen: Incident, who: str | None) -> bool:
        """One more occurrence of a one-line incident, from rank `who`, when it keeps no further sample
        lines; False (nothing counted) while it does: the caller then hands over the line itself."""
        if _sampled(seen):
            return False
        seen.count += 1
        if who is not None and who not in seen.ranks:
            seen.ranks.append(who)
        return True

    def _fingerprint(self, inc: Incident) -> tuple:
        if len(inc.lines) != 1 or inc.chain:
            return fingerprint(inc)
        memo = f"{inc.kind}\0{template(inc.first.text)}"
        key = self._print_of_line.get(memo)
        if key is None:
            key = fingerprint(inc)
            self._print_of_line.remember(memo, key)
        return key


def _sampled(inc: Incident) -> bool:
    """Whether the next occurrence of `inc` is kept as a sample line."""
    return len(inc.lines) < MAX_FOLDED_LINES and inc.kind in ("metric", "warning", "nccl", "signal", "logged")
