"""The log pane's index worker: each file's `LineIndex`, built in a thread on first sight, the pane
updated a few times a second while it grows so a large log can be read at once.

A mixin of `LogView` (tui/log_view.py), which holds the state it reads: `sources`, `path`, `rows`,
`_indexes` and `_pending`.
"""
from __future__ import annotations

import time

from textual import work
from textual.worker import get_current_worker

from .lineindex import LineIndex

REFRESH = 0.25  # seconds between two updates of the pane while the index or a filter is being built


class LogIndexing:
    """The index of the file shown, and the worker that builds it."""

    @property
    def index(self) -> LineIndex:
        if self.path not in self._indexes:
            self._indexes[self.path] = LineIndex(self.sources[self.path])
            self._build(self._indexes[self.path])
        return self._indexes[self.path]

    @work(thread=True, group="index")
    def _build(self, index: LineIndex) -> None:
        worker = get_current_worker()
        shown = time.monotonic()
        for _ in index.build():
            if worker.is_cancelled:
                return
            if time.monotonic() - shown > REFRESH:
                self.app.call_from_thread(self._indexed, index)
                shown = time.monotonic()
        self.app.call_from_thread(self._indexed, index)

    def _indexed(self, index: LineIndex) -> None:
        if index is self._indexes.get(self.path) and self.rows is None:
            self._resize()
            self.refresh()
            if self._pending is not None and (self._pending <= index.count or index.done):
                self.goto(self.path, self._pending)
