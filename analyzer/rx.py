"""The analyzer's regexes, compiled once per interpreter and kept between runs.

The core compiles some 270 regexes when it is imported; Python's `re` parses and assembles each one
again in every process, about 70 ms of a 300 ms `vlkb diagnose` on a small log. `compile` here
gives the same Pattern from the engine's instruction list when a copy of it is kept in the user's
cache folder (diskcache.py: $VLKB_HOME/cache), built by an earlier run of the same interpreter.

A kept copy is plain data (marshal: strings, integers, lists and dicts, no code objects) for
exactly this interpreter and regex engine (its name holds sys.version and the engine's magic
number), and the engine checks every instruction list it is given. Each pattern in it carries the
number of the last write whose run used it: one left unused for STALE_AFTER writes (a KB since
changed, a release upgraded from) is dropped, so the copy holds what the commands use, not every
pattern a KB ever had (reading 4,000 patterns cost a small log's diagnosis 40 ms). Whatever goes
wrong (no copy, a copy of another build, an interpreter whose `re` is laid out differently),
`compile` is `re.compile`.
Nothing is written unless a command asks for it (`keep_at_exit`): importing the core as a library
never writes into the user's home.

With VLKB_COUNT_WORK set when the core is imported, every pattern counts the characters it is handed
(`work`): the measure of linear cost the suite asserts (tests/test_work_budget.py) and the hostile
benchmark prints. A count, not a clock: the same input gives the same number on any machine.
"""
from __future__ import annotations

import atexit
import marshal
import os
import re
import sys
from pathlib import Path

try:  # the engine's own assembler: re._parser and re._compiler since 3.11, sre_* before
    import _sre
    from re import _compiler, _parser
except ImportError:  # pragma: no cover - Python 3.10
    try:
        import _sre
        import sre_compile as _compiler
        import sre_parse as _parser
    except ImportError:
        _compiler = None

MAX_KEPT = 4096  # patterns in one copy (a user's extra KB adds its own); past it, the least recently used go
STALE_AFTER = 8  # writes a kept pattern may go unused before it is dropped
_NAME = f"regex-{sys.implementation.cache_tag}-{getattr(_sre, 'MAGIC', 0) if _compiler else 0}.marshal"
_BUILD = sys.version  # a copy is read only by the interpreter build that wrote it


def _cache_dir() -> Path:
    """$VLKB_HOME/cache, as the commands name it (vlkb.home.cache_dir)."""
    return Path(os.environ.get("VLKB_HOME") or Path.home() / ".vlkb") / "cache"


def _read(path: Path) -> tuple[int, dict]:
    """(the copy's write number, its table), or (0, {}) for a copy of another build or format."""
    try:
        build, generation, table = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return 0, {}
    ok = build == _BUILD and isinstance(generation, int) and isinstance(table, dict)
    return (generation, table) if ok else (0, {})


# (pattern, flags) -> (the last write that used it, _sre.compile's arguments)
_generation, _kept = _read(_cache_dir() / _NAME) if _compiler else (0, {})
_used: set = set()  # (pattern, flags) this process took from _kept
_missed: set = set()  # (pattern, flags) compiled in full in this process
_keeping: set = set()  # folders a copy is written to at exit
_COUNTING = bool(os.environ.get("VLKB_COUNT_WORK"))  # set when the core is imported: patterns count (work)
_work = [0]  # characters handed to the patterns so far


def compile(pattern: str | bytes, flags: int = 0) -> re.Pattern:
    """re.compile(pattern, flags), from the kept instruction list when there is one."""
    compiled = _compile(pattern, flags)
    return _Counted(compiled) if _COUNTING else compiled


