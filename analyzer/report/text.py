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
from . import PLAIN, Context
from ..facts import describe
from .shorten import shorten
from .story import Named, Story, tell

MAX_EVIDENCE = 8
MAX_OTHER = 8
MAX_FACTS = 24


def _block(console: Console, title: str, body: str, style: str = "bold") -> None:
    console.print(Text(title, style=style))
    for para in body.strip().splitlines():
        console.print(Text("  " + para))


def _named(console: Console, n: Named, width: int, label: str = "Root cause: ") -> None:
    console.print(Text.assemble((label, "bold"), (n.title, "bold green"), (f"  [{n.id}, {n.how_sure}]", "dim")))
    console.print(Text(f"  signals: {n.signals}", style="dim"))
    if n.raised_by:  # the message as a framework's source raises it: where, and on what condition
        console.print(Text(f"  raised by {n.raised_by}", style="dim"))
    console.print()
    _block(console, "Why", n.why)
    console.print()
    _block(console, "Fix", n.fix.text)
    if n.fix.others:  # the log says which framework ran: the others' lines are one command away
        console.print(Text(f"  Other frameworks ({', '.join(n.fix.other_names)}): {n.show}", style="dim"))
    console.print()
    if n.fix.advice:
        console.print(Text("For this run", style="bold"))
        for advice in n.fix.advice:
            console.print(Text("  - " + advice))
        console.print()
    console.print(Text("Evidence", style="bold"))
    for line in n.evidence[:MAX_EVIDENCE]:
        rank = f" [rank {line.who}]" if line.who else ""
        text = shorten(line.text, max(96, width - 4 - len(f"{line.path}:{line.lineno}{rank}")))
        console.print(Text.assemble((f"  {line.path}:{line.lineno}{rank}  ", "cyan"), text))
    console.print(Text("Sources: " + "  ".join(n.sources) + (f"  (and {n.more_sources} more: {n.show})" if n.more_sources else ""),
                       style="dim"))


def _lead(console: Console, lead, scaffold: str, width: int) -> None:
    """An unknown failure: the line to quote, the last frames, who raised it and where to ask."""
    console.print()
    q = lead.quoted
    console.print(Text("Quote this line", style="bold"))
    console.print(Text.assemble((f"  {q.path}:{q.lineno}  ", "cyan"), shorten(q.text, max(96, width - 4 - len(f"{q.path}:{q.lineno}")))))
    if lead.frames:
        console.print(Text("Last frames", style="bold"))
        for f in lead.frames:
            console.print(Text("  " + shorten(f.where, max(96, width - 2))))
    if lead.library or lead.frames:
        console.print(Text.assemble(("Raised in: ", "bold"), lead.where))
    if lead.search_url:
        console.print(Text.assemble(("Search its issues: ", "bold"), lead.search_url))
    console.print(Text(f"Teach vlkb this failure: {scaffold} scaffolds an entry from it.", style="dim"))


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


def _run(console: Console, run: tuple) -> None:
    """What the log says about the run: versions, model, config, each with the line that says it."""
    if not run:
        return
    console.print()
    console.print(Text("Run (as the log states it)", style="bold"))
    for fact in run[:MAX_FACTS]:
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
    story = tell(d)
    _verdict(console, story, width)
    if story.similar:
        console.print()
        _similar(console, story.similar, width)
    if story.seen is not None:
        console.print()
        console.print(Text.assemble(("History: ", "bold"), story.seen.describe()))
    _run(console, story.run)
    _others(console, story)
    for note in story.notes:
        console.print(Text(f"note: {note}", style="dim"))
    return buf.getvalue()


def _verdict(console: Console, story: Story, width: int) -> None:
    """The headline, then the named entry's story, or what to do with a failure no entry names."""
    subject = story.subject
    if story.verdict == "clean":
        console.print(Text("No failure found in the log.", style="bold green"))
        for entry_id, why in story.harmless:
            console.print(Text(f"  seen, harmless here: {entry_id} ({why})", style="dim"))
        return
    if subject is not None:
        console.print(Text.assemble((story.suspicion or "Failure: ", "bold yellow" if story.suspicion else "bold red"),
                                    subject.summary))
        console.print(Text(f"  at {subject.where}", style="dim"))
        console.print()
    if story.named:
        _named(console, story.named, width, label="Suspected: " if story.suspicion else "Root cause: ")
        if story.named.runners_up:
            console.print(Text("Also considered: " + ", ".join(f"{c.id} ({c.confidence:.2f})" for c in story.named.runners_up),
                               style="dim"))
        return
    console.print(Text("Unknown failure: no KB entry explains it with enough confidence "
                       f"(threshold {story.threshold:.2f}).", style="bold yellow"))
    for c in story.nearest:
        console.print(Text(f"  nearest: {c.id} (confidence {c.confidence:.2f})", style="dim"))
    if story.lead is not None:
        _lead(console, story.lead, story.scaffold, width)


def _others(console: Console, story: Story) -> None:
    if not story.others:
        return
    console.print()
    console.print(Text(f"Other incidents ({len(story.others)})", style="bold"))
    for inc in story.others[:MAX_OTHER]:
        tag = "cascade" if inc.cascade else inc.kind
        console.print(Text(f"  [{tag}] {inc.where}  {textwrap.shorten(inc.summary, 90)}"))
