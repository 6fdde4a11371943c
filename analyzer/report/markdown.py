"""Markdown for a CI triage comment. Log text is untrusted: it goes into fences longer than any
backtick run it holds, and inline text is escaped (HTML, Markdown, @-mentions)."""
from __future__ import annotations

import re

from ..diagnose import Diagnosis
from ..facts import ordered
from ..model import Line

MARKER = "<!-- vlkb-triage -->"
MAX_BYTES = 60_000
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>])")


def inline(text: str) -> str:
    """Text safe in a Markdown paragraph: no HTML, no formatting, no pings."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("@", "@\u200b")


def fenced(lines: list[str]) -> str:
    body = "\n".join(lines)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}"


def _evidence(lines: list[Line], width: int) -> list[str]:
    return [f"{l.path}:{l.lineno}: {l.text}"[:width] for l in lines]


def _value(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def render(d: Diagnosis) -> str:
    """Under MAX_BYTES whatever the log: evidence shrinks (never cut mid-fence) until it fits."""
    for lines, width in ((30, 500), (10, 200), (3, 120)):
        text = _render(d, lines, width)
        if len(text.encode()) <= MAX_BYTES:
            return text if lines == 30 else text + "\n_(evidence trimmed to stay under 64 KB)_\n"
    return f"{MARKER}\n### vlkb: {d.verdict}\n\n_(report too large to show; run vlkb locally)_\n"


def _render(d: Diagnosis, n: int, width: int) -> str:
    out = [MARKER]
    if d.verdict in ("known", "suspicious"):
        s = d.matches[0]
        e = s.entry
        advice = ["**For this run**", "", *(f"- {a}" for a in s.advice), ""] if s.advice else []
        lead = ["No step failed, but a warning says the run may not be training.", ""] * (d.verdict == "suspicious")
        out += [f"### vlkb: {'suspected: ' * (d.verdict == 'suspicious')}{inline(e.title)} "
                f"(`{e.id}`, confidence {s.confidence:.2f})", "", *lead,
                "**Root cause.** " + e.root_cause, "", "**Fix.**", "", e.fix, "", *advice,
                "**Evidence**", "", fenced(_evidence(s.evidence[:n], width)), "",
                "Sources: " + ", ".join(f"<{src['url']}>" for src in e.sources)]
    elif d.verdict == "unknown":
        root = d.root
        out += ["### vlkb: unknown failure", "",
                f"No KB entry explains this failure above the threshold ({d.threshold:.2f})."]
        if d.matches:
            out.append("Nearest: " + ", ".join(f"`{s.entry.id}` ({s.confidence:.2f})" for s in d.matches))
        if root is not None:
            out += ["", "**Root incident**", "", fenced(_evidence(root.lines[:n], width))]
    else:
        out += ["### vlkb: no failure found in the log"]
    if d.run:
        rows = [f"| {inline(f.key)} | {inline(_value(f.value))} | {inline(f.line.path)}:{f.line.lineno} |"
                for f in ordered(d.run)]
        out += ["", "<details><summary>Run facts from the log</summary>", "", "| fact | value | line |",
                "|---|---|---|", *rows, "", "</details>"]
    others = [i for i in d.incidents if not i.root][:n]
    if others:
        rows = [f"- {i.kind}{' (cascade)' if i.cascade else ''} at {inline(i.first.path)}:{i.first.lineno}: "
                f"{inline(((i.exception + ': ' if i.exception else '') + i.message.splitlines()[0])[:width] if i.message else '')}"
                for i in others]
        out += ["", f"<details><summary>Other incidents ({len(d.incidents) - 1})</summary>", "", *rows, "",
                "</details>"]
    return "\n".join(out) + "\n"
