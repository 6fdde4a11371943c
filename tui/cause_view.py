"""What went wrong and what to change, for the diagnosis screen's first tab. Everything from the log
goes in as `Text` (never markup); the KB's prose is the entry's own."""
from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from vlkb.analyzer import Diagnosis
from vlkb.analyzer.scores import Scored
from vlkb.analyzer.report import how_sure

HEADLINES = {
    "known": ("KNOWN FAILURE", "bold red"),
    "unknown": ("UNKNOWN FAILURE", "bold yellow"),
    "suspicious": ("SUSPICIOUS RUN", "bold yellow"),
    "clean": ("NO FAILURE FOUND", "bold green"),
}


def verdict_line(d: Diagnosis) -> Text:
    label, style = HEADLINES[d.verdict]
    line = Text.assemble((f" {label} ", f"{style} reverse"), " ")
    if d.named:
        line.append_text(Text.assemble((d.named.entry.id, "bold"), f"  {how_sure(d.named.confidence)}"))
    elif d.verdict == "unknown":
        line.append(f"no entry above the threshold {d.threshold:.2f}")
    return line


def _section(title: str, body: str) -> list:
    return [Text(title, style="bold underline"), Text(body.strip()), Text()]


def _match(d: Diagnosis, s: Scored) -> list:
    e = s.entry
    fix = d.fix(e)
    out = [Text.assemble(("Root cause: ", "bold"), (e.title, "bold green")),
           Text(f"{e.id}  {how_sure(s.confidence)}  signals: {s.signal_summary}", style="dim"), Text()]
    out += _section("Why", e.root_cause) + _section("Fix", fix.text)
    if fix.others:  # the log says which framework ran: the other frameworks' lines come after, dimmed
        out += [Text("Other frameworks", style="dim underline"), Text("".join(fix.others).strip(), style="dim"), Text()]
    if s.advice:
        out += [Text("For this run", style="bold underline"), *(Text("- " + a.strip()) for a in s.advice), Text()]
    return out


def cause(d: Diagnosis, keys: dict[str, str]) -> Group:
    """The verdict's story, top to bottom; `keys` names the bindings it points to."""
    subject = d.subject
    out: list = []
    if subject is not None:
        label = ("Stopped mid-run; last progress: " if subject.kind == "stall" else "Warning: ") \
            if d.verdict == "suspicious" else "Failure: "
        out += [Text.assemble((label, "bold"), subject.summary), Text(f"  at {subject.where}", style="dim"), Text()]
    if d.named:
        out += _match(d, d.named)
        if d.named.entry.verify.get("repro"):
            out.append(Text(f"Press {keys['verify']} to replay its repro with and without the fix.", style="italic"))
    elif d.verdict == "unknown":
        out += [Text("No KB entry explains this failure with enough confidence.", style="bold yellow"), Text()]
        if d.matches:
            out.append(Text("Nearest entries", style="bold underline"))
            out += [Text(f"- {s.entry.id}  {s.confidence:.2f}  {s.entry.title}") for s in d.matches]
            out.append(Text())
        out += [Text("Root incident", style="bold underline"),
                *(Text(f"{line.lineno:>6}  {line.text}", no_wrap=True, overflow="ellipsis")
                  for line in subject.lines[:12]), Text(),
                Text(f"Press {keys['new']} to scaffold a KB entry from it (vlkb kb new).", style="italic")]
    else:
        out.append(Text("No step failed and no warning points at a known silent failure.", style="green"))
        for s in d.matches:
            if s.explained:
                out.append(Text(f"seen, harmless here: {s.entry.id} ({s.explained})", style="dim"))
    for note in d.stats.notes:
        out.append(Text(f"note: {note}", style="dim"))
    return Group(*out)


class CauseView(Static):
    """The verdict, the root cause, the fix and the advice for this run."""

    def show(self, d: Diagnosis, keys: dict[str, str]) -> None:
        self.update(cause(d, keys))
