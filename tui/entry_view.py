"""One KB entry in fixed sections (the same Markdown `vlkb kb show` prints), then an example fixture, a
real log window with the line the diagnosis must cite highlighted."""
from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from vlkb.analyzer.textnorm import strip_terminal
from vlkb.kb import fixtures as fx
from vlkb.kb.docs import entry_markdown

AROUND = 6  # fixture lines shown each side of the matched line


def fixture_window(entry) -> Group | None:
    """The entry's first positive fixture around its `#=MATCH=#` line, as plain text."""
    positives = [p for p in entry.fixtures if ".pos-" in p.name]
    if not positives:
        return None
    f = fx.parse(positives[0])
    lines = f.text.splitlines()
    at = (f.match_line or 1) - 1
    out = [Text.assemble(("Example fixture ", "bold underline"), (f.name, "bold")),
           Text(f"source: {f.source}", style="dim")]
    for n in range(max(0, at - AROUND), min(len(lines), at + AROUND + 1)):
        text = strip_terminal(lines[n]).expandtabs(8)
        if n == at:
            out.append(Text.assemble((f"{n + 1:>5} > ", "bold"), (text, "bold reverse"), no_wrap=True, overflow="ellipsis"))
        else:
            out.append(Text(f"{n + 1:>5}   {text}", no_wrap=True, overflow="ellipsis"))
    return Group(*out)


class EntryView(VerticalScroll):
    def compose(self) -> ComposeResult:
        yield Markdown(id="entry-doc")
        yield Static(id="entry-fixture")

    def show(self, entry) -> None:
        self.entry = entry
        self.query_one(Markdown).update(entry_markdown(entry, fixtures=False))
        window = fixture_window(entry)
        self.fixture_lines: list[Text] = list(window.renderables) if window is not None else []
        self.query_one("#entry-fixture", Static).update(window if window is not None else Text(""))
        self.scroll_home(animate=False)
