#!/usr/bin/env python3
"""How the confidence threshold trades recall for abstention on a labelled set of real logs.

  python scripts/threshold_sweep.py ../shared/devset [--families ID,ID]

Reads `index.jsonl` ({"file", "family"}) in the given directory, diagnoses each case once, and for a
range of thresholds prints: top-1 on cases of the KB's families, abstention on cases without a
family, and the share of confident wrong answers. Cases of families the KB does not hold yet are
left out of top-1 (they can only be abstained on) but counted as wrong when a wrong entry fires.
"""
import argparse
import json
from pathlib import Path

from vlkb.kb import load_engine


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("devset", type=Path)
    a = ap.parse_args()
    engine = load_engine()
    families = {e.family for e in engine.entries} | {e.id for e in engine.entries}
    cases = [json.loads(l) for l in (a.devset / "index.jsonl").read_text().splitlines() if l.strip()]
    results = []
    for case in cases:
        d = engine.diagnose([str(a.devset / case["file"])])
        top = d.matches[0] if d.matches else None
        results.append((case["family"], top.entry.family if top else None, top.confidence if top else 0.0))
    print(f"current threshold {engine.calibration.threshold}; {len(cases)} cases")
    print(f"{'threshold':>9}  {'top1(kb families)':>18}  {'abstain(no family)':>18}  {'wrong':>6}")
    for t in [0.1, 0.15, 0.2, 0.25, engine.calibration.threshold, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]:
        known = [(f, g, c) for f, g, c in results if f in families]
        none = [(f, g, c) for f, g, c in results if f is None]
        top1 = sum(g == f and c >= t for f, g, c in known)
        abst = sum(c < t for f, g, c in none)
        wrong = sum(c >= t and g != f for f, g, c in results)
        print(f"{t:9.3f}  {top1:>10}/{len(known):<7}  {abst:>10}/{len(none):<7}  {wrong:>3}/{len(results)}")


if __name__ == "__main__":
    main()
