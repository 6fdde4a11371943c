"""What a regex implies before it runs: the literals every match holds (the matcher's shortlist, the
standalone filter, `kb fit`) and whether it can backtrack exponentially (a user's entries, kb/schema.py).
Reads the pattern with Python's own parser; nothing here runs a regex on a log."""
from __future__ import annotations

import re
try:  # Python 3.11+
    import re._constants as _sre_c
    import re._parser as _sre_p
except ImportError:  # pragma: no cover - 3.10
    import sre_constants as _sre_c
    import sre_parse as _sre_p

MIN_LITERAL = 4


def required_literals(regex: re.Pattern) -> frozenset[str] | None:
    """Strings of which every match of `regex` contains at least one (the longest such choice), or
    None when there is no useful one (shorter than MIN_LITERAL bytes of UTF-8, so that a zh_CN
    notice's three characters count as the nine bytes they are; or a case-insensitive pattern).
    The matcher scores an entry whenever one of them is in the incident, so a pattern that matches
    is never left out of the shortlist."""
    if regex.flags & re.IGNORECASE:
        return None
    try:
        best = _necessary(_sre_p.parse(regex.pattern, regex.flags & ~re.UNICODE))
    except Exception:  # an internal parser shape this walker does not know: score the entry always
        return None
    return best if best and min(len(s.encode()) for s in best) >= MIN_LITERAL else None


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    if not a or not b:
        return a or b
    return a if min(len(s.encode()) for s in a) >= min(len(s.encode()) for s in b) else b


def _necessary(seq) -> frozenset[str] | None:
    """Walk one sequence of the parsed pattern: runs of literals, required groups, branches."""
    best, run = None, []
    for op, av in list(seq) + [(None, None)]:
        if op is _sre_c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            best = _better(best, frozenset({"".join(run)}))
            run = []
        if op is _sre_c.SUBPATTERN and not av[1] & re.IGNORECASE:  # (?i:...) matches other cases
            best = _better(best, _necessary(av[-1]))
        elif op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT) and av[0] >= 1:
            best = _better(best, _necessary(av[2]))
        elif op is _sre_c.BRANCH:
            alts = [_necessary(b) for b in av[1]]
            if all(alts):
                best = _better(best, frozenset().union(*alts))
    return best


_REPEATS = (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT)
_POSSESSIVE = getattr(_sre_c, "POSSESSIVE_REPEAT", None)  # Python 3.11+


def backtracks(pattern: str) -> str | None:
    """Why `pattern` can backtrack exponentially, or None: an unbounded repetition whose body starts
    with (or is only) another repetition, as in `(a+)+`, `(\\w+\\s?)*`, `(?:x*)+`. Each round of the
    outer one can then split the same characters among the inner one in many ways; a body that starts
    with a literal or a class of its own (`(?:\\.\\w+)*`) fixes where each round begins. Checked on the
    regexes of a user's entries (kb/schema.py), which run on every incident's lines."""
    return _walk(_sre_p.parse(pattern))


def _walk(items) -> str | None:
    for op, av in items:
        if op in _REPEATS and av[1] == _sre_c.MAXREPEAT and _starts_repeated(av[2]):
            return "a repeated group starts with a repetition"
        for sub in _children(op, av):
            why = _walk(sub)
            if why:
                return why
    return None


def _children(op, av) -> tuple:
    """The sequences nested in one parsed item: a repetition's body, a group's, each branch, a lookaround's."""
    if op in _REPEATS or (_POSSESSIVE is not None and op is _POSSESSIVE):
        return (av[2],)
    if op is _sre_c.SUBPATTERN:
        return (av[-1],)
    if op is _sre_c.BRANCH:
        return tuple(av[1])
    if op in (_sre_c.ASSERT, _sre_c.ASSERT_NOT):
        return (av[1],)
    return ()


def _starts_repeated(items) -> bool:
    """Whether a match of `items` can begin inside a repetition that may run more than once (a
    possessive one never gives characters back)."""
    for op, av in items:
        if op in _REPEATS and av[1] > 1:
            return True
        if _POSSESSIVE is not None and op is _POSSESSIVE:
            return False
        if op is _sre_c.SUBPATTERN:
            return _starts_repeated(av[-1])
        if op is _sre_c.BRANCH:
            return any(_starts_repeated(b) for b in av[1])
        if op in (_sre_c.AT, _sre_c.ASSERT, _sre_c.ASSERT_NOT):
            continue
        return False
    return False
