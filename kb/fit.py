"""Refit what is derived from the entries and fixtures (`vlkb kb fit`, for KB maintainers):
the persisted TF-IDF (fitted by scikit-learn), the confidence calibration, `kb/INDEX.md` and the
README's accuracy table. Run it after changing an entry or a fixture; tests fail while any of them is
stale. This is the only place that imports scikit-learn.

Calibration: every fixture is diagnosed with the fresh TF-IDF; each (root incident, entry) pair
gives the five signal scores and a label (1 when the fixture is a positive of that entry). A
logistic regression on those rows turns signals into a probability. The threshold is the midpoint of
the widest gap between the confidences of right and wrong top candidates: the fixtures' unknowns
and negatives must stay below it, their positives above it.
"""
from __future__ import annotations

import json
from pathlib import Path

from vlkb.analyzer import tfidf
from vlkb.analyzer.diagnose import Engine
from vlkb.analyzer.scores import FEATURES, Calibration
from vlkb.analyzer.regexinfo import required_literals

from . import accuracy, docs
from . import fixtures as fx
from .loader import fingerprint, index_path, load, parsed_docs, shipped_dir

NEUTRAL = Calibration([0.0] * len(FEATURES), 0.0, 0.5)


def fit_tfidf(entries: list) -> tuple[dict, dict]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(**tfidf.SKLEARN_ARGS)
    matrix = vec.fit_transform([e.document() for e in entries])
    terms = vec.get_feature_names_out()
    idf = {t: float(w) for t, w in zip(terms, vec.idf_)}
    vectors = {}
    for i, e in enumerate(entries):
        row = matrix.getrow(i)
        vectors[e.id] = {terms[j]: float(v) for j, v in zip(row.indices, row.data)}
    return idf, vectors


def fixture_rows(engine: Engine, fixtures: list) -> list[tuple[fx.Fixture, object, list[float], int]]:
    """(fixture, entry id, features, label) for each fixture's root incident against each entry."""
    rows = []
    for f, diag in accuracy.diagnose_fixtures(engine, fixtures):
        scored = {s.entry.id: s.features for s in diag.matches}
        explained = {s.entry.id for s in diag.matches if s.explained}
        for e in engine.entries:
            # a negative says nothing about other entries: it may be another entry's positive;
            # a pair an `unless` condition explains away is not scored at all (confidence 0)
            if (f.kind == "neg" and e.id != f.entry) or e.id in explained:
                continue
            label = int(f.kind == "pos" and e.id == f.entry)
            rows.append((f, e.id, scored.get(e.id, [0.0] * len(FEATURES)), label))
    return rows


def fit_calibration(rows) -> tuple[list[float], float]:
    from sklearn.linear_model import LogisticRegression

    X = [r[2] for r in rows]
    y = [r[3] for r in rows]
    model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000)
    model.fit(X, y)
    # every signal is evidence for the entry: a fitted negative weight (too few fixtures carry that
    # signal) is clamped to 0 rather than let supporting evidence lower the confidence
    coef = [max(0.0, round(float(c), 4)) for c in model.coef_[0]]
    return coef, round(float(model.intercept_[0]), 4)


def choose_threshold(cal: Calibration, rows) -> tuple[float, list[str]]:
    """Midpoint of the widest gap between wrong (below) and right (above) top-candidate confidences."""
    right, wrong = [], []
    for f, entry, feats, label in rows:
        conf = cal.confidence(feats)
        (right if label else wrong).append(conf)
    lo, hi = max(wrong, default=0.0), min(right, default=1.0)
    report = [f"positives: min confidence {hi:.3f} over {len(right)} pairs",
              f"negatives/unknowns/other entries: max confidence {lo:.3f} over {len(wrong)} pairs"]
    if lo < hi:
        threshold = round((lo + hi) / 2, 3)
    else:  # overlap: keep the wrong ones out, accept losing the weakest positives
        threshold = round(min(0.95, lo + 0.01), 3)
        report.append("overlap between right and wrong pairs: threshold set above the highest wrong one")
    for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, threshold):
        tp = sum(c >= t for c in right)
        fp = sum(c >= t for c in wrong)
        report.append(f"  threshold {t:.3f}: positives above {tp}/{len(right)}, wrong pairs above {fp}/{len(wrong)}")
    return threshold, report


def fit(out: Path | None = None, readme: Path | None = None) -> list[str]:
    entries = load()
    idf, vectors = fit_tfidf(entries)
    fixtures = fx.discover(entries)
    rows = fixture_rows(Engine(entries, idf, vectors, NEUTRAL), fixtures)
    coef, intercept = fit_calibration(rows)
    threshold, sweep = choose_threshold(Calibration(coef, intercept, 0.5), rows)
    index = {
        "fingerprint": fingerprint(entries),
        "features": list(FEATURES),
        "calibration": {"coef": coef, "intercept": intercept, "threshold": threshold,
                        "fixtures": len(fixtures), "pairs": len(rows)},
        "idf": idf,
        "vectors": vectors,
        # each pattern's required literals (analyzer/regexinfo.required_literals), so start-up does
        # not parse every regex again; a pattern missing here (an extra KB) is parsed at load
        "literals": {r.source: sorted(lits) if (lits := required_literals(r.regex)) else None
                     for e in entries for r in e.patterns},
        # the shipped entries' parsed YAML with each file's hash: start-up skips the YAML parser
        "docs": parsed_docs(shipped_dir()),
    }
    out = out or index_path()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(index, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    notes = [f"wrote {out}: {len(entries)} entries, {len(idf)} terms, {len(fixtures)} fixtures"]
    catalogue = out.parent.parent / "INDEX.md"
    catalogue.write_text(docs.render_index(entries), encoding="utf-8")
    notes.append(f"wrote {catalogue}")
    cal = Calibration(coef, intercept, threshold)
    outcomes = accuracy.evaluate(Engine(entries, idf, vectors, cal), entries)
    readme = readme or out.parent.parent.parent / "README.md"
    if readme.is_file() and accuracy.README_START in readme.read_text(encoding="utf-8"):
        families = sorted({e.family for e in entries})
        changed = accuracy.update_readme(readme, accuracy.markdown_table(outcomes, families))
        notes.append(f"{'updated' if changed else 'checked'} the accuracy table in {readme}")
    return [*notes,
            f"calibration: coef {dict(zip(FEATURES, coef))} intercept {intercept}",
            f"threshold {threshold}", *sweep]
