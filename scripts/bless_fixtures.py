#!/usr/bin/env python3
"""Re-bless positive fixtures: move each #=MATCH=# marker to the first evidence line vlkb cites now.

Run after an intended change to the parser or an entry, then review `git diff kb/`.
"""
from pathlib import Path

from vlkb.kb import load_engine
from vlkb.kb import fixtures as fx
from vlkb.kb import load
from vlkb.kb.accuracy import diagnose_fixtures


def main() -> None:
    positives = [f for f in fx.discover(load()) if f.kind == "pos"]
    for f, d in diagnose_fixtures(load_engine(), positives):
        if not d.named or d.named.entry.id != f.entry or not d.named.evidence:
            print(f"skip {f.name}: not diagnosed as {f.entry}")
            continue
        want = d.named.evidence[0].lineno
        if want != f.match_line:
            _move_marker(f.path, want)
            print(f"moved {f.name}: line {f.match_line} -> {want}")


def _move_marker(path: Path, want: int) -> None:
    out, n = [], 0
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith((fx.SOURCE, fx.NOTE, fx.FAMILY)):
            out.append(line)
            continue
        if line.startswith(fx.MATCH):
            line = line[len(fx.MATCH):]
        n += 1
        out.append(fx.MATCH + line if n == want else line)
    path.write_text("".join(out), encoding="utf-8")


if __name__ == "__main__":
    main()