def _compile(pattern: str | bytes, flags: int) -> re.Pattern:
    key = (pattern, int(flags))
    kept = _kept.get(key)
    if kept is not None:
        try:
            compiled = _sre.compile(pattern, *kept[1])
            _used.add(key)
            return compiled
        except Exception:  # noqa: BLE001 - a copy this engine refuses: compile it in full
            _kept.pop(key, None)  # (a TUI worker thread may have met it first)
    _missed.add(key)
    return re.compile(pattern, flags)


def work() -> int:
    """Characters handed to the core's patterns in this process (0 unless VLKB_COUNT_WORK was set)."""
    return _work[0]


class _Counted:
    """A compiled pattern that adds the length of every string it is given to `work()`."""
    __slots__ = ("_p",)

    def __init__(self, p: re.Pattern):
        self._p = p

    def __getattr__(self, name):  # pattern, flags, groups, groupindex
        if name == "_p":  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self._p, name)

    def __reduce__(self):
        return _Counted, (self._p,)

    def _scan(self, method: str, string, pos: int = 0, endpos: int = sys.maxsize):
        """The part of `string` the pattern is given: pos to endpos, as re clamps them."""
        n = len(string)
        _work[0] += max(0, min(endpos, n) - min(max(pos, 0), n))
        return getattr(self._p, method)(string, pos, endpos)

    def search(self, *a, **k): return self._scan("search", *a, **k)  # noqa: E704
    def match(self, *a, **k): return self._scan("match", *a, **k)  # noqa: E704
    def fullmatch(self, *a, **k): return self._scan("fullmatch", *a, **k)  # noqa: E704
    def finditer(self, *a, **k): return self._scan("finditer", *a, **k)  # noqa: E704
    def findall(self, *a, **k): return self._scan("findall", *a, **k)  # noqa: E704

    def split(self, string, maxsplit: int = 0):
        _work[0] += len(string)
        return self._p.split(string, maxsplit)

    def sub(self, repl, string, *a, **k):
        _work[0] += len(string)
        return self._p.sub(repl, string, *a, **k)

    def subn(self, repl, string, *a, **k):
        _work[0] += len(string)
        return self._p.subn(repl, string, *a, **k)


def assembled(pattern: str | bytes, flags: int) -> tuple:
    """The arguments `_sre.compile` takes for `pattern`: what re.compile computes before its last call."""
    p = _parser.parse(pattern, flags)
    code = _compiler._code(p, flags)
    groupindex = dict(p.state.groupdict)
    indexgroup = [None] * p.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return int(flags | p.state.flags), [int(c) for c in code], p.state.groups - 1, groupindex, tuple(indexgroup)


def keep_at_exit(folder: Path) -> None:
    """Write a copy with this process's patterns to `folder` when the process exits, if some were
    compiled in full (the first run, a changed KB)."""
    if _compiler is not None and folder not in _keeping:
        _keeping.add(folder)
        atexit.register(_keep, folder)


def _keep(folder: Path) -> None:
    from .diskcache import write_atomic

    if not _missed:
        return
    # this run's patterns carry this write's number; the others keep theirs until STALE_AFTER writes
    # have passed them by; past MAX_KEPT, the least recently used go
    generation = _generation + 1
    table = {k: v for k, v in list(_kept.items()) if _stamp(v) > generation - STALE_AFTER}
    table.update({k: (generation, _kept[k][1]) for k in list(_used) if k in _kept})
    try:
        for pattern, flags in list(_missed)[:MAX_KEPT]:
            table[(pattern, flags)] = (generation, assembled(pattern, flags))
        if len(table) > MAX_KEPT:
            table = dict(sorted(table.items(), key=lambda kv: kv[1][0], reverse=True)[:MAX_KEPT])
        data = marshal.dumps((_BUILD, generation, table))
    except Exception:  # noqa: BLE001 - an interpreter whose `re` differs: no head start, same answers
        return
    write_atomic(folder / _NAME, data)


def _stamp(kept) -> int:
    """The write number of a kept (number, arguments) pair; -1 for anything else, which is dropped."""
    return kept[0] if isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[0], int) else -1
