"""The KB browser: search as you type (the SQLite FTS index), filter by family and framework, read an entry."""
from __future__ import annotations

import threading
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.worker import get_current_worker
from textual.widgets import Footer, Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from vlkb.kb.docs import select
from vlkb.home import refused
from vlkb.kb.search import ensure, search

from .entry_view import EntryView


class KBScreen(Screen):
    BINDINGS = [
        Binding("slash", "focus_search", "Search"),
        Binding("v", "verify", "Verify fix"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, entries: list, extra_kb: list[str] = (), selected: str | None = None, **kw):
        super().__init__(**kw)
        self.entries = {e.id: e for e in entries}
        self.extra_kb = list(extra_kb)
        self.selected = selected
        self.matching: list[str] | None = None  # ids the search found, best first; None: no search
        self._db: Path | None = None  # the search database, checked and built once for this screen
        self._db_lock = threading.Lock()

    def compose(self) -> ComposeResult:
        entries = list(self.entries.values())
        families = sorted({e.family for e in entries})
        frameworks = sorted({f for e in entries for f in e.frameworks})
        with Horizontal():
            with Vertical(id="kb-side"):
                yield Input(placeholder="search the KB", id="q")
                yield Select([(f, f) for f in families], prompt="any family", id="family")
                yield Select([(f, f) for f in frameworks], prompt="any framework", id="framework")
                yield OptionList(id="entries")
                yield Static(id="kb-count")
            yield EntryView(id="entry")
        yield Footer()

    def on_mount(self) -> None:
        self._refill()
        self.query_one("#entries").focus()

    @property
    def shown(self) -> list[str]:
        """The ids in the list, in order."""
        options = self.query_one("#entries", OptionList)
        return [options.get_option_at_index(i).id for i in range(options.option_count)]

    def _refill(self) -> None:
        family = self.query_one("#family", Select).value
        framework = self.query_one("#framework", Select).value
        kept = select(self.entries.values(), family if isinstance(family, str) else None,
                      framework if isinstance(framework, str) else None)  # no choice: Select.NULL
        if self.matching is not None:
            rank = {eid: i for i, eid in enumerate(self.matching)}
            kept = sorted((e for e in kept if e.id in rank), key=lambda e: rank[e.id])
        options = self.query_one("#entries", OptionList)
        options.clear_options()
        options.add_options([Option(Text(e.id, no_wrap=True, overflow="ellipsis"), id=e.id) for e in kept])
        self.query_one("#kb-count", Static).update(Text(f"{len(kept)} of {len(self.entries)} entries", style="dim"))
        ids = [e.id for e in kept]
        if ids:
            options.highlighted = ids.index(self.selected) if self.selected in ids else 0

    @on(Input.Changed, "#q")
    def _typed(self, event: Input.Changed) -> None:
        self._search(event.value)

    @work(thread=True, exclusive=True, group="search")
    def _search(self, query: str) -> None:
        try:
            ids = [row["id"] for row in search(query, limit=len(self.entries), db_path=self._database())] if query.strip() else None
        except OSError as err:  # a home the search database cannot be written to: say so, keep the list whole
            self.app.call_from_thread(self.notify, f"KB search unavailable: {refused(err)}", severity="error",
                                      markup=False)
            return
        if not get_current_worker().is_cancelled:  # a later keystroke started a newer search
            self.app.call_from_thread(self._searched, query, ids)

    def _database(self) -> Path:
        """The search database, from the first search on: one build (hashing every KB file) however
        fast the keys come, not one per keystroke racing the others."""
        with self._db_lock:
            if self._db is None:
                self._db = ensure(self.extra_kb)
            return self._db

    def _searched(self, query: str, ids: list[str] | None) -> None:
        if query != self.query_one("#q", Input).value:
            return  # stale: the box has changed since
        self.matching = ids
        self._refill()

    @on(Select.Changed)
    def _filtered(self) -> None:
        self._refill()

    @on(OptionList.OptionHighlighted, "#entries")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.selected = event.option.id
        self.query_one(EntryView).show(self.entries[event.option.id])

    def action_focus_search(self) -> None:
        self.query_one("#q").focus()

    def action_verify(self) -> None:
        entry = self.entries.get(self.selected or "")
        if entry is None:
            return
        if not entry.verify.get("repro"):
            self.notify(f"{entry.id} has no repro to replay.", severity="warning")
        else:
            self.app.verify(entry.id)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.query_one("#entries").focus()
