#!/usr/bin/env python3
"""Measure "similar public reports" on the field corpus (data/corpus/field/).

  python scripts/score_similar.py                    # both tables below
  python scripts/score_similar.py --review out.md    # also write each held-back unknown's top 3, to judge

1. dev, calibration: the classifiable dev cases of a class the KB has. Each case's root is searched
   against the index with its own report left out, and the best report that a KB fixture files
   under an entry is compared with the case's label, per score band: how often a report at that
   score is the same failure. This chose similar.FLOOR.
2. holdout, the figure that means anything: the held-back cases the KB does not name (verdict
   unknown). For each, the top 3 reports at the floor (its own report left out) were judged by a
   person, case by case: does one describe the same failure? The judgments are in
   data/corpus/field/similar-judged.jsonl ({"case", "judged": [true|false per report shown], "note"});
   a case whose shown reports no longer agree with what was judged is counted as not judged.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from score_field import FIELD, NOT_A_CLASS, load_cases  # noqa: E402

from vlkb import report_index, reports  # noqa: E402
from vlkb.analyzer.similar import FLOOR  # noqa: E402
from vlkb.report_records import report_key  # noqa: E402

JUDGED = FIELD / "similar-judged.jsonl"
BANDS = [(0.8, 1.01), (0.7, 0.8), (0.6, 0.7), (0.5, 0.6), (0.4, 0.5), (0.0, 0.4)]


def searched(engine, index, case: dict, k: int, floor: float):
    d = engine.diagnose([str(FIELD / case["file"])], top=3)
    sig = reports.query(d)
    if sig is None:
        return d, reports.subject(d), []
    return d, reports.subject(d), index.search(sig, k, frozenset({report_key(case["source"])}), floor)


def calibration(engine, index, known: set[str]) -> list[str]:
    per_band = {b: [0, 0] for b in BANDS}
    cases = [c for c in load_cases("dev") if c["failed"] and c["has_error_line"] and c["label"] in known]
    for case in cases:
        _, _, found = searched(engine, index, case, 20, 0.0)
        best = next((f for f in found if f.entry), None)
        if best is None:
            continue
        band = next(b for b in BANDS if b[0] <= best.likeness.score < b[1])
        per_band[band][0] += best.entry == case["label"]
        per_band[band][1] += 1
    out = [f"## dev, calibration: {len(cases)} classifiable cases of a KB class; the best report a fixture "
           "files under an entry, against the case's label", "score band   same failure"]
    for (lo, hi), (same, n) in per_band.items():
        out.append(f"{lo:.1f}-{min(hi, 1.0):.1f}      {same / n:.2f} ({same}/{n})" if n else f"{lo:.1f}-{min(hi, 1.0):.1f}      n/a")
    return out


def holdout(engine, index, review: Path | None) -> list[str]:
    judged = {}
    if JUDGED.exists():
        for line in JUDGED.read_text(encoding="utf-8").splitlines():
            if line.strip():
                j = json.loads(line)
                judged[j["case"]] = j
    rows, lines = [], []
    for case in load_cases("holdout"):
        if not case["failed"]:
            continue
        d, inc, found = searched(engine, index, case, 3, FLOOR)
        if d.verdict != "unknown" or inc is None:
            continue
        j = judged.get(case["file"])
        urls = [f.url for f in found]
        ok = j is not None and j.get("urls") == urls
        rows.append({"case": case, "found": found, "judged": j["judged"] if ok else None,
                     "searched": reports.query(d) is not None})
        if review is not None:
            lines += [f"### {case['file']}  ({case['label']})", f"case: {inc.summary[:300]}"]
            lines += [f"  {i + 1}. {f.likeness.score:.2f} {f.url} [{f.entry or f.report.fix_kind}] {f.quoted[:300]}"
                      for i, f in enumerate(found)] or ["  (none at the floor)"]
            lines.append("")
    if review is not None:
        review.write_text("\n".join(lines), encoding="utf-8")
    shown = [r for r in rows if r["found"]]
    done = [r for r in shown if r["judged"] is not None]
    same3 = sum(any(r["judged"]) for r in done)
    same1 = sum(bool(r["judged"]) and r["judged"][0] for r in done)
    classifiable = [r for r in rows if r["case"]["has_error_line"] and r["case"]["label"] not in NOT_A_CLASS]
    return [f"## holdout: {len(rows)} failed cases the KB leaves unknown ({len(classifiable)} classifiable)",
            f"a failure to search for           {sum(r['searched'] for r in rows)}/{len(rows)}"
            "  (the rest: a traceback cut before its exception, a launcher's exit alone, a bare type)",
            f"a report shown (score >= {FLOOR})   {len(shown)}/{sum(r['searched'] for r in rows)}",
            f"judged                            {len(done)}/{len(shown)}",
            f"top 3 holds the same failure      {same3}/{len(done)}" + (f" = {same3 / len(done):.2f}" if done else ""),
            f"top 1 is the same failure         {same1}/{len(done)}" + (f" = {same1 / len(done):.2f}" if done else ""),
            f"  of all unknowns                 {same3}/{len(rows)}" + (f" = {same3 / len(rows):.2f}" if rows else "")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--review", type=Path, help="write each held-back unknown's top 3 here, to judge")
    a = ap.parse_args(argv)
    from vlkb.kb import load_engine

    engine = load_engine()
    known = {e.id for e in engine.entries} | {e.family for e in engine.entries}
    with tempfile.TemporaryDirectory() as tmp:
        index = report_index.Index(report_index.ensure(engine, Path(tmp) / report_index.DB_NAME, force=True))
        print("\n".join(calibration(engine, index, known)), end="\n\n")
        print("\n".join(holdout(engine, index, a.review)))
        index.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
