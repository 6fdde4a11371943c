#!/usr/bin/env python3
"""Which wrappings of a log hide its failure: each dev failure of the field corpus, wrapped as a collector
or a paste wraps every line, diagnosed again.

  python scripts/probe_wrappers.py              # every wrapping
  python scripts/probe_wrappers.py cri indent   # some of them; --list names them

A case counts when vlkb finds a failure in it as it was pasted (verdict known or unknown). A wrapping
"changed" it when the verdict or the named entry differs, and "hid" it when the wrapped log reads as clean
or merely suspicious. Only the dev split is read (the holdout's texts are never read while building), and
nothing is written but a temporary copy. Wrappings that the parser reads through should change nothing;
a wrapping that hides many is a prefix or a paste form the parser does not know yet, worth building only
when the corpus shows logs wrapped that way.
"""
from __future__ import annotations

import collections
import html
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from score_field import FIELD, load_cases  # noqa: E402


def _each(prefix):
    return lambda text: "\n".join(prefix(i) + line for i, line in enumerate(text.split("\n")))


WRAPPINGS = {
    # a Kubernetes node's container log (CRI), GitHub Actions' time stamp, srun --label
    "cri": _each(lambda i: f"2024-05-01T10:00:{i % 60:02d}.123456789Z stderr F "),
    "gha": _each(lambda i: f"2024-05-01T10:00:{i % 60:02d}.1234567Z "),
    "srun": _each(lambda i: "0: "),
    # a Markdown quote, a 4-space (code block) indent, a tab
    "quote": _each(lambda i: "> "),
    "indent": _each(lambda i: "    "),
    "tab": _each(lambda i: "\t"),
    # Windows line ends, a terminal's colours, a web page's escapes, a terminal's hard wrap at 120 columns
    "crlf": lambda text: text.replace("\n", "\r\n"),
    "ansi": _each(lambda i: "\x1b[31m"),
    "html": lambda text: html.escape(text),
    "wrap120": lambda text: "\n".join(line[i:i + 120] for line in text.split("\n")
                                      for i in range(0, max(len(line), 1), 120)),
}


def main(argv: list[str]) -> int:
    if "--list" in argv:
        print("\n".join(WRAPPINGS))
        return 0
    names = [a for a in argv if a in WRAPPINGS] or list(WRAPPINGS)
    unknown = [a for a in argv if a not in WRAPPINGS]
    if unknown:
        print(f"no such wrapping: {', '.join(unknown)} (--list names them)", file=sys.stderr)
        return 2
    from vlkb.kb import load_engine

    engine = load_engine()
    changed: dict[str, list] = collections.defaultdict(list)
    hid = collections.Counter()
    cases = 0
    with tempfile.TemporaryDirectory() as tmp:
        wrapped = Path(tmp) / "wrapped.log"
        for case in load_cases("dev"):
            path = FIELD / case["file"]
            before = engine.diagnose([str(path)], top=1)
            if before.verdict not in ("known", "unknown"):
                continue
            cases += 1
            text = path.read_text(encoding="utf-8", errors="replace")
            named = before.named.entry.id if before.named else None
            for name in names:
                wrapped.write_text(WRAPPINGS[name](text), encoding="utf-8", newline="")
                after = engine.diagnose([str(wrapped)], top=1)
                if (after.verdict, after.named.entry.id if after.named else None) != (before.verdict, named):
                    changed[name].append(case["file"])
                    hid[name] += after.verdict in ("clean", "suspicious")
    print(f"dev failures found as pasted: {cases}")
    print("| wrapping | changed | hid the failure |")
    print("|---|---|---|")
    for name in names:
        print(f"| {name} | {len(changed[name])} | {hid[name]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
