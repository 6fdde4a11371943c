"""The log pane's rank filter, run as its own process so a pass over a 1 GB log never competes with
the interface for the interpreter: `python -m vlkb.tui.rank_filter PATH RANK` writes the 0-based
numbers of the lines the analyzer attributes to RANK (vlkb.analyzer.textnorm.who) to stdout, as
native int64, a batch at a time. Lines are numbered as LineIndex numbers them (split on newlines)."""
from __future__ import annotations

import sys

from array import array

from vlkb.analyzer.textnorm import who

BATCH = 4096  # line numbers written at a time


def select(path: str, rank: str, out) -> None:
    must = [part.encode() for part in rank.split("/")]
    found = array("q")
    with open(path, "rb") as f:
        for n, raw in enumerate(f):
            if all(m in raw for m in must) and who(raw.decode("utf-8", "replace")) == rank:
                found.append(n)
                if len(found) >= BATCH:
                    out.write(found.tobytes())
                    out.flush()
                    found = array("q")
    out.write(found.tobytes())
    out.flush()


if __name__ == "__main__":
    try:
        select(sys.argv[1], sys.argv[2], sys.stdout.buffer)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
