"""The matcher's shortlist never leaves out an entry whose pattern matches (issue 13, part 4).

With more entries than SHORTLIST, only the best TF-IDF entries, the trigger hits and the entries one
of whose patterns can match are scored. The last is decided by each pattern's required literals:
strings of which every match holds one. Checked on every KB pattern against the real fixture lines."""
import re

import pytest

from vlkb.analyzer import tfidf
from vlkb.analyzer.incidenttext import candidates, incident_document
from vlkb.analyzer.regexinfo import required_literals
from vlkb.analyzer.shortlist import SHORTLIST
from vlkb.kb import fixtures as fx
from vlkb.kb import load

POSITIVES = [f for f in fx.discover(load()) if f.kind == "pos"]


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"^(?:RuntimeError: )?still have inflight params", {"still have inflight params"}),
    (r"^.{0,200}?\b(?P<s>CUBLAS_STATUS_[A-Z_]+)\b", {"CUBLAS_STATUS_"}),
    (r"^(?:No module named|cannot import name) '", {"No module named", "cannot import name"}),
    (r"^(?:optional prefix )?ab", None),  # nothing required is long enough
    (r"(?i)out of memory", None),  # the automaton is case-sensitive
    (r"^x(?i:Killed by signal)", None),
    (r"^(?:a|bcdefg)+ exitcode", {" exitcode"}),
    # length is counted in UTF-8 bytes: a zh_CN notice's three characters are nine distinctive bytes
    (r"^(?:\*\*)?(?:Killed|已杀死)(?:\*\*)?\s*$", {"Killed", "已杀死"}),
])
def test_required_literals(pattern, expected):
    got = required_literals(re.compile(pattern))
    assert got == (frozenset(expected) if expected is not None else None)


@pytest.fixture(scope="module")
def incidents(engine, diagnosed):
    """Each positive fixture's root incident with its candidate texts (what the matcher's regexes are
    run on), and every KB pattern with the distinct candidate texts of them all that it matches: each
    pattern is run on each text once, and both checks below read the result."""
    roots = [(f, root, candidates(root)) for f in POSITIVES if (root := diagnosed(f).root) is not None]
    texts = sorted({text for _, _, cands in roots for text, _ in cands})
    matches = [(e.id, rule, list(filter(rule.regex.search, texts))) for e in engine.entries for rule in e.patterns]
    return roots, matches


def test_every_match_holds_a_required_literal(incidents):
    """Soundness on real text: wherever a KB pattern matches a fixture's candidate text, one of its
    required literals is in that text."""
    roots, matches = incidents
    checked = 0
    for entry_id, rule, hits in matches:
        need = required_literals(rule.regex) if hits else None
        for text in hits:
            assert need is None or any(lit in text for lit in need), (entry_id, rule.regex.pattern, text)
            checked += 1
    assert checked >= len(roots) // 2


def test_an_entry_whose_pattern_matches_is_always_scored(engine, incidents):
    """For every positive fixture, each entry whose regex matches the root incident is in the shortlist,
    whatever its TF-IDF rank."""
    assert len(engine.entries) > SHORTLIST  # otherwise the shortlist is the whole KB and this is moot
    roots, matches = incidents
    matching: dict[str, set[str]] = {}  # candidate text -> the entries one of whose patterns matches it
    for entry_id, _, hits in matches:
        for text in hits:
            matching.setdefault(text, set()).add(entry_id)
    for f, root, cands in roots:
        doc = tfidf.transform(incident_document(root), engine.matcher.idf)
        listed = {e.id for e in engine.matcher.shortlist(root, doc, cands)}
        wanted = set().union(*(matching.get(text, ()) for text, _ in cands))
        assert wanted <= listed, (f.name, wanted - listed)


def test_a_matching_entry_is_scored_without_any_tfidf_or_trigger_help(engine, tmp_path):
    """An excerpt cut inside its message (`requires Acceler`) carries no trigger phrase; with the
    entry's TF-IDF vector gone (an index fitted before the pattern was added), only the required
    literal can bring the entry in, and its regex then names it."""
    from vlkb.analyzer.match import Matcher

    m = engine.matcher
    vectors = {k: v for k, v in m.vectors.items() if k != "module-not-found"}
    bare = Matcher(engine.entries, m.idf, vectors, engine.calibration)
    fixture = next(f for f in POSITIVES if f.name == "module-not-found.pos-dbgpt-hub-load-in-8bit-requires-accelerate.log")
    path = tmp_path / "cut.log"
    path.write_text(fixture.text, encoding="utf-8")
    root = engine.diagnose([str(path)]).root
    assert not any(p in line.text for e in engine.entries if e.id == "module-not-found" for p in e.triggers
                   for line in root.lines)
    scored = bare.score(root, [])
    assert scored[0].entry.id == "module-not-found"
    assert scored[0].confidence >= engine.calibration.threshold


