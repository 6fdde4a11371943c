"""What the matcher and the similar-reports search read of an incident: the strings KB patterns are
tried on, the defining tokens of the failure, and the document TF-IDF compares."""
from __future__ import annotations

from . import defining, rx
from .model import Incident, Line

# rich traceback code lines: "│ ❱ 233 │   │   assert x is not None      │" -> "assert x is not None"
# The closing border is only tried where a run of spaces begins (after a non-space), so a long run of
# spaces costs one scan, not one per space (quadratic on a hostile line).
_RICH_CODE = rx.compile(r"^\s*[│|]\s*(?:❱\s*)?(?:\d+\s*)?(?:[│|]\s*)*|(?<!\s)\s*[│|]\s*$")

CANDIDATE_CHARS = 16384


def candidates(inc: Incident) -> list[tuple[str, Line]]:
    """The strings patterns are tried on: the exception line(s) as `Type: message` with wrapped
    continuation joined, and each message line on its own, all left-stripped; each its first
    CANDIDATE_CHARS (patterns match near the start; a megabyte line is not read whole)."""
    out: list[tuple[str, Line]] = []
    for exc in inc.chain:
        if exc.line is None:
            continue
        joined = " ".join(exc.message[:CANDIDATE_CHARS].split())
        out.append((f"{exc.type}: {joined}" if exc.type else joined, exc.line))
    by_text = {}
    for line in inc.lines:
        text = _RICH_CODE.sub("", line.text[:CANDIDATE_CHARS]).strip()
        if text and text not in by_text:
            by_text[text] = line
    out.extend(by_text.items())
    return out


def incident_tokens(inc: Incident) -> dict:
    """The defining tokens of the failure: its exception line, or its first lines for a one-line
    incident (a launcher's exit code, a kernel's notice)."""
    text = "\n".join([f"{inc.exception}: {inc.message[:600]}" if inc.exception else inc.message[:600],
                      *(line.text[:2000] for line in inc.lines[:4] if inc.kind != "traceback")])
    return defining.tokens(text, inc.exception)


def incident_document(inc: Incident) -> str:
    """What TF-IDF reads of an incident: the exception, frames and first 200 lines, each line's first
    2 KB (a multi-megabyte line must not cost a canonicalisation pass per megabyte)."""
    parts = [inc.exception or "", inc.message[:2000]]
    parts += [f"{f.basename} {f.func}" for f in inc.frames]
    parts += [line.text[:2000] for line in inc.lines[:200]]
    return "\n".join(parts)
