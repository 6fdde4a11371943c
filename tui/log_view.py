"""The log pane: the log itself, evidence lines marked in place, a cursor, rank filter and search.

Only the rows on screen are read and rendered (Textual's line API over `LineIndex`), so a 1 GB log
opens at once and scrolls like a small one; indexing, filtering and searching run in workers. Log
text becomes `rich.text.Text`, never markup, with terminal control sequences stripped.
"""
from __future__ import annotations

import re
import subprocess
import time

import numpy as np
from rich.segment import Segment
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from vlkb.analyzer.textnorm import strip_terminal
from vlkb.subproc import module_command

from .lineindex import LineIndex


REFRESH = 0.25  # seconds between two updates of the pane while the index or a filter is being built
WIDTH = 4096  # columns the pane scrolls across (left/right); lines are cut at MAX_LINE bytes anyway


class LogView(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("up,k", "move(-1)", "Line up", show=False),
        Binding("down,j", "move(1)", "Line down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First line", show=False),
        Binding("end", "edge(1)", "Last line", show=False),
        Binding("left", "pan(-8)", "Scroll left", show=False),
        Binding("right", "pan(8)", "Scroll right", show=False),
    ]  # evidence, rank, file and search keys are the diagnosis screen's: they work from any pane
    COMPONENT_CLASSES = {"log-view--cursor", "log-view--evidence", "log-view--gutter", "log-view--match"}
    DEFAULT_CSS = """
    LogView { border: round $primary-darken-2; scrollbar-size-horizontal: 0; }
    LogView:focus { border: round $accent; }
    LogView > .log-view--cursor { text-style: reverse; }
    LogView > .log-view--evidence { text-style: bold; color: $warning; }
    LogView > .log-view--gutter { color: $text-muted; }
    LogView > .log-view--match { text-style: bold underline; }
    """

    cursor: reactive[int] = reactive(0, always_update=True)  # a row of the view (a line, or a filtered line)

    def __init__(self, sources: dict[str, str], evidence: list[tuple[str, int]] = (), ranks: list[str] = (), **kw):
        """`sources`: each log's label (as the diagnosis names it) -> a plain file holding its text."""
        super().__init__(**kw)
        self.sources = dict(sources)
        self.paths = list(sources)
        self.ranks = list(ranks)  # the rank labels a filter can pick, besides "all"
        self.rank: str | None = None
        self.rows: np.ndarray | None = None  # line numbers shown when a rank filter is on
        self.pattern: tuple[re.Pattern, re.Pattern] | None = None  # (bytes for the file, str for the row)
        self.term = ""
        self._pending: int | None = None  # a line to go to once the index reaches it
        self.note = ""
        self._marked = {p: {n - 1 for q, n in evidence if q == p} for p in self.paths}  # 0-based, per file
        self._indexes: dict[str, LineIndex] = {}
        self.path = self.paths[0] if self.paths else ""

    # ---- what is shown ------------------------------------------------------------------------
    @property
    def index(self) -> LineIndex:
        if self.path not in self._indexes:
            self._indexes[self.path] = LineIndex(self.sources[self.path])
            self._build(self._indexes[self.path])
        return self._indexes[self.path]

    @property
    def row_count(self) -> int:
        return len(self.rows) if self.rows is not None else self.index.count

    def line_of(self, row: int) -> int:
        """The 0-based line shown in `row` (the last row's, past the end)."""
        if self.rows is None:
            return row
        return int(self.rows[min(row, len(self.rows) - 1)]) if len(self.rows) else 0

    def row_of(self, line: int) -> int:
        if self.rows is None:
            return line
        return min(int(np.searchsorted(self.rows, line)), max(0, len(self.rows) - 1))

    @property
    def line(self) -> int:
        """The 1-based line under the cursor."""
        return self.line_of(self.cursor) + 1 if self.row_count else 0

    @property
    def evidence(self) -> list[int]:
        """The 1-based evidence lines of the file shown."""
        return sorted(n + 1 for n in self._marked.get(self.path, ()))

    def on_mount(self) -> None:
        self._resize()

    def _resize(self) -> None:
        self.virtual_size = Size(WIDTH, self.row_count)
        self._status()

    def _status(self) -> None:
        ix = self.index
        col = f", col {self.scroll_offset.x + 1}" if self.scroll_offset.x else ""
        where = f"{self.path}  line {self.line:,}/{ix.count:,}{col}" + ("" if ix.done else f" (indexing {ix.progress:.0%})")
        self.border_title = where
        parts = [f"rank {self.rank}" if self.rank is not None else "", self.note,
                 f"/{self.term}" if self.term else ""]
        self.border_subtitle = "  ".join(p for p in parts if p)

    # ---- rendering ----------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        width = self.size.width
        if row >= self.row_count:
            return Strip.blank(width, self.rich_style)
        n = self.line_of(row)
        gutter = len(f"{self.index.count:,}") + 1
        text = Text(strip_terminal(self.index.line(n)).expandtabs(8), no_wrap=True)
        if self.pattern:
            for m in self.pattern[1].finditer(text.plain):
                text.stylize(self.get_component_rich_style("log-view--match"), m.start(), m.end())
        evidence = n in self._marked.get(self.path, ())
        if evidence:
            text.stylize(self.get_component_rich_style("log-view--evidence"))
        line = Text.assemble((f"{n + 1:>{gutter}} ", self.get_component_rich_style("log-view--gutter")),
                             ("▶ " if evidence else "  "), text, no_wrap=True)
        if row == self.cursor:
            line.stylize(self.get_component_rich_style("log-view--cursor"))
        segments = [Segment(s.text, s.style) for s in line.render(self.app.console)]
        strip = Strip(segments).apply_style(self.rich_style)
        return strip.crop_extend(self.scroll_offset.x, self.scroll_offset.x + width, self.rich_style)

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.row_count - 1)) if self.row_count else 0

    def watch_cursor(self) -> None:
        self._reveal()
        self.call_after_refresh(self._reveal)  # again once a new size or row count has been laid out
        self._status()
        self.refresh()

    def _reveal(self) -> None:
        """Scroll so the cursor is on screen, a third of the way down when it has to move."""
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        if height and not top <= self.cursor < top + height:
            self.scroll_to(y=max(0, self.cursor - height // 3), animate=False, immediate=True)

    def on_resize(self) -> None:
        self.call_after_refresh(self._reveal)

    def on_click(self, event) -> None:
        self.cursor = self.scroll_offset.y + event.y - 1  # the border's top row

    # ---- moving -------------------------------------------------------------------------------
    def action_move(self, delta: int) -> None:
        self.cursor += delta

    def action_pan(self, columns: int) -> None:
        self.scroll_to(x=max(0, self.scroll_offset.x + columns), animate=False, immediate=True)
        self._status()

    def action_page(self, direction: int) -> None:
        self.cursor += direction * max(1, self.scrollable_content_region.height - 1)

    def action_edge(self, end: int) -> None:
        self.cursor = self.row_count - 1 if end else 0

    def goto(self, path: str, lineno: int) -> None:
        """Put the cursor on line `lineno` (1-based) of `path`; a rank filter hiding it is turned off."""
        if path in self.paths and path != self.path:
            self._show(path)
        if self.rows is not None and not _kept(self.rows, lineno - 1):
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

    # ---- rank filter --------------------------------------------------------------------------
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

    # ---- search -------------------------------------------------------------------------------
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
            if at is None or rows is None or _kept(rows, at) or at == here:
                break
        if not get_current_worker().is_cancelled:  # a newer search replaced this one
            self.app.call_from_thread(self._found, at)

    def _found(self, at: int | None) -> None:
        self.note = "" if at is not None else "no match"
        if at is not None:
            self.cursor = self.row_of(at)
        self._status()
        self.refresh()

    # ---- indexing -----------------------------------------------------------------------------
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


def _kept(rows: np.ndarray, line: int) -> bool:
    """Whether a rank filter's rows (sorted) keep 0-based `line`."""
    at = int(np.searchsorted(rows, line))
    return at < len(rows) and int(rows[at]) == line