def test_an_entry_admitted_only_for_its_regex_is_dropped_when_the_regex_fails(engine, tmp_path):
    """A required literal in the incident admits its entry so that the regex can run; where the regex
    then fails, the entry has nothing to be scored for and is not (a large KB whose literals are
    common would otherwise score hundreds of entries in full). Where it matches, it is scored."""
    from vlkb.analyzer.match import Matcher

    m = engine.matcher
    oom = next(e for e in engine.entries if e.id == "host-oom-sigkill")
    # without its TF-IDF vector or triggers only its literals can admit host-oom-sigkill
    bare = Matcher(engine.entries, m.idf, {k: v for k, v in m.vectors.items() if k != oom.id}, engine.calibration)
    index = bare._shortlist
    index._phrase_entries = {p: [i for i in ids if engine.entries[i] is not oom] for p, ids in index._phrase_entries.items()}
    killed = tmp_path / "killed.log"
    killed.write_text("step 10/100 loss 1.2\n已杀死\n", encoding="utf-8")
    root = engine.diagnose([str(killed)]).root
    doc = tfidf.transform(incident_document(root), m.idf)
    cands = candidates(root)
    assert oom.id in {e.id for e in bare.shortlist(root, doc, cands)}
    assert oom.id in {s.entry.id for s in bare.score(root, [])}
    # "Killed" inside a longer line: the literal admits the entry, its anchored regex fails
    other = tmp_path / "other.log"
    other.write_text("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
                     "RuntimeError: Killed worker pool\n", encoding="utf-8")
    root = engine.diagnose([str(other)]).root
    doc = tfidf.transform(incident_document(root), m.idf)
    cands = candidates(root)
    assert any("Killed" in text for text, _ in cands)
    assert oom.id in {e.id for e in bare.shortlist(root, doc, cands)}
    assert oom.id not in {s.entry.id for s in bare.score(root, [])}


def test_the_fitted_index_holds_each_patterns_literals(engine):
    """Start-up reads the literals `kb fit` stored instead of parsing every regex again: they must be
    what parsing gives (a stale index would silently narrow the shortlist)."""
    import json

    from vlkb.kb.loader import index_path

    stored = json.loads(index_path().read_text(encoding="utf-8"))["literals"]
    for e in engine.entries:
        for rule in e.patterns:
            need = required_literals(rule.regex)
            assert stored[rule.regex.pattern] == (sorted(need) if need else None), (e.id, rule.regex.pattern)


def test_the_tables_kept_between_runs_are_the_tables_built(engine, tmp_path, monkeypatch):
    """With a cache folder, the shortlist's tables (champion lists, trigger phrases, required literals)
    are written once and read back by the next run, named by the index file's bytes and the entries'
    rules; a copy that cannot be read is built over, and another index gets a copy of its own."""
    from vlkb.analyzer.shortlist import Shortlist
    from vlkb.kb.loader import index_path, read_index

    raw = index_path().read_bytes()
    vectors, literals = engine.matcher.vectors, read_index(index_path())["literals"]

    def tables(s):
        return s._postings, s._phrase_entries, s.need, s._always, s._literal_entries

    built = tables(Shortlist(engine.entries, vectors, literals))
    assert tables(Shortlist(engine.entries, vectors, literals, tmp_path, raw)) == built  # built and written
    (copy,) = tmp_path.glob("shortlist-*.marshal")
    with monkeypatch.context() as m:
        m.setattr("vlkb.analyzer.shortlist._tables", lambda *a: pytest.fail("built, not read"))
        assert tables(Shortlist(engine.entries, vectors, literals, tmp_path, raw)) == built  # read back
    copy.write_bytes(b"not marshal at all")
    assert tables(Shortlist(engine.entries, vectors, literals, tmp_path, raw)) == built  # built over
    assert copy.read_bytes() != b"not marshal at all"
    Shortlist(engine.entries[1:], vectors, literals, tmp_path, raw)  # other rules: a copy of their own
    assert len(list(tmp_path.glob("shortlist-*.marshal"))) == 2
