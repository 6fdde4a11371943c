"""Scaffold a KB entry from the failure on screen (`vlkb kb new`): id, directory and source, then the
files it wrote and what to do next."""
from __future__ import annotations

import re
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from vlkb.analyzer import InputError
from vlkb.kb import EntryError
from vlkb.kb.scaffold import scaffold


def suggest_id(exception: str | None) -> str:
    """`RuntimeError` -> `runtime-error-todo`: a valid id the user is expected to rename."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", exception or "failure")
    return "-".join(w.lower() for w in words + ["todo"])


class NewEntryScreen(ModalScreen):
    BINDINGS = [Binding("escape", "dismiss", "Cancel")]

    def __init__(self, inputs: list[str], exception: str | None, **kw):
        super().__init__(**kw)
        self.inputs = inputs
        self.exception = exception
        self.written: list[Path] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="new-entry"):
            yield Label(Text("New KB entry from this failure (vlkb kb new)", style="bold"))
            yield Input(suggest_id(self.exception), placeholder="entry id (kebab-case)", id="new-id")
            yield Input("kb-local", placeholder="directory of your entries", id="new-dir")
            yield Input(placeholder="public URL of the report (optional)", id="new-source")
            yield Static(Text("Enter writes the files; Esc cancels.", style="dim"), id="new-result")

    @on(Input.Submitted)
    def _submitted(self) -> None:
        entry_id = self.query_one("#new-id", Input).value.strip()
        dest = self.query_one("#new-dir", Input).value.strip() or "kb-local"
        source = self.query_one("#new-source", Input).value.strip() or None
        self._scaffold(entry_id, dest, source)

    @work(thread=True, exclusive=True)
    def _scaffold(self, entry_id: str, dest: str, source: str | None) -> None:
        try:
            written = scaffold(entry_id, self.inputs, Path(dest), source)
        except (InputError, EntryError) as err:
            self.app.call_from_thread(self._result, Text(str(err), style="bold red"), [])
            return
        lines = [f"wrote {p}" for p in written]
        lines.append(f"next: fill the TODOs, then `vlkb kb lint --kb {dest}` and `vlkb diagnose LOG --kb {dest}`")
        self.app.call_from_thread(self._result, Text("\n".join(lines)), written)

    def _result(self, text: Text, written: list[Path]) -> None:
        self.written = written
        self.query_one("#new-result", Static).update(text)
