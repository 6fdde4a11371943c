"""The CI triage comment (GitHub-flavoured Markdown).

The first line is a hidden marker, so a bot finds its earlier comment and edits it in place (as
PyTorch's Dr. CI does). Log text is untrusted, since a pull request from a fork controls its log:
  - inline, it is escaped: no HTML, no Markdown, no @-mentions, no autolinks;
  - evidence goes into a fence longer than any backtick run it holds, so it cannot break out;
  - the marker and HTML comment openers in log text are defused, so no log forges the marker;
  - bidirectional-override characters (Trojan Source) are dropped.
KB text (titles, root causes, fixes, source URLs) is the project's own and is rendered as Markdown.
The whole comment stays under 64 KB (GitHub's limit is 65,536 characters): evidence shrinks, and the
comment says so.
"""
from __future__ import annotations

import re

from ..diagnose import Diagnosis
from . import PLAIN, Context
from .shorten import shorten
from .story import Fix, Named, Story, tell
from ..model import Line
from ..textnorm import BIDI

MARKER = "<!-- vlkb-triage -->"
MAX_BYTES = 60_000
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>])")
_BIDI = re.compile(f"[{BIDI}]")
_ZW = "\u200b"  # zero-width space: invisible, but breaks mentions, autolinks and the marker


def defuse(text: str) -> str:
    """Log text that is safe anywhere in the comment, fenced or not: no marker, no comment opener."""
    text = _BIDI.sub("", text)
    return text.replace("<!--", f"<!{_ZW}--").replace("vlkb-triage", f"vlkb{_ZW}-triage")


