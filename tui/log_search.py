"""The log pane's search: a term found forwards or backwards from the cursor, in a thread, skipping
the lines a rank filter hides.

A mixin of `LogView` (tui/log_view.py), which holds the state it reads: `pattern`, `term`, `rows`,
`note`, the cursor and the index.
"""
from __future__ import annotations

import re

from textual import work
from textual.worker import get_current_worker

from .lineindex import LineIndex
from .log_filter import kept


class LogSearch:
    """A term searched for (the diagnosis screen's `/`), and again forwards or back (`n`, `N`)."""

    def search(self, term: str, backwards: bool = False) -> None:
        """Smart case: a term in lower case matches any case."""
        flags = re.I if term == term.lower() else 0
        self.term = term
        self.pattern = (re.compile(re.escape(term.encode()), flags), re.compile(re.escape(term), flags))
        self.action_search_again(backwards)

    def action_search_again(self, backwards: bool) -> None:
        if self.pattern is None:
            return
        self.note = "searching..."
        self._status()
        self._find(self.index, self.pattern[0], self.line_of(self.cursor), backwards, self.rows)

    @work(thread=True, exclusive=True, group="search")
    def _find(self, index: LineIndex, pattern: re.Pattern, here: int, backwards: bool, rows) -> None:
        at = here
        for _ in range(10_000):
            at = index.find(pattern, at, backwards)
            if at is None or rows is None or kept(rows, at) or at == here:
                break
        if not get_current_worker().is_cancelled:  # a newer search replaced this one
            self.app.call_from_thread(self._found, at)

    def _found(self, at: int | None) -> None:
        self.note = "" if at is not None else "no match"
        if at is not None:
            self.cursor = self.row_of(at)
        self._status()
        self.refresh()
