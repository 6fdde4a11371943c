#!/usr/bin/env python3
"""Copy a real log into a KB fixture: prepend its #=SOURCE=# line and mark the expected line.

  scripts/make_fixture.py SRC DEST URL [--match SUBSTRING] [--note TEXT]

The log text is kept verbatim; only the marker prefix and the header lines are added.
"""
import argparse
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("src"); ap.add_argument("dest"); ap.add_argument("url")
ap.add_argument("--match"); ap.add_argument("--note", action="append", default=[])
a = ap.parse_args()
lines = Path(a.src).read_text(encoding="utf-8").splitlines(keepends=True)
out = [f"#=SOURCE=# {a.url}\n"] + [f"#=NOTE=# {n}\n" for n in a.note]
done = a.match is None
for line in lines:
    if not done and a.match in line:
        line, done = "#=MATCH=#" + line, True
    out.append(line)
if not done:
    raise SystemExit(f"--match {a.match!r} not found in {a.src}")
Path(a.dest).write_text("".join(out), encoding="utf-8")
