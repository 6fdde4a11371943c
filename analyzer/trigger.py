"""Find the lines worth parsing in a chunk of raw bytes, fast.

The trigger is a regex of alternatives (the parser's shapes, config facts, the KB's trigger phrases).
Python's `re` tries every alternative at every byte (~30 MB/s with ~80 of them). A multi-literal
engine finds the literal core of each alternative in one pass instead, and the exact regex then
confirms each candidate line, so the lines kept are the same whichever engine runs; only the cost
differs. Measured on the benchmark's log (64 MiB, 77 cores, this 2-core machine):

  hyperscan (SIMD, x86-64 Linux wheels)  ~1,800 MB/s
  ahocorasick-rs (DFA, every platform)     ~400 MB/s
  re                                        ~30 MB/s
"""
from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path

from . import rx
from .diskcache import kept
from .memo import Memo

try:  # declared for x86-64 Linux, where wheels exist
    import hyperscan
except ImportError:  # pragma: no cover - other platforms; Trigger(engine="aho-corasick") is tested
    hyperscan = None
try:  # declared for every platform
    import ahocorasick_rs
except ImportError:  # pragma: no cover - Trigger(engine="re") is tested
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


def available_engines() -> list[str]:
    """Fastest first."""
    return [name for name, mod in (("hyperscan", hyperscan), ("aho-corasick", ahocorasick_rs)) if mod] + ["re"]


# A line longer than this is taken on its literal hit alone, unconfirmed: confirming runs the whole
# trigger regex over it (about 30 MB/s), and the parser reads only a line's head anyway.
LONG_LINE = 8192


# What lets an alternative match a newline or need context Python's `re` and hyperscan read differently:
# any-character, negated or whitespace classes, lookaround, backreferences, groups.
_UNBOUND = rx.compile(rb"(?<!\\)[.()]|\\[sSWDnr]|\[\^|\\\d")


def _line_bound(alternative: bytes) -> bool:
    """Whether every match of `alternative` lies inside one line and means the same to both engines."""
    return _UNBOUND.search(alternative) is None


def hyperscan_database(expressions: list[bytes], cache_dir: Path | None = None):
    """A block-mode hyperscan database of `expressions`. Compiling the KB's trigger takes about 25 ms,
    a tenth of `vlkb diagnose` on a small log; with `cache_dir` the compiled database is kept there
    (keyed by the expressions and the hyperscan release) and read back in microseconds.
    A cache file hyperscan refuses (cut, corrupt, another CPU) is compiled over; one that cannot be
    written is skipped."""
    def build():
        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        db.compile(expressions=expressions, ids=list(range(len(expressions))), elements=len(expressions),
                   flags=[0] * len(expressions))
        return db

    return kept(cache_dir, "trigger", ".hsdb", [getattr(hyperscan, "__version__", "").encode(), *expressions], build,
                hyperscan.dumpb, lambda data: hyperscan.loadb(data, hyperscan.HS_MODE_BLOCK), (hyperscan.error,))


