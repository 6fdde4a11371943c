"""Every KB fixture is a test item (STYLE.md 7): real logs prove every entry.

- a positive ranks its entry first, above the threshold (a stop mid-run: at the stall's measured
  confidence), citing the #=MATCH=# line;
- a negative keeps its entry under the threshold, and never suspected;
- an unknown fixture gets the verdict "unknown".
"""
import pytest

from vlkb.analyzer.diagnose import STALL_CONFIDENCE
from vlkb.kb.lint import own_repro

from vlkb.kb import fixtures as fx
from vlkb.kb import load

BLESS = "python scripts/bless_fixtures.py   # moves #=MATCH=# to the line vlkb now cites; review the diff"
ALL = fx.discover(load())


@pytest.mark.parametrize("fixture", [f for f in ALL if f.kind == "pos"], ids=lambda f: f.name)
def test_positive(engine, fixture, diagnosed):
    d = diagnosed(fixture)
    silent = next(e for e in engine.entries if e.id == fixture.entry).silent  # a run that went on, warning
    assert d.verdict == ("suspicious" if silent else "known"), f"{fixture.name}: verdict {d.verdict}, candidates " + \
        ", ".join(f"{s.entry.id}={s.confidence}" for s in d.matches)
    top = d.matches[0]
    assert top.entry.id == fixture.entry
    if d.subject.kind == "stall":  # a stop mid-run is said at its measured precision, under the threshold
        assert top.confidence == STALL_CONFIDENCE
    else:
        assert top.confidence >= d.threshold
    others = [f"{s.entry.id}={s.confidence}" for s in d.matches[1:] if s.confidence >= d.threshold]
    assert not others, f"{fixture.name}: other entries also passed the threshold: {others}"
    cited = [l.lineno for l in top.evidence]
    assert fixture.match_line in cited, \
        f"{fixture.name}: evidence cites lines {cited}, #=MATCH=# is line {fixture.match_line}; " \
        f"if the new line is right, re-bless: {BLESS}"


@pytest.mark.parametrize("fixture", [f for f in ALL if f.kind == "neg"], ids=lambda f: f.name)
def test_negative(engine, fixture, diagnosed):
    d = diagnosed(fixture)
    same = [s for s in d.matches if s.entry.id == fixture.entry]
    assert not same or same[0].confidence < d.threshold, \
        f"{fixture.name}: {fixture.entry} fired at {same[0].confidence} (threshold {d.threshold})"
    # a stall is named under the threshold: its near miss must not be suspected at all
    assert not (d.verdict == "suspicious" and d.named.entry.id == fixture.entry), \
        f"{fixture.name}: suspected {fixture.entry}"
    if fixture.family:  # the near miss is another family's real failure: vlkb must name that one
        assert d.verdict == "known" and d.matches[0].entry.family == fixture.family, \
            f"{fixture.name}: wanted {fixture.family}, got {d.verdict} " + \
            ", ".join(f"{s.entry.id}={s.confidence}" for s in d.matches)


@pytest.mark.parametrize("fixture", [f for f in ALL if f.kind == "unknown"], ids=lambda f: f.name)
def test_unknown(engine, fixture, diagnosed):
    d = diagnosed(fixture)
    assert d.verdict == "unknown", f"{fixture.name}: verdict {d.verdict}, top " + \
        ", ".join(f"{s.entry.id}={s.confidence}" for s in d.matches)
    assert d.root is not None  # the failure is still extracted and shown


def test_every_entry_is_proven():
    """At least three positives from public reports and one near-miss negative per entry, each with a
    source: a public https URL, or the vlkb repro whose captured run it is."""
    for entry in load():
        parsed = [fx.parse(p) for p in entry.fixtures]
        public = [f for f in parsed if f.kind == "pos" and f.source.startswith("https://")]
        assert len(public) >= 3, f"{entry.id}: {len(public)} public positive fixtures"
        assert [f.kind for f in parsed].count("neg") >= 1, f"{entry.id}: no negative fixture"
    for f in ALL:
        assert f.source.startswith("https://") or own_repro(f.source), f.source


HEALTHY = sorted((__import__("conftest").ROOT / "data/corpus/healthy").glob("*.log"))


@pytest.mark.parametrize("log", HEALTHY, ids=lambda p: p.name)
def test_healthy(engine, log):
    """A run that succeeded: no failure, no entry fires (STYLE.md point 6)."""
    d = engine.diagnose([str(log)], top=16)
    assert d.verdict == "clean", f"{log.name}: {d.verdict}, root {d.root and d.root.first.text!r}"
    assert all(s.confidence < d.threshold for s in d.matches)


def test_healthy_corpus_exists():
    assert len(HEALTHY) >= 3
