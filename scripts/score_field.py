#!/usr/bin/env python3
"""Score vlkb on the field corpus: real logs sampled by project, not by error (data/corpus/field/).

  python scripts/score_field.py                 # both splits, one table each
  python scripts/score_field.py --split holdout # the figure that means anything
  python scripts/score_field.py --split dev --verbose   # each miss, for choosing what to build
  python scripts/score_field.py --cascade       # each case followed by a real NCCL-timeout cascade

Each case carries the failure class a reader gave it (`label`: an entry id, a class the KB lacks, or
"unclear"), whether the run failed, and whether the excerpt holds the line that defines the failure.
- classifiable: a failed run whose class can be told and whose defining line is in the excerpt;
- coverage: classifiable cases where vlkb names the right entry or family (verdict known, or
  suspicious for a silent class such as a loss stuck at zero or a run that stops mid-way);
- abstention: classifiable cases of classes the KB lacks that vlkb leaves unknown;
- confident wrong: failed runs where vlkb names an entry that is not their class (at or above its
  threshold: a log that stops mid-run is a suspicion at the stall's measured precision, under it);
- clean on failed: runs whose excerpt shows a failure (a traceback, an error or kill line, a nan
  loss) that vlkb calls clean (no failure found), whatever their class.
The holdout split is never turned into fixtures nor read while writing patterns (see README.md
there): only its figure measures the real world. `--cascade` scores each case again with a real
multi-rank NCCL watchdog timeout appended after it (a KB fixture's log: other ranks timing out once
one failed), as a failed rank's log reaches a user: the cascade must never win over the case's own
failure, so its figures should match the plain ones. There, a case whose excerpt shows no failure
of its own (a paste of the run's start, a run that stopped) and is answered nccl-timeout is not
counted wrong: the appended timeout is then the only failure its log shows. `cascade won` counts the
cases whose own root vlkb finds alone (a failure, not itself a cascade: a launcher's exit line, a
ChildFailedError, a SIGTERM, which the timeout explains better) and loses to the timeout once appended.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import re
import sys
from pathlib import Path

from vlkb.report_records import report_key

ROOT = Path(__file__).resolve().parent.parent
FIELD = ROOT / "data" / "corpus" / "field"
NOT_A_CLASS = ("unclear", "no-failure")
SALT = "vlkb-field-2026-11-22|"


def split_of(url: str) -> str:
    """The one random split, fixed before the corpus was gathered: about half is holdout."""
    return "holdout" if hashlib.sha256((SALT + report_key(url)).encode()).digest()[0] < 128 else "dev"


def load_cases(split: str) -> list[dict]:
    cases = [json.loads(line) for line in (FIELD / "index.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return [c for c in cases if split == "all" or c["split"] == split]


CASCADE = ROOT / "kb/entries/nccl-timeout/nccl-timeout.pos-llamafactory-reduce-scatter.log"
CASCADE_ENTRY = "nccl-timeout"


def outcome(engine, case: dict, known_ids: set[str], cascade: str | None = None, tmp: Path | None = None) -> dict:
    path = FIELD / case["file"]
    if cascade is not None:  # the case, then the watchdog timeouts of the ranks that waited for it
        text = path.read_bytes().decode("utf-8", "replace")
        path = tmp / Path(case["file"]).name
        path.write_text(text.rstrip("\n") + "\n" + cascade, encoding="utf-8")
    d = engine.diagnose([str(path)], top=3)
    # a failure it knows, or a silent one it suspects, said at or above the threshold: a stop
    # mid-run is shown as a suspicion under it (a hang looks like a paste cut short) and names nothing
    named = d.named.entry if d.named and d.named.confidence >= d.threshold else None
    label = case["label"]
    classifiable = case["failed"] and case["has_error_line"] and label not in NOT_A_CLASS
    in_kb = label in known_ids
    right = named is not None and label in (named.id, named.family)
    wrong = case["failed"] and named is not None and not right and label not in NOT_A_CLASS
    if cascade is not None and not case["visible_failure"] and named is not None and named.id == CASCADE_ENTRY:
        wrong = False  # the excerpt shows no failure of its own: the appended timeout is the log's only one
    return {"case": case, "verdict": d.verdict, "named": named.id if named else None,
            "classifiable": classifiable, "in_kb": in_kb, "right": right, "wrong": wrong,
            "own_root": d.root is not None and not d.root.cascade,
            "clean": case["visible_failure"] and d.verdict == "clean"}


def ratio(a: int, b: int) -> str:
    return f"{a / b:.3f} ({a}/{b})" if b else "n/a (0/0)"


def table(rows: list[dict], title: str) -> list[str]:
    cls = [r for r in rows if r["classifiable"]]
    lacking = [r for r in cls if not r["in_kb"]]
    failed = [r for r in rows if r["case"]["failed"]]
    visible = [r for r in rows if r["case"]["visible_failure"]]
    return [
        f"## {title}: {len(rows)} cases, {len(failed)} failed runs, {len(cls)} classifiable "
        f"({sum(r['in_kb'] for r in cls)} of a class the KB has)",
        f"coverage         {ratio(sum(r['right'] for r in cls), len(cls))}",
        f"coverage (KB's)  {ratio(sum(r['right'] for r in cls if r['in_kb']), len(cls) - len(lacking))}",
        f"abstention       {ratio(sum(r['named'] is None for r in lacking), len(lacking))}",
        f"confident wrong  {ratio(sum(r['wrong'] for r in failed), len(failed))}",
        f"clean on failed  {ratio(sum(r['clean'] for r in visible), len(visible))}",
    ]


def misses(rows: list[dict]) -> list[str]:
    out = []
    for r in rows:
        c = r["case"]
        if r["clean"] or r["wrong"] or (r["classifiable"] and not r["right"]):
            out.append(f"  {c['file']}: label {c['label']}, got {r['verdict']} {r['named'] or ''}  ({c['source']})")
    return out


def classes(rows: list[dict], known_ids: set[str]) -> list[str]:
    """Classifiable cases per class, most frequent first, and how many vlkb names right: what to build
    next (counts only, so it may be read on holdout too)."""
    count = collections.Counter(r["case"]["label"] for r in rows if r["classifiable"])
    right = collections.Counter(r["case"]["label"] for r in rows if r["classifiable"] and r["right"])
    return [f"  {n:3d}  {right[label]:3d} right  {label}{'' if label in known_ids else '  (no entry)'}"
            for label, n in count.most_common()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=("dev", "holdout", "all"), default=None,
                    help="one split (default: dev and holdout, each on its own)")
    ap.add_argument("--verbose", action="store_true", help="list each miss (never use it on holdout to write patterns)")
    ap.add_argument("--classes", action="store_true", help="classifiable cases per class, and how many are named right")
    ap.add_argument("--cascade", action="store_true", help="append a real NCCL-timeout cascade to every case")
    a = ap.parse_args(argv)
    import tempfile

    from vlkb.kb import load_engine
    from vlkb.kb.fixtures import parse

    engine = load_engine()
    known_ids = {e.id for e in engine.entries} | {e.family for e in engine.entries}
    for split in ([a.split] if a.split else ["dev", "holdout"]):
        with tempfile.TemporaryDirectory() as tmp:
            cascade = parse(CASCADE).text if a.cascade else None
            rows = [outcome(engine, c, known_ids, cascade, Path(tmp)) for c in load_cases(split)]
        print("\n".join(table(rows, split + (", each case followed by an NCCL cascade" if a.cascade else ""))))
        if a.cascade:
            plain = [outcome(engine, c, known_ids) for c in load_cases(split)]
            own = [(p, r) for p, r in zip(plain, rows) if p["own_root"] and p["named"] != CASCADE_ENTRY]
            won = [r for p, r in own if r["named"] == CASCADE_ENTRY]
            print(f"cascade won      {ratio(len(won), len(own))} of the cases whose own root (not a cascade) is found alone")
            if a.verbose:
                print("\n".join(f"  {r['case']['file']}: cascade won ({r['case']['source']})" for r in won))
        if a.classes:
            print("\n".join(classes(rows, known_ids)))
        if a.verbose:
            print("\n".join(misses(rows)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