def inline(text: str) -> str:
    """Text safe in a Markdown paragraph or table cell: no HTML, no formatting, no pings, no links."""
    text = defuse(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = text.replace("@", f"@{_ZW}").replace("www.", f"www{_ZW}.")
    return re.sub(r"(?i)\b(https?|ftp|mailto|file)(?=:)", lambda m: m.group(1)[0] + _ZW + m.group(1)[1:], text)


def _longest_backticks(text: str) -> int:
    return max((len(m) for m in re.findall(r"`+", text)), default=0)


def code(text: str, cell: bool = False) -> str:
    """An inline code span around log text (paths): delimiters longer than its backtick runs; in a
    table cell `|` is escaped (GFM splits cells before it parses code spans)."""
    text = defuse(text).replace("\n", " ")
    if cell:
        text = text.replace("|", "\\|")
    tick = "`" * (_longest_backticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{tick}{pad}{text}{pad}{tick}"


def fenced(lines: list[str]) -> str:
    body = "\n".join(defuse(l) for l in lines)
    fence = "`" * max(3, _longest_backticks(body) + 1)
    return f"{fence}text\n{body}\n{fence}"


def _evidence(lines: list[Line], width: int) -> list[str]:
    return [f"{l.path}:{l.lineno}: " + shorten(l.text, max(40, width - len(f"{l.path}:{l.lineno}: "))) for l in lines]


def _value(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def render(d: Diagnosis, ctx: Context = PLAIN) -> str:
    """Under MAX_BYTES whatever the log: evidence shrinks (never cut mid-fence) until it fits."""
    for lines, width in ((30, 500), (10, 200), (3, 120), (1, 80)):
        text = _render(d, lines, width)
        if len(text.encode()) <= MAX_BYTES:
            return text if lines == 30 else text + "\n_(evidence trimmed to stay under 64 KB)_\n"
    return f"{MARKER}\n### vlkb: {d.verdict}\n\n_(report too large to show; run vlkb locally)_\n"


def _render(d: Diagnosis, n: int, width: int) -> str:
    story = tell(d)
    out = [MARKER, *_verdict(story, n, width)]
    out += _similar(story.similar, width)
    if story.seen is not None:
        out += ["", f"**Seen before:** {inline(story.seen.describe())}"]
    out += _others(story.others, n, width) + _facts(story.run, width)
    out += ["", f"<sub>vlkb · threshold {story.threshold:.2f} · {inline(', '.join(story.inputs))[:width]}</sub>"]
    return "\n".join(out) + "\n"


def _fix(fix: Fix) -> list[str]:
    """The fix for the run's framework; the other frameworks' lines folded, GitHub renders <details>."""
    out = [fix.text.strip(), ""]
    if fix.others:
        out += [f"<details><summary>Other frameworks: {inline(', '.join(fix.other_names))}</summary>", "",
                *(b.rstrip("\n") for b in fix.others), "", "</details>", ""]
    return out


def _verdict(story: Story, n: int, width: int) -> list[str]:
    if story.named:
        return _named(story, story.named, n, width)
    if story.verdict == "unknown":
        return _unknown(story, n, width)
    explained = [f"- `{entry_id}` seen, harmless here: {inline(why)}" for entry_id, why in story.harmless]
    return ["### vlkb: no failure found in the log", *([""] + explained if explained else [])]


def _named(story: Story, s: Named, n: int, width: int) -> list[str]:
    subject = story.subject
    where = code(f"{subject.quoted.path}:{subject.quoted.lineno}") if subject else ""
    lead = ([story.suspicion + (inline(subject.summary)[:width] + " at " if story.stalled else "") + where, ""]
            if story.suspicion else [f"Failure at {where}: {inline(subject.summary)[:width]}", ""])
    advice = ["**For this run**", "", *(f"- {a}" for a in s.fix.advice), ""] if s.fix.advice else []
    title = f"### vlkb: {'suspected: ' * bool(story.suspicion)}{inline(s.title)}"
    also = [f"Also considered: " + ", ".join(f"`{r.id}` ({r.confidence:.2f})" for r in s.runners_up), ""] \
        if s.runners_up else []
    return [title, "", f"`{s.id}` · {s.strength}: confidence **{s.confidence:.2f}**", "", *also, *lead,
            "**Root cause.** " + s.why, "", "**Fix.**", "", *_fix(s.fix), *advice,
            "**Evidence**", "", fenced(_evidence(s.evidence[:n], width)), "",
            _sources(s)]


def _unknown(story: Story, n: int, width: int) -> list[str]:
    root = story.subject
    out = ["### vlkb: unknown failure", "",
           f"No KB entry explains this failure above the threshold ({story.threshold:.2f}); "
           f"the root incident is below. `{story.scaffold}` scaffolds an entry from it."]
    if story.nearest:
        out += ["", "Nearest: " + ", ".join(f"`{c.id}` ({c.confidence:.2f})" for c in story.nearest)]
    if root is not None:
        out += ["", f"**Root incident** at {code(f'{root.first.path}:{root.first.lineno}')}", "",
                fenced(_evidence(root.lines[-n:] if root.headline else root.lines[:n], width))]
    lead = story.lead
    if lead is not None and (lead.library or lead.frames):
        out += ["", f"Raised in {code(lead.where)}" + (f": [search its issues for this message](<{lead.search_url}>)"
                                                      if lead.search_url else "")]
    return out


def _similar(similar: tuple, width: int) -> list[str]:
    """Public reports of the same failure, as a list: title linked, their error, what resolved it."""
    if not similar:
        return []
    out = ["", "**Similar public reports**", ""]
    for f in similar:
        title = inline(f.report.title or f.report.repo or "report")[:width]
        fix = inline(f.resolution)[:width] if f.resolution else "not said"
        versions = f" · {inline(f.stated_versions)[:width]}" if f.report.versions else ""
        out += [f"- [{title}](<{f.url}>) · similarity {f.likeness.score:.2f}{versions}",
                f"  their error: {code(f.quoted[:width])} · resolved: {fix}"]
    return out


def _others(others: tuple, n: int, width: int) -> list[str]:
    if not others:
        return []
    cascade = sum(i.cascade for i in others)
    rows = []
    for i in others[:n]:
        ranks = f" (ranks {inline(','.join(i.ranks[:8]))}{'...' * (len(i.ranks) > 8)})" if i.ranks else ""
        times = f" ×{i.count}" if i.count > 1 else ""
        tag = "cascade" if i.cascade else i.kind
        rows.append(f"- **{tag}**{times}{ranks} at {code(f'{i.first.path}:{i.first.lineno}')}: "
                    f"{inline(i.summary)[:width]}")
    more = [f"- … and {len(others) - n} more"] if len(others) > n else []
    return ["", f"<details><summary>Other incidents ({len(others)}, {cascade} of them cascade)</summary>", "",
            *rows, *more, "", "</details>"]


def _facts(run: tuple, width: int) -> list[str]:
    if not run:
        return []
    rows = [f"| {inline(f.key)} | {inline(_value(f.value))[:width]} | {code(f'{f.line.path}:{f.line.lineno}', cell=True)} |"
            for f in run]
    return ["", "<details><summary>Versions and config from the log</summary>", "", "| fact | value | line |",
            "|---|---|---|", *rows, "", "</details>"]


def _sources(named: Named) -> str:
    return "Sources: " + ", ".join(f"<{u}>" for u in named.sources) + \
        (f" (and {named.more_sources} more: {code(named.show)})" if named.more_sources else "")
