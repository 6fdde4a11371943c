"""The log pane's jumps: to a line of a file (what a click on an incident or evidence asks), to the
next or previous evidence line, to the next file.

A mixin of `LogView` (tui/log_view.py), which holds the state it reads: `paths`, `path`, `rows`,
`rank`, `_marked`, `_pending`, the cursor and the index.
"""
from __future__ import annotations

from .log_filter import kept


class LogNavigation:
    """Where the cursor goes when asked for a line, an evidence line or the next file."""

    @property
    def evidence(self) -> list[int]:
        """The 1-based evidence lines of the file shown."""
        return sorted(n + 1 for n in self._marked.get(self.path, ()))

    def goto(self, path: str, lineno: int) -> None:
        """Put the cursor on line `lineno` (1-based) of `path`; a rank filter hiding it is turned off."""
        if path in self.paths and path != self.path:
            self._show(path)
        if self.rows is not None and not kept(self.rows, lineno - 1):
            self._filter(None)
            self.note = "rank filter off to show that line"
        if lineno > self.index.count and not self.index.done:
            self._pending = lineno  # not indexed yet: go there when it is
            return
        self._pending = None
        self.cursor = self.row_of(max(0, lineno - 1))

    def action_evidence(self, direction: int) -> None:
        lines = self.evidence
        if not lines:
            self.app.bell()
            return
        here = self.line
        later = [n for n in lines if (n > here if direction > 0 else n < here)]
        target = (later[0] if direction > 0 else later[-1]) if later else (lines[0] if direction > 0 else lines[-1])
        self.goto(self.path, target)

    def action_next_file(self) -> None:
        if len(self.paths) > 1:
            self._show(self.paths[(self.paths.index(self.path) + 1) % len(self.paths)])

    def _show(self, path: str) -> None:
        self.workers.cancel_group(self, "filter")  # the filter belonged to the other file
        self.path, self.rows, self.rank = path, None, None
        self.cursor = 0
        self._resize()
        self.refresh()
