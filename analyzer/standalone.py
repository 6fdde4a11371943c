"""Which one-line shape a line is on its own (standaloneshapes.STANDALONE: a kill notice, a watchdog, a launcher
line, a metric, a logged error, and with `warnings` a warning), found without trying every regex on it."""
from __future__ import annotations

import re
from functools import lru_cache

from .regexinfo import required_literals
from .standaloneshapes import STANDALONE
from .trigger import ahocorasick_rs  # None without its wheel: every standalone regex is then tried


class StandaloneFilter:
    """Which of STANDALONE's regexes can match a text, from the literals every match of each holds
    (regexinfo.required_literals), found in one Aho-Corasick pass: Python's `re` tries each of a
    regex's unanchored alternatives at every position, about 150 us for the seven of them on a 1 KB
    candidate line (a tensor dump), most of which holds none of their words. A regex without such
    literals is always tried; without the ahocorasick-rs wheel, all of them are."""

    def __init__(self, standalone: list[tuple[str, re.Pattern]]):
        self.needs = [required_literals(pattern) for _, pattern in standalone]
        literals = sorted({lit for need in self.needs if need for lit in need})
        self._automaton = ahocorasick_rs.AhoCorasick(literals) if ahocorasick_rs is not None and literals else None
        self._literals = literals

    def candidates(self, text: str) -> list[bool]:
        """For each regex of the list, whether it may match `text`."""
        if self._automaton is None:
            return [True] * len(self.needs)
        try:
            found = {self._literals[i] for i, _, _ in self._automaton.find_matches_as_indexes(text, overlapping=True)}
        except UnicodeEncodeError:  # a lone surrogate (an unescaped JSON "\ud83d"): try every regex
            return [True] * len(self.needs)
        return [need is None or not need.isdisjoint(found) for need in self.needs]


# Below this length the regexes are cheaper than the filter's pass (and most logs never build it:
# parsing the regexes for their literals costs about 15 ms of start-up).
FILTER_FROM = 256


@lru_cache(maxsize=1)
def _filter() -> StandaloneFilter:
    return StandaloneFilter(STANDALONE)


def standalone_kind(text: str, warnings: bool) -> str | None:
    """The kind of incident a line is on its own (a watchdog, a kill, a launcher notice, and with
    `warnings` a warning), or None."""
    mays = _filter().candidates(text) if len(text) >= FILTER_FROM else [True] * len(STANDALONE)
    for (kind, pattern), may in zip(STANDALONE, mays):
        if may and (warnings or kind != "warning") and pattern.search(text):
            return kind
    return None
