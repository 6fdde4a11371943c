"""What went wrong and what to change, for the diagnosis screen's first tab: the diagnosis's story
(vlkb.analyzer.report.story) laid out for the screen. Everything from the log goes in as `Text`
(never markup); the KB's prose is the entry's own."""
from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from vlkb.analyzer import Diagnosis
from vlkb.analyzer.report.shorten import shorten
from vlkb.analyzer.report.story import Named, Story, tell

STYLES = {"known": "bold red", "unknown": "bold yellow", "suspicious": "bold yellow", "clean": "bold green"}


def verdict_line(d: Diagnosis) -> Text:
    story = tell(d)
    line = Text.assemble((f" {story.headline.upper()} ", f"{STYLES[story.verdict]} reverse"), " ")
    if story.named:
        line.append_text(Text.assemble((story.named.id, "bold"), f"  {story.named.how_sure}"))
    elif story.verdict == "unknown":
        line.append(f"no entry above the threshold {story.threshold:.2f}")
    return line


def _section(title: str, body: str) -> list:
    return [Text(title, style="bold underline"), Text(body.strip()), Text()]


def _named(n: Named) -> list:
    """What to do comes first, so that a pane of 12 rows (an 80x24 terminal) shows it: the advice drawn
    from this log, then the fix (the run's framework first); why, and how the match was scored, after."""
    out = [Text.assemble(("Root cause: ", "bold"), (n.title, "bold green")), Text()]
    if n.fix.advice:
        out += [Text("For this run", style="bold underline"), *(Text("- " + a.strip()) for a in n.fix.advice), Text()]
    out += _section("Fix", n.fix.text)
    if n.fix.others:  # the log says which framework ran: the other frameworks' lines come after, dimmed
        out += [Text("Other frameworks", style="dim underline"), Text("".join(n.fix.others).strip(), style="dim"), Text()]
    return out + _section("Why", n.why) + [Text(f"{n.id}  {n.how_sure}  signals: {n.signals}", style="dim"), Text()]


def _unknown(story: Story, keys: dict[str, str]) -> list:
    out = [Text("No KB entry explains this failure with enough confidence.", style="bold yellow"), Text()]
    if story.nearest:
        out.append(Text("Nearest entries", style="bold underline"))
        out += [Text(f"- {c.id}  {c.confidence:.2f}  {c.title}") for c in story.nearest]
        out.append(Text())
    lead = story.lead
    if lead is not None:  # as the text report tells it: the line to quote, the last frames, who raised it
        q = lead.quoted
        out += [Text("Quote this line", style="bold underline"),
                Text.assemble((f"{q.lineno:>6}  ", "dim"), q.text), Text()]
        if lead.frames:
            out += [Text("Last frames", style="bold underline"),
                    *(Text("  " + shorten(f.where, 76)) for f in lead.frames),
                    Text()]
        if lead.library or lead.frames:
            out.append(Text.assemble(("Raised in: ", "bold"), lead.where))
        if lead.search_url:
            out.append(Text.assemble(("Search its issues: ", "bold"), lead.search_url))
        out.append(Text())
    else:
        out += [Text("Root incident", style="bold underline"),
                *(Text(f"{line.lineno:>6}  {line.text}", no_wrap=True, overflow="ellipsis")
                  for line in story.subject.lines[:12] if line.text.strip()), Text()]
    return out + [Text(f"Press {keys['new']} to scaffold a KB entry from it (vlkb kb new).", style="italic")]


def cause(d: Diagnosis, keys: dict[str, str]) -> Group:
    """The verdict's story, top to bottom; `keys` names the bindings it points to."""
    story = tell(d)
    subject = story.subject
    out: list = []
    if subject is not None:
        label = ("Stopped mid-run; last progress: " if story.stalled else "Warning: ") if story.suspicion else "Failure: "
        out += [Text.assemble((label, "bold"), subject.summary), Text(f"  at {subject.where}", style="dim"), Text()]
    if story.named:
        out += _named(story.named)
        if story.named.has_repro:
            out.append(Text(f"Press {keys['verify']} to replay its repro with and without the fix.", style="italic"))
    elif story.verdict == "unknown":
        out += _unknown(story, keys)
    else:
        out.append(Text("No step failed and no warning points at a known silent failure.", style="green"))
        out += [Text(f"seen, harmless here: {entry_id} ({why})", style="dim") for entry_id, why in story.harmless]
    out += [Text(f"note: {note}", style="dim") for note in story.notes]
    return Group(*out)


class CauseView(Static):
    """The verdict, the root cause, the fix and the advice for this run."""

    def show(self, d: Diagnosis, keys: dict[str, str]) -> None:
        self.update(cause(d, keys))
