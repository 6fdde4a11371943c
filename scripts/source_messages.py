#!/usr/bin/env python3
"""Build the entries' source messages (kb/sourcemsgs.py) from inventories of a framework's raises.

  python scripts/source_messages.py INVENTORY.jsonl [...] [--commit-for REPO=REF ...]

An inventory row: repo, path, line, commit, exception, template (the message as the source writes it,
placeholders as `{...}`), class (a KB id, "internal" for a check only a framework bug reaches, or a
class the KB lacks) and why (the condition that raises it). Rows of a KB id are written to that
entry's `<id>.source-messages.jsonl`, every such file rebuilt from the inventories given; a row is
left out, and counted by reason, when its template gives no pattern (too generic), when a written
pattern of the same entry already matches it (covered), when a written pattern of another entry
matches it (that entry decides), or when its pattern matches a line of the healthy corpus, of one of
its own entry's near-miss fixtures, or of another family's positive fixture. A template is tried as
its first line with each placeholder printed as `x` (sourcemsgs.printed).
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

from vlkb.kb import fixtures as fx
from vlkb.kb import sourcemsgs
from vlkb.kb.loader import read_yaml, shipped_dir

ROOT = Path(__file__).resolve().parent.parent

HEALTHY = ROOT / "data" / "corpus" / "healthy"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inventories", nargs="+", type=Path)
    ap.add_argument("--commit-for", action="append", default=[], metavar="REPO=REF",
                    help="the ref to record for rows whose commit is 'unknown' (e.g. a release read from an installed wheel)")
    a = ap.parse_args(argv)
    refs = dict(x.split("=", 1) for x in a.commit_for)
    docs = {p.stem: read_yaml(p) for p in sorted(shipped_dir().glob("*/*.yaml"))}
    family = {i: d.get("family", i) for i, d in docs.items()}
    written = {i: [re.compile(r["regex"]) for r in d["patterns"]] for i, d in docs.items()}
    # texts joined by newlines: a pattern's `.` never crosses one, so searching them is searching each line
    healthy = "\n".join(p.read_text("utf-8", "replace") for p in sorted(HEALTHY.glob("*.log")))
    own_neg: dict[str, list[str]] = collections.defaultdict(list)
    pos: dict[str, list[str]] = collections.defaultdict(list)  # family -> its positive fixtures' texts
    for i in docs:
        for p in sorted((shipped_dir() / i).glob(f"{i}.*.log")):
            f = fx.parse(p)
            (own_neg[i] if f.kind == "neg" else pos[family[i]]).append(f.text)
    pos_text = {fam: "\n".join(t) for fam, t in pos.items()}
    kept: dict[str, dict[tuple, dict]] = collections.defaultdict(dict)
    why = collections.Counter()
    for inv in a.inventories:
        for raw in inv.read_text("utf-8").splitlines():
            row = json.loads(raw)
            eid = row["class"]
            if eid not in docs:
                why["not a KB entry (internal, or a class the KB lacks)"] += 1
                continue
            rx = sourcemsgs.pattern(row["template"])
            if rx is None:
                why["too generic: no pattern"] += 1
                continue
            text = sourcemsgs.printed(row["template"])
            if any(r.search(text) for r in written[eid]):
                why["covered by the entry's written patterns"] += 1
                continue
            other = next((o for o, rs in written.items() if family[o] != family[eid] and any(r.search(text) for r in rs)), None)
            if other:
                why[f"matched by another entry's written pattern ({other})"] += 1
                continue
            compiled = re.compile(rx)
            if compiled.search(healthy):
                why["matches a healthy log"] += 1
                continue
            if any(compiled.search(t) for t in own_neg[eid]):
                why["matches one of its entry's near-miss fixtures"] += 1
                continue
            if any(fam != family[eid] and compiled.search(t) for fam, t in pos_text.items()):
                why["matches another family's positive fixture"] += 1
                continue
            commit = row["commit"] if row["commit"] != "unknown" else refs.get(row["repo"], "unknown")
            rec = {k: row[k] for k in sourcemsgs.KEYS} | {"commit": commit}
            kept[eid].setdefault((row["repo"], row["template"]), rec)
    for eid in docs:
        path = sourcemsgs.path_for(shipped_dir() / eid / f"{eid}.yaml")
        rows = sorted(kept.get(eid, {}).values(), key=lambda r: (r["repo"], r["path"], r["line"]))
        if rows:
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        elif path.exists():
            path.unlink()
    print(f"{sum(len(v) for v in kept.values())} source messages kept for {len(kept)} entries")
    for eid, rows in sorted(kept.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(rows):4d}  {eid}")
    print("left out:")
    for reason, n in why.most_common():
        print(f"  {n:4d}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
