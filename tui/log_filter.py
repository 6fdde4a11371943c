"""The log pane's rank filter: the rows of one rank, selected by a process of its own
(tui/rank_filter.py) and shown as they come.

A mixin of `LogView` (tui/log_view.py), which holds the state it reads: `ranks`, `rank`, `rows`,
`note`, the cursor and the index.
"""
from __future__ import annotations

import subprocess
import time

import numpy as np
from textual import work
from textual.worker import get_current_worker

from vlkb.subproc import module_command

from .lineindex import LineIndex
from .log_indexing import REFRESH


class LogRankFilter:
    """`r` (the diagnosis screen's key) cycles through all ranks and each one; the rows shown become
    the chosen rank's lines."""

    def action_next_rank(self) -> None:
        choices = [None, *self.ranks]
        if len(choices) == 1:
            self.note = "no rank prefixes in this log"
            self._status()
            return
        self._filter(choices[(choices.index(self.rank) + 1) % len(choices)] if self.rank in choices else None)

    def _filter(self, rank: str | None) -> None:
        here = self.line_of(self.cursor) if self.row_count else 0
        self.rank, self.note = rank, ""
        self.rows = None if rank is None else np.zeros(0, dtype=np.int64)
        self._resize()
        if rank is None:
            self.workers.cancel_group(self, "filter")
            self.cursor = here
        else:
            self._select(self.index, rank, here)

    @work(thread=True, exclusive=True, group="filter")
    def _select(self, index: LineIndex, rank: str, here: int) -> None:
        """Run the filter in its own process (tui/rank_filter.py) and show what it finds as it comes."""
        worker = get_current_worker()
        proc = subprocess.Popen(module_command("vlkb.tui.rank_filter", index.path, rank),
                                stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found, pending, shown = [], b"", time.monotonic()
        try:
            while not worker.is_cancelled:
                data = proc.stdout.read1(1 << 16)
                if not data:
                    break
                pending += data
                whole = len(pending) - len(pending) % 8
                found.append(np.frombuffer(pending[:whole], dtype=np.int64))
                pending = pending[whole:]
                if time.monotonic() - shown > REFRESH:  # show what is found so far, a few times a second
                    found = [np.concatenate(found)]
                    self.app.call_from_thread(self._filtered, rank, found[0], here, False)
                    shown = time.monotonic()
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        if not worker.is_cancelled:
            rows = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
            self.app.call_from_thread(self._filtered, rank, rows, here, True)

    def _filtered(self, rank: str, rows: np.ndarray, here: int, done: bool) -> None:
        if self.rank != rank:
            return
        self.rows = rows
        self.note = "" if done else "filtering..."
        self._resize()
        self.cursor = self.row_of(here)


def kept(rows: np.ndarray, line: int) -> bool:
    """Whether a rank filter's rows (sorted) keep 0-based `line`."""
    at = int(np.searchsorted(rows, line))
    return at < len(rows) and int(rows[at]) == line
