"""The analyzer's regexes, compiled once per interpreter and kept between runs.

The core compiles some 270 regexes when it is imported; Python's `re` parses and assembles each one
again in every process, about 70 ms of a 300 ms `vlkb diagnose` on a small log. `compile` here
gives the same Pattern from the engine's instruction list when a copy of it is kept in the user's
cache folder (diskcache.py: $VLKB_HOME/cache), built by an earlier run of the same interpreter.

A kept copy is plain data (marshal: strings, integers, lists and dicts, no code objects) for
exactly this interpreter and regex engine (its name holds sys.version and the engine's magic
number), and the engine checks every instruction list it is given. Whatever goes wrong (no copy, a
copy of another build, an interpreter whose `re` is laid out differently), `compile` is `re.compile`.
Nothing is written unless a command asks for it (`keep_at_exit`): importing the core as a library
never writes into the user's home.
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

MAX_KEPT = 4096  # patterns in one copy (a user's extra KB adds its own); past it, nothing new is added
_NAME = f"regex-{sys.implementation.cache_tag}-{getattr(_sre, 'MAGIC', 0) if _compiler else 0}.marshal"
_BUILD = sys.version  # a copy is read only by the interpreter build that wrote it


def _cache_dir() -> Path:
    """$VLKB_HOME/cache, as the commands name it (vlkb.home.cache_dir)."""
    return Path(os.environ.get("VLKB_HOME") or Path.home() / ".vlkb") / "cache"


def _read(path: Path) -> dict:
    try:
        build, table = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return table if build == _BUILD and isinstance(table, dict) else {}


_kept: dict = _read(_cache_dir() / _NAME) if _compiler else {}  # (pattern, flags) -> _sre.compile's arguments
_used: set = set()  # (pattern, flags) this process took from _kept
_missed: set = set()  # (pattern, flags) compiled in full in this process
_keeping: set = set()  # folders a copy is written to at exit


def compile(pattern: str | bytes, flags: int = 0) -> re.Pattern:
    """re.compile(pattern, flags), from the kept instruction list when there is one."""
    key = (pattern, int(flags))
    args = _kept.get(key)
    if args is not None:
        try:
            compiled = _sre.compile(pattern, *args)
            _used.add(key)
            return compiled
        except Exception:  # noqa: BLE001 - a copy this engine refuses: compile it in full
            _kept.pop(key, None)  # (a TUI worker thread may have met it first)
    _missed.add(key)
    return re.compile(pattern, flags)


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
    # the copy read, with this run's new patterns; past MAX_KEPT, only what this run used
    table = dict(_kept) if len(_kept) + len(_missed) <= MAX_KEPT else {k: _kept[k] for k in _used if k in _kept}
    try:
        for pattern, flags in list(_missed)[:MAX_KEPT - len(table)]:
            table[(pattern, flags)] = assembled(pattern, flags)
        data = marshal.dumps((_BUILD, table))
    except Exception:  # noqa: BLE001 - an interpreter whose `re` differs: no head start, same answers
        return
    write_atomic(folder / _NAME, data)
