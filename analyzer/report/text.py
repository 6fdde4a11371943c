"""The terminal report. Log text goes into rich `Text` objects, never markup strings, so a log line
holding `[bold]` or `[/]` prints literally; escape sequences were already stripped by the parser.
Rich honours NO_COLOR and drops styles when stdout is not a terminal."""
from __future__ import annotations

import io
import os
import textwrap

from rich.console import Console
from rich.text import Text

from ..diagnose import Diagnosis
from . import PLAIN, Context, cited, how_sure
from ..facts import describe, ordered
from ..scores import Scored
from .shorten import shorten

MAX_EVIDENCE = 8
MAX_OTHER = 8
MAX_FACTS = 24


def _block(console: Console, title: str, body: str, style: str = "bold") -> None:
    console.print(Text(title, style=style))
    for para in body.strip().splitlines():
        console.print(Text("  " + para))


def _match(console: Console, d: Diagnosis, s: Scored, width: int, label: str = "Root cause: ") -> None:
    e = s.entry
    console.print(Text.assemble((label, "bold"), (e.title, "bold green"),
                                (f"  [{e.id}, {how_sure(s.confidence)}]", "dim")))
    console.print(Text(f"  signals: {s.signal_summary}", style="dim"))
    console.print()
    _block(console, "Why", e.root_cause)
    console.print()
    fix = d.fix(e)
    _block(console, "Fix", fix.text)
    if fix.others:  # the log says which framework ran: the others' lines are one command away
        console.print(Text(f"  Other frameworks ({', '.join(fix.other_names)}): vlkb kb show {e.id}", style="dim"))
    console.print()
    if s.advice:
        console.print(Text("For this run", style="bold"))
        for advice in s.advice:
            console.print(Text("  - " + advice))
        console.print()
    console.print(Text("Evidence", style="bold"))
    for line in s.evidence[:MAX_EVIDENCE]:
        rank = f" [rank {line.who}]" if line.who else ""
        text = shorten(line.text, max(96, width - 4 - len(f"{line.path}:{line.lineno}{rank}")))
        console.print(Text.assemble((f"  {line.path}:{line.lineno}{rank}  ", "cyan"), text))
    urls, more = cited(e)
    console.print(Text("Sources: " + "  ".join(urls) + (f"  (and {more} more: vlkb kb show {e.id})" if more else ""),
                       style="dim"))


def _lead(console: Console, lead, width: int) -> None:
    """An unknown failure: the line to quote, the last frames, who raised it and where to ask."""
    console.print()
    q = lead.quoted
    console.print(Text("Quote this line", style="bold"))
    console.print(Text.assemble((f"  {q.path}:{q.lineno}  ", "cyan"), shorten(q.text, max(96, width - 4 - len(f"{q.path}:{q.lineno}")))))
    if lead.frames:
        console.print(Text("Last frames", style="bold"))
        for f in lead.frames:
            console.print(Text(f"  {f.file}:{f.lineno} in {f.func}"))
    if lead.library or lead.frames:
        console.print(Text.assemble(("Raised in: ", "bold"), lead.where))
    if lead.search_url:
        console.print(Text.assemble(("Search its issues: ", "bold"), lead.search_url))
    console.print(Text("Teach vlkb this failure: vlkb kb new ID --from LOG scaffolds an entry from it.", style="dim"))


def _similar(console: Console, found: list, width: int) -> None:
    """Public reports of the same failure: their error, what resolved it, why they are alike."""
    console.print(Text("Similar public reports", style="bold"))
    for n, f in enumerate(found, 1):
        console.print(Text.assemble(f"  {n}. ", (f.report.title or f.report.repo or f.url, "bold"), (f"  (similarity {f.likeness.score:.2f})", "dim")))
        console.print(Text(f"     {f.url}", style="cyan"))
        console.print(Text("     their error: " + shorten(f.quoted, max(80, width - 20))))
        console.print(Text("     resolved: " + (f.resolution or "the report does not say")))
        if f.report.versions:
            console.print(Text("     versions: " + f.stated_versions, style="dim"))
        if f.why:
            console.print(Text("     alike in " + f.why, style="dim"))


def _run(console: Console, d: Diagnosis) -> None:
    """What the log says about the run: versions, model, config, each with the line that says it."""
    if not d.run:
        return
    console.print()
    console.print(Text("Run (as the log states it)", style="bold"))
    for fact in ordered(d.run)[:MAX_FACTS]:
        rank = f" [rank {fact.line.who}]" if fact.line.who else ""
        console.print(Text.assemble(f"  {describe(fact):<40}", (f"{fact.line.path}:{fact.line.lineno}{rank}", "dim")))


def _console(buf: io.StringIO, color: bool) -> tuple[Console, int]:
    width = int(os.environ.get("COLUMNS", "100"))
    return Console(file=buf, width=width, force_terminal=bool(color), no_color=not color,
                   highlight=False, soft_wrap=True), width


def similar(found: list, ctx: Context = PLAIN) -> str:
    """The "Similar public reports" section alone (`vlkb reports search`)."""
    buf = io.StringIO()
    console, width = _console(buf, ctx.color)
    _similar(console, found, width)
    return buf.getvalue()


def render(d: Diagnosis, ctx: Context = PLAIN) -> str:
    buf = io.StringIO()
    console, width = _console(buf, ctx.color)
    root = d.root
    if d.verdict == "clean":
        console.print(Text("No failure found in the log.", style="bold green"))
        for s in d.matches:
            if s.explained:
                console.print(Text(f"  seen, harmless here: {s.entry.id} ({s.explained})", style="dim"))
    elif d.verdict == "suspicious":
        console.print(Text.assemble((d.suspicion, "bold yellow"),
                                    d.subject.summary))
        console.print(Text(f"  at {d.subject.where}", style="dim"))
        console.print()
        _match(console, d, d.matches[0], width, label="Suspected: ")
    elif root is not None:
        console.print(Text.assemble(("Failure: ", "bold red"), root.summary))
        console.print(Text(f"  at {root.where}", style="dim"))
        console.print()
    if d.verdict == "known":
        _match(console, d, d.matches[0], width)
    if d.runners_up:
        console.print(Text("Also considered: " + ", ".join(f"{s.entry.id} ({s.confidence:.2f})" for s in d.runners_up),
                           style="dim"))
    elif d.verdict == "unknown":
        console.print(Text("Unknown failure: no KB entry explains it with enough confidence "
                           f"(threshold {d.threshold:.2f}).", style="bold yellow"))
        for s in d.matches:
            console.print(Text(f"  nearest: {s.entry.id} (confidence {s.confidence:.2f})", style="dim"))
        if d.lead is not None:
            _lead(console, d.lead, width)
    if d.similar:
        console.print()
        _similar(console, d.similar, width)
    if d.seen is not None:
        console.print()
        console.print(Text.assemble(("History: ", "bold"), d.seen.describe()))
    _run(console, d)
    others = [i for i in d.incidents if i is not d.subject][:MAX_OTHER]
    if others:
        console.print()
        console.print(Text(f"Other incidents ({len(d.incidents) - 1})", style="bold"))
        for inc in others:
            tag = "cascade" if inc.cascade else inc.kind
            console.print(Text(f"  [{tag}] {inc.where}  {textwrap.shorten(inc.summary, 90)}"))
    for note in d.stats.notes:
        console.print(Text(f"note: {note}", style="dim"))
    return buf.getvalue()
