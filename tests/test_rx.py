"""The core's regexes kept between runs (analyzer/rx.py): a pattern built from a kept instruction list
behaves as re.compile's, a command's second run reads the copy its first one wrote, and a copy that
is damaged, or from another build, is never trusted."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import vlkb.analyzer.rx as rx
from vlkb.kb.fixtures import parse

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "samples" / "ms-swift-minicpmv-dpo-zero2.log"
LINES = [line for path in sorted((ROOT / "kb" / "entries").glob("*/*.pos-*.log"))[:200]
         for line in parse(path).text.splitlines()]


def _core_patterns() -> list[re.Pattern]:
    """Every regex the core's modules hold once imported: in their globals, and in the lists, tuples
    and tables of them (not the whole process's: the suite imports rich, textual and the rest)."""
    import vlkb.analyzer.diagnose  # noqa: F401 - the whole core

    found: dict[int, re.Pattern] = {}

    def walk(value, depth: int) -> None:
        if isinstance(value, re.Pattern):
            if isinstance(value.pattern, str):
                found[id(value)] = value
        elif depth and isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                walk(item, depth - 1)
        elif depth and isinstance(value, dict):
            for item in value.values():
                walk(item, depth - 1)

    for name, module in list(sys.modules.items()):
        if name.startswith("vlkb.analyzer"):
            for value in vars(module).values():
                walk(value, 3)
    return list(found.values())


def test_a_pattern_from_its_instruction_list_finds_what_re_compile_finds():
    import _sre

    checked = 0
    for original in _core_patterns():
        built = _sre.compile(original.pattern, *rx.assembled(original.pattern, original.flags))
        assert (built.pattern, built.flags, built.groups, dict(built.groupindex)) == \
            (original.pattern, original.flags, original.groups, dict(original.groupindex))
        for line in LINES:
            a, b = original.search(line), built.search(line)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), (original.pattern, line)
        checked += 1
    assert checked > 150  # the core holds about 175 text patterns in tables it keeps


def _run(home: Path, *code: str) -> str:
    env = {**os.environ, "VLKB_HOME": str(home)}
    cp = subprocess.run([sys.executable, "-c", ";".join(code)], capture_output=True, text=True, env=env, timeout=120)
    assert cp.returncode == 0, cp.stderr
    return cp.stdout


DIAGNOSE = ("import sys", "from vlkb.cli import main",
            f"sys.argv = ['vlkb', 'diagnose', {str(SAMPLE)!r}, '--format', 'json', '--no-history']",
            "main()")


def _copies(home: Path) -> list[Path]:
    return sorted((home / "cache").glob("regex-*.marshal"))


def test_the_second_run_compiles_from_the_copy_the_first_wrote_and_answers_alike(tmp_path):
    first = json.loads(_run(tmp_path, *DIAGNOSE))
    assert len(_copies(tmp_path)) == 1
    second = json.loads(_run(tmp_path, *DIAGNOSE))
    assert second == first
    taken = _run(tmp_path, "import vlkb.analyzer.diagnose", "import vlkb.analyzer.rx as rx",
                 "print(len(rx._used), len(rx._missed))").split()
    assert int(taken[0]) > 200 and int(taken[1]) == 0  # every core regex came from the copy


@pytest.mark.parametrize("damage", [b"", b"not marshal at all", "another build", "instructions"])
def test_a_damaged_or_foreign_copy_is_compiled_over(tmp_path, damage):
    expected = json.loads(_run(tmp_path, *DIAGNOSE))
    (copy,) = _copies(tmp_path)
    import marshal

    build, generation, table = marshal.loads(copy.read_bytes())
    if damage == "another build":  # a well-formed copy written by another interpreter build
        damage = marshal.dumps(("another build", generation, table))
    elif damage == "instructions":  # this build's copy, its instruction lists garbled: the engine refuses them
        damage = marshal.dumps((build, generation, {key: (n, (args[0], [7] * len(args[1]), *args[2:]))
                                                    for key, (n, args) in table.items()}))
    copy.write_bytes(damage)
    used = _run(tmp_path, "import vlkb.analyzer.diagnose", "import vlkb.analyzer.rx as rx", "print(len(rx._used))")
    assert used.strip() == "0"
    assert json.loads(_run(tmp_path, *DIAGNOSE)) == expected
    assert marshal.loads(copy.read_bytes())[0] == sys.version  # written over with this build's


def test_a_pattern_no_run_used_for_stale_after_writes_is_dropped(tmp_path):
    """Each write stamps the patterns its run used; one the last STALE_AFTER writes all passed by (a
    KB changed since) leaves the copy, one used more recently stays, so the copy stays the size of
    what the commands use."""
    import marshal

    _run(tmp_path, *DIAGNOSE)
    (copy,) = _copies(tmp_path)
    build, generation, table = marshal.loads(copy.read_bytes())
    some = next(iter(table.values()))[1]
    table[("stale pattern", 0)] = (generation + 1 - rx.STALE_AFTER, some)  # unused since STALE_AFTER writes ago
    table[("recent pattern", 0)] = (generation + 2 - rx.STALE_AFTER, some)  # one write later
    missing = next(iter(table))  # a pattern the run uses, left out: the run compiles it and writes
    del table[missing]
    copy.write_bytes(marshal.dumps((build, generation, table)))
    _run(tmp_path, *DIAGNOSE)
    _, written, kept = marshal.loads(copy.read_bytes())
    assert written == generation + 1
    assert ("stale pattern", 0) not in kept and kept[("recent pattern", 0)][0] == generation + 2 - rx.STALE_AFTER
    assert kept[missing][0] == written


def test_the_core_imported_as_a_library_writes_nothing(tmp_path):
    _run(tmp_path, "from vlkb.kb import load_engine", f"load_engine().diagnose([{str(SAMPLE)!r}])")
    assert not (tmp_path / "cache").exists()


def test_the_copy_is_read_where_the_commands_keep_their_cache(tmp_path, monkeypatch):
    from vlkb.home import cache_dir

    monkeypatch.setenv("VLKB_HOME", str(tmp_path))
    assert rx._cache_dir() == cache_dir()
