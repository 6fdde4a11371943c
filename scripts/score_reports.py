#!/usr/bin/env python3
"""How often vlkb names a failure in the public reports' error texts, by the side of the field split.

  python scripts/score_reports.py

Each record of data/reports/*.jsonl holds the error a user pasted (1-4 lines, verbatim) and its telling
frames; this diagnoses them one by one, as a log of those lines (Report.excerpt: the frames under a
traceback header, as the similar-reports index reads them), and counts the verdicts: named (an entry at or above the threshold), unknown, clean. Records copied
from an issue title are left out (a title is often a paraphrase). The records are split by their
thread URL as the field corpus is (scripts/score_field.py split_of): patterns and fixtures come from the
dev side only, so the holdout side's figure is the one that says how wordings nobody read are met.
It is no accuracy figure (a record has no label; naming an entry is not naming the right one): it
says how often vlkb has an answer at all on a large, independent sample of real error texts.
"""
from __future__ import annotations

import collections
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from score_field import split_of  # noqa: E402


def main() -> int:
    from vlkb.kb import load_engine
    from vlkb.report_records import record as read_record

    engine = load_engine()
    records = [json.loads(line) for path in sorted((ROOT / "data" / "reports").glob("*.jsonl"))
               for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    counts: collections.Counter = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "report.log"
        for record in records:
            if record.get("from_title"):
                continue
            log.write_text(read_record(record).excerpt() + "\n", encoding="utf-8")
            d = engine.diagnose([str(log)])
            named = d.named is not None and d.named.confidence >= d.threshold
            counts[(split_of(record["url"]), "named" if named else d.verdict)] += 1
    print("| side | reports | named | unknown | clean |")
    print("|---|---|---|---|---|")
    for side in ("dev", "holdout"):
        n = sum(v for (s, _), v in counts.items() if s == side)
        row = [counts[(side, k)] for k in ("named", "unknown", "clean")]
        print(f"| {side} | {n} | {row[0] / n:.3f} ({row[0]}) | {row[1]} | {row[2]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