class Trigger:
    def __init__(self, regex: re.Pattern | bytes, engine: str | None = None, cache_dir: Path | None = None):
        """`regex`: the alternation, compiled or as its bytes (then compiled by `re` only when an
        engine needs it: about 19 ms of start-up that exact hyperscan never uses). `engine`:
        "hyperscan", "aho-corasick" or "re"; by default the fastest installed one that can serve
        `regex` (the literal engines need a literal core in every alternative). `cache_dir`: where
        hyperscan's compiled database may be kept between runs (hyperscan_database)."""
        self._cache_dir = cache_dir
        if not isinstance(regex, (bytes, str)):  # compiled (a Pattern, or rx's counting wrapper of one)
            self.__dict__["regex"] = regex  # the cached_property's slot
        self.pattern = regex if isinstance(regex, (bytes, str)) else regex.pattern
        self._confirmed = Memo()  # repeated lines (warnings on every rank) are confirmed once
        alternatives = self.pattern.split(b"|")
        engine = engine or available_engines()[0]
        # hyperscan runs the alternatives themselves, not their literal cores, when none can match
        # across a newline: its hits are then the regex's own and no line needs confirming (nor any
        # literal core worked out: a fifth of the KB's start-up)
        if engine == "hyperscan" and all(map(_line_bound, alternatives)):
            self.engine, self.exact, arg = engine, True, alternatives
        else:
            cores = [literal_core(a) for a in alternatives]
            self.engine = engine if all(cores) else "re"
            self.exact = self.engine == "re"
            arg = alternatives if self.exact else sorted(set(cores))
        self._hits = {"hyperscan": self._hyperscan, "aho-corasick": self._aho_corasick,
                      "re": self._regex}[self.engine](arg)

    @cached_property
    def regex(self) -> re.Pattern:
        return rx.compile(self.pattern)

    # ---- engines: each returns chunk -> ascending offsets that lie inside a match ------------------
    def _hyperscan(self, pieces: list[bytes]):
        """`pieces`: the regex's alternatives when exact, else their literal cores."""
        expressions = pieces if self.exact else [re.escape(c) for c in pieces]
        db = hyperscan_database(expressions, self._cache_dir)
        scratch = hyperscan.Scratch(db)

        def hits(chunk: bytes) -> list[int]:
            ends: list[int] = []
            db.scan(chunk, match_event_handler=lambda _id, _start, end, _flags, _ctx: ends.append(end - 1),
                    scratch=scratch)
            ends.sort()  # block mode reports by end offset already; sorting makes it a guarantee
            return ends
        return hits

    def _aho_corasick(self, cores: list[bytes]):
        automaton = ahocorasick_rs.BytesAhoCorasick(cores, implementation=ahocorasick_rs.Implementation.DFA)
        return lambda chunk: [start for _, start, _ in automaton.find_matches_as_indexes(chunk)]

    def _regex(self, _cores):
        return lambda chunk: [m.start() for m in self.regex.finditer(chunk)]

    def line_starts(self, chunk: bytes) -> list[int]:
        """Sorted offsets of the lines of `chunk` that the trigger regex matches."""
        out: list[int] = []
        line_end, n = -1, len(chunk)
        rfind, find, memo = chunk.rfind, chunk.find, self._confirmed
        exact = self.exact
        confirm = None if exact else self.regex.search
        for hit in self._hits(chunk):
            if hit <= line_end:
                continue  # another hit on a line already taken or refused
            start = rfind(b"\n", 0, hit) + 1
            line_end = find(b"\n", hit)
            if line_end < 0:
                line_end = n
            if not exact and line_end - start <= LONG_LINE:
                line = chunk[start:line_end]
                ok = memo.get(line)
                if ok is None:
                    ok = confirm(line) is not None
                    memo.remember(line, ok)
                if not ok:
                    continue
            out.append(start)
        return out

    def numbered_starts(self, chunk: bytes, n: int) -> tuple[list[int], list[int], int]:
        """The line starts in `chunk[:n]` the regex matches, the newlines before each, and the
        newlines in all of `chunk[:n]`: what the scan needs to number the lines it jumps to without
        reading those between."""
        kept, before, prev, k = [], [], 0, 0
        count = chunk.count
        for s in self.line_starts(chunk):
            if s >= n:
                break
            k += count(b"\n", prev, s)
            kept.append(s)
            before.append(k)
            prev = s
        return kept, before, k + count(b"\n", prev, n)


class Phrases:
    """Whether a text holds any of a set of plain phrases (the KB's trigger phrases): one Aho-Corasick
    pass where ahocorasick-rs is installed. As one Python alternation of about 250 phrases, `re` reads
    about 30 MB/s, and the parser asks this of the first 4 KB of every candidate line it classifies."""

    def __init__(self, phrases: list[str]):
        self.phrases = sorted(set(phrases))
        self._automaton = ahocorasick_rs.AhoCorasick(self.phrases) if ahocorasick_rs is not None else None

    @cached_property
    def _regex(self) -> re.Pattern:
        """The alternation, compiled only when a line needs it (about 14 ms at start-up otherwise)."""
        return rx.compile("|".join(map(re.escape, self.phrases)))

    def search(self, text: str) -> bool:
        if self._automaton is not None:
            try:
                return bool(self._automaton.find_matches_as_indexes(text))
            except UnicodeEncodeError:  # a lone surrogate (an unescaped JSON "\ud83d"): `re` reads it
                pass
        return self._regex.search(text) is not None
