"""The fast candidate-line finder selects exactly the lines the trigger regex selects."""
import random

from conftest import ROOT
from vlkb.analyzer import Engine
from vlkb.analyzer.trigger import Trigger, literal_core


def _chunks():
    for p in sorted((ROOT / "kb").rglob("*.log")) + sorted((ROOT / "data").rglob("*.log")):
        yield p.read_bytes()
    rng = random.Random(7)
    words = [b"Error", b"nan", b"inf", b"info", b"finance", b"SIGTERM", b"SIG", b"zero2", b"zero_", b"loss",
             b"Traceback (most recent call last):", b'File "x.py"', b"ready twice", b"\xff\xfe", b"OVERFLOW!"]
    lines = [b" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) for _ in range(3000)]
    yield b"\n".join(lines) + b"\n"


def test_automaton_and_regex_select_the_same_lines():
    regex = Engine.load().trigger.regex
    fast, slow = Trigger(regex), Trigger(regex, use_automaton=False)
    assert fast.engine == "aho-corasick"
    for chunk in _chunks():
        assert fast.line_starts(chunk) == slow.line_starts(chunk)


def test_every_trigger_alternative_has_a_literal_core():
    regex = Engine.load().trigger.regex
    assert all(literal_core(a) for a in regex.pattern.split(b"|"))
