"""Find the lines worth parsing in a chunk of raw bytes, fast.

The trigger is a regex of alternatives (the parser's shapes, config facts, the KB's trigger phrases).
Python's `re` tries every alternative at every byte (~30 MB/s with ~80 of them), so when
ahocorasick-rs is installed its automaton finds the literal core of each alternative in one pass
(~400 MB/s), and the exact regex then confirms each candidate line: the lines kept are the same
either way, only the cost differs.
"""
from __future__ import annotations

import re

from .memo import Memo

try:  # a declared dependency; the pure-`re` path stays correct where no wheel exists
    import ahocorasick_rs
except ImportError:  # pragma: no cover - the same path as Trigger(use_automaton=False), which is tested
    ahocorasick_rs = None

# The regex pieces of the trigger and the literal each is guaranteed to contain.
_RELAX = [(rb"\\b", b""), (rb"\[A-Z\]\{3,4\}", b""), (rb"\[123_-\]", b"")]


def literal_core(alternative: bytes) -> bytes | None:
    """The literal text every match of `alternative` contains, or None when it has no such core."""
    for pattern, repl in _RELAX:
        alternative = re.sub(pattern, repl, alternative)
    if re.search(rb"(?<!\\)[\[\](){}?*+.^$|]", alternative):
        return None
    return re.sub(rb"\\(.)", rb"\1", alternative)


class Trigger:
    def __init__(self, regex: re.Pattern, use_automaton: bool = True):
        self.regex = regex
        self._confirmed = Memo()  # repeated lines (warnings on every rank) are confirmed once
        self._automaton = None
        if use_automaton and ahocorasick_rs is not None:
            cores = [literal_core(a) for a in regex.pattern.split(b"|")]
            if all(cores):  # every alternative has a literal core: the automaton finds a superset
                self._automaton = ahocorasick_rs.BytesAhoCorasick(sorted(set(cores)))

    @property
    def engine(self) -> str:
        return "aho-corasick" if self._automaton is not None else "re"

    def line_starts(self, chunk: bytes) -> list[int]:
        """Sorted offsets of the lines of `chunk` that the trigger regex matches."""
        out: list[int] = []
        last = -1
        rfind, find, confirm = chunk.rfind, chunk.find, self.regex.search
        if self._automaton is None:
            hits = (m.start() for m in self.regex.finditer(chunk))
            for hit in hits:
                start = rfind(b"\n", 0, hit) + 1
                if start != last:
                    out.append(start)
                    last = start
            return out
        memo = self._confirmed
        for _, hit, _ in self._automaton.find_matches_as_indexes(chunk):
            start = rfind(b"\n", 0, hit) + 1
            if start == last:
                continue
            last = start
            end = find(b"\n", hit)
            line = chunk[start:end if end >= 0 else len(chunk)]
            ok = memo.get(line)
            if ok is None:
                ok = confirm(line) is not None
                memo.remember(line, ok)
            if ok:
                out.append(start)
        return out
