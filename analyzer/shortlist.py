"""Which entries an incident is scored against: with a large KB, a shortlist instead of every entry.

The best entries by TF-IDF through an inverted index, every entry whose trigger phrase appears in the
incident, and every entry one of whose patterns could match (its required literal is there). A regex
that matches must never be left out, so the literals admit an entry whatever its resemblance; the same
literals tell analyzer/match.py which patterns cannot match and need not run.
"""
from __future__ import annotations

import heapq
import marshal
import struct
from pathlib import Path

from . import tfidf
from .diskcache import kept
from .model import Incident
from .regexinfo import required_literals
from .trigger import ahocorasick_rs

_POSTING = struct.Struct("<id")  # an entry's index and its weight for a term
_FORMAT = 2  # of the kept tables (_tables): a copy of another is never read
SHORTLIST = 16  # best TF-IDF entries (and at most as many trigger hits) fully scored per incident
CHAMPIONS = 64  # entries kept per term in the inverted index


class Shortlist:
    """The inverted TF-IDF index, the trigger phrases and the patterns' required literals of a KB."""

    def __init__(self, entries: list, vectors: dict[str, tfidf.Vector],
                 literals: dict[str, list[str] | None] | None = None, cache_dir: Path | None = None,
                 source: bytes | None = None):
        """`literals`: each pattern's required literals as `kb fit` stored them (parsed here when absent).
        `source`: what `vectors` and `literals` were read from (the index file's bytes): with `cache_dir`,
        the tables derived from them and from the entries' rules are kept there between runs (building
        them was a sixth of a small log's diagnosis); the automata are built from the tables each run."""
        self.entries = entries
        if cache_dir is not None and source is not None:
            rules = marshal.dumps([(e.id, list(e.triggers), [r.source for r in e.patterns]) for e in entries])
            tables = kept(cache_dir, "shortlist", ".marshal", [source, rules, f"tables {_FORMAT}, marshal {marshal.version}".encode()],
                          lambda: _tables(entries, vectors, literals), marshal.dumps, _load_tables,
                          (EOFError, ValueError, TypeError))
        else:
            tables = _tables(entries, vectors, literals)
        self._postings, self._phrase_entries, self.need, always, self._literal_entries = tables
        self._always = set(always)
        small = len(entries) <= SHORTLIST
        self._phrases = None if small else _automaton(sorted(self._phrase_entries))
        self._literals = None if small else _automaton(sorted(self._literal_entries))

    def literals_in(self, seen: str) -> set[str]:
        """The patterns' required literals that `seen` (the candidate texts joined) holds: found in one
        pass by the automaton; without its wheel (or with a KB too small for one), tested one by one."""
        if self._literals is None:
            return {lit for lit in self._literal_entries if lit in seen}
        seen, spans = _found(self._literals, seen)
        return {seen[s:e] for _, s, e in spans}

    def admitted(self, inc: Incident, doc_vec: tfidf.Vector, seen: str,
                 present: set[str] | None = None) -> tuple[set, set]:
        """The shortlist as two sets of entry indexes: those admitted by resemblance (TF-IDF, a
        trigger phrase) and those admitted only because one of their patterns could match (`seen`:
        the candidate texts joined; `present`: its literals, as literals_in gives them, when already
        looked for). The second kind is there for its regex alone: scored in full only when that
        regex does match."""
        if len(self.entries) <= SHORTLIST:
            return set(range(len(self.entries))), set()
        acc: dict[int, float] = {}
        for term, w in doc_vec.items():
            for i, ew in _POSTING.iter_unpack(self._postings.get(term, b"")):
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
        for lit in present if present is not None else self.literals_in(seen):
            by_regex.update(self._literal_entries[lit])
        resembling = set(chosen)
        return resembling, by_regex - resembling


def _tables(entries: list, vectors: dict[str, tfidf.Vector], literals: dict | None) -> tuple:
    """(postings, phrase -> entries, pattern -> required literals, entries always admitted, literal ->
    entries): plain data, as diskcache keeps it."""
    # inverted TF-IDF index and trigger phrases: a large KB is narrowed to a shortlist per incident.
    # Each term keeps its CHAMPIONS heaviest entries (champion lists, Manning et al., IR ch. 7), and
    # terms found in over a quarter of the entries are dropped: neither discriminates.
    postings: dict[str, list[tuple[float, int]]] = {}
    for i, e in enumerate(entries):
        for term, w in vectors.get(e.id, {}).items():
            postings.setdefault(term, []).append((w, i))
    common = max(SHORTLIST, len(entries) // 4)
    # each term's (entry, weight) pairs packed (_POSTING): a copy of 100,000 tuples took 23 ms to read back, its bytes 2
    champions = {t: b"".join(_POSTING.pack(i, w) for w, i in heapq.nlargest(CHAMPIONS, p))
                 for t, p in postings.items() if len(p) <= common}
    phrase_entries: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        for phrase in dict.fromkeys(e.triggers):
            phrase_entries.setdefault(phrase, []).append(i)
    # a regex that matches must never be left out by the shortlist: each pattern's required literals
    # (regexinfo.required_literals) put its entry in; a pattern without one, always. The same literals
    # spare the regex itself: a pattern none of whose literals is in the incident cannot match there,
    # so it is neither compiled nor run (compiling the patterns of the entries a log makes the matcher
    # score was most of a small log's diagnosis)
    by_literal: dict[str, set[int]] = {}
    always: set[int] = set()
    need: dict[str, tuple[str, ...] | None] = {}
    for i, e in enumerate(entries):
        for rule in e.patterns:
            found = literals[rule.source] if literals and rule.source in literals else required_literals(rule.regex)
            need[rule.source] = tuple(found) if found else None
            if found is None:
                always.add(i)
            for lit in found or ():
                by_literal.setdefault(lit, set()).add(i)
    return champions, phrase_entries, need, sorted(always), {lit: sorted(ids) for lit, ids in by_literal.items()}


def _load_tables(data: bytes) -> tuple:
    tables = marshal.loads(data)
    if not (isinstance(tables, tuple) and len(tables) == 5 and isinstance(tables[3], list)
            and all(isinstance(tables[k], dict) for k in (0, 1, 2, 4))
            and all(isinstance(v, bytes) and len(v) % _POSTING.size == 0 for v in tables[0].values())):
        raise ValueError("not a shortlist")
    return tables


def _automaton(phrases: list[str]):
    if ahocorasick_rs is None or not phrases:  # without the wheel the shortlist rests on TF-IDF alone
        return None
    return ahocorasick_rs.AhoCorasick(phrases, matchkind=ahocorasick_rs.MatchKind.Standard)


def _found(automaton, text: str) -> tuple[str, list]:
    """(text, overlapping matches) of an ahocorasick-rs automaton. A lone surrogate (an unescaped JSON
    "\ud83d" that a wrapper decoded) cannot be encoded for it: each becomes one U+FFFD, so the text
    keeps its length and the spans index it."""
    try:
        return text, automaton.find_matches_as_indexes(text, overlapping=True)
    except UnicodeEncodeError:
        text = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
        return text, automaton.find_matches_as_indexes(text, overlapping=True)
