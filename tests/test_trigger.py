"""The fast candidate-line finder selects exactly the lines the trigger regex selects."""
import platform
import random
import sys

import pytest

from conftest import ROOT
from vlkb.kb import load_engine
from vlkb.analyzer.trigger import Trigger, available_engines, literal_core


def _chunks():
    for p in sorted((ROOT / "kb").rglob("*.log")) + sorted((ROOT / "data").rglob("*.log")):
        yield p.read_bytes()
    rng = random.Random(7)
    words = [b"Error", b"nan", b"inf", b"info", b"finance", b"SIGTERM", b"SIG", b"zero2", b"zero_", b"loss",
             b"Traceback (most recent call last):", b'File "x.py"', b"ready twice", b"\xff\xfe", b"OVERFLOW!"]
    lines = [b" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) for _ in range(3000)]
    yield b"\n".join(lines) + b"\n"


@pytest.fixture(scope="module")
def selected_by_regex():
    """Each chunk with the lines the trigger regex itself selects: the reference, computed once."""
    slow = Trigger(load_engine().trigger.regex, "re")
    return [(chunk, slow.line_starts(chunk)) for chunk in _chunks()]


@pytest.mark.parametrize("engine", available_engines()[:-1])
def test_literal_engines_and_regex_select_the_same_lines(engine, selected_by_regex):
    fast = Trigger(load_engine().trigger.regex, engine)
    assert fast.engine == engine
    for chunk, expected in selected_by_regex:
        assert fast.line_starts(chunk) == expected


def test_the_declared_engines_are_installed():
    """ahocorasick-rs everywhere, hyperscan where pyproject declares it (x86-64 Linux)."""
    expected = ["aho-corasick", "re"]
    if sys.platform == "linux" and platform.machine() == "x86_64":
        expected.insert(0, "hyperscan")
    assert available_engines() == expected
    assert load_engine().trigger.engine == expected[0]


def test_every_trigger_alternative_has_a_literal_core():
    regex = load_engine().trigger.regex
    assert all(literal_core(a) for a in regex.pattern.split(b"|"))


@pytest.mark.skipif("hyperscan" not in available_engines(), reason="hyperscan wheels exist for x86-64 Linux")
def test_hyperscan_runs_the_alternatives_themselves():
    """No candidate line needs confirming, however long: a near miss of a literal core ("finance",
    "nano", "SIG" alone) is refused by the scan itself, and a real hit on a 100 KB line is kept."""
    regex = load_engine().trigger.regex
    fast = Trigger(regex, "hyperscan")
    assert fast.exact
    near = b"finance nano SIG information " * 5000
    real = b"x" * 100_000 + b" SIGTERM"
    chunk = b"ok\n" + near + b"\n" + real + b"\nok\n"
    assert fast.line_starts(chunk) == Trigger(regex, "re").line_starts(chunk) == [4 + len(near)]


@pytest.mark.skipif("hyperscan" not in available_engines(), reason="hyperscan wheels exist for x86-64 Linux")
def test_hyperscans_compiled_database_is_kept_and_a_bad_copy_is_compiled_over(tmp_path):
    """With a cache folder the compiled database is written once and read back by the next run;
    the lines found are the same. A cut or corrupted copy is refused by hyperscan, compiled over and
    rewritten; a folder that cannot be written costs the cache, never the scan."""
    regex = load_engine().trigger.regex
    chunk = b"".join(_chunks())
    expected = Trigger(regex, "hyperscan").line_starts(chunk)
    assert Trigger(regex, "hyperscan", cache_dir=tmp_path).line_starts(chunk) == expected
    (kept,) = tmp_path.glob("trigger-*.hsdb")
    stamp = kept.stat().st_mtime_ns
    assert Trigger(regex, "hyperscan", cache_dir=tmp_path).line_starts(chunk) == expected
    assert kept.stat().st_mtime_ns == stamp  # read, not rewritten
    good = kept.read_bytes()
    for bad in (good[: len(good) // 2], good[:300] + bytes([good[300] ^ 0xFF]) + good[301:], b""):
        kept.write_bytes(bad)
        assert Trigger(regex, "hyperscan", cache_dir=tmp_path).line_starts(chunk) == expected
        assert kept.read_bytes() == good
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert Trigger(regex, "hyperscan", cache_dir=blocked / "cache").line_starts(chunk) == expected


def _trie_pattern(words) -> str:
    """A regex that matches where one of `words` does, its alternation factored by common prefixes (a
    flat alternation of a thousand phrases costs the `re` engine a try of each at every position)."""
    import re

    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        if "" in node:  # a phrase ends here: a match need not go on
            return ""
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items())]
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return emit(trie)


def test_trie_pattern_matches_where_the_flat_alternation_does():
    import re

    words = ["Error", "Err", "error:", "NaN", "nan", "Killed", "Kill", "x.y"]
    flat, trie = re.compile("|".join(map(re.escape, words))), re.compile(_trie_pattern(words))
    for text in ["an Error here", "Er", "nab", "xzy", "x.y", "SIGKILL Kille", "Kil", "error", "error:"]:
        assert (flat.search(text) is None) == (trie.search(text) is None), text


def test_phrases_finds_what_the_alternation_finds():
    """The KB's trigger phrases through Aho-Corasick say what their regex alternation says, on fixture
    lines and on a lone surrogate (an unescaped JSON "\\ud83d"), which the automaton cannot encode."""
    import re

    from vlkb.analyzer.trigger import Phrases

    engine = load_engine()
    phrases = engine.signature
    regex = re.compile(_trie_pattern(phrases.phrases))
    lines = sorted({line for chunk in _chunks() for line in chunk.decode("utf-8", "replace").splitlines()})
    lines.append("RuntimeError: CUDA out of memory \ud83d")  # (a line met twice is checked once)
    assert sum(phrases.search(t) for t in lines) > 100
    assert [phrases.search(t) for t in lines] == [regex.search(t) is not None for t in lines]
    assert isinstance(Phrases(["x"]).search("a x b"), bool)


def test_the_standalone_filter_never_skips_a_regex_that_matches():
    """standalone.StandaloneFilter skips a standalone regex when none of its required literals is in the
    line: on every line of the KB fixtures and the field corpus, each regex that matches was kept."""
    from pathlib import Path

    from vlkb.analyzer.recordstart import STANDALONE_CHARS
    from vlkb.analyzer.standalone import StandaloneFilter
    from vlkb.analyzer.standaloneshapes import STANDALONE

    root = Path(__file__).resolve().parent.parent
    f = StandaloneFilter(STANDALONE)
    assert any(need is not None for need in f.needs)  # the filter has something to skip by
    checked = 0
    for path in [*root.glob("kb/entries/*/*.log"), *root.glob("data/corpus/field/cases/*.log")]:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            text = line.strip()[:STANDALONE_CHARS]
            may = f.candidates(text)
            for (kind, pattern), ok in zip(STANDALONE, may):
                if pattern.search(text):
                    assert ok, (path.name, kind, text)
                    checked += 1
    assert checked > 500


def test_the_trainers_metrics_lines_are_not_candidates():
    """The hot path of a quiet log (issue 14): the Trainer's per-step metrics dict, a quarter of its
    lines, holds no trigger, while the same keys as settings do (a fact is read from them)."""
    trigger = load_engine().trigger
    metrics = b"[rank0]:{'loss': 1.2345, 'grad_norm': 3.21, 'learning_rate': 1.234e-05, 'epoch': 0.42}\n"
    assert trigger.line_starts(metrics * 3) == []
    settings = b"learning_rate: 1.0e-4\n    --learning_rate 2e-5 \\\nlearning_rate=2e-05,\n"
    assert len(trigger.line_starts(settings)) == 3
