"""The log pane: the log itself, evidence lines marked in place, a cursor, rank filter and search.

Only the rows on screen are read and rendered (Textual's line API over `LineIndex`), so a 1 GB log
opens at once and scrolls like a small one; indexing, filtering and searching run in workers. Log
text becomes `rich.text.Text`, never markup, with terminal control sequences stripped.

This module holds the pane's state, its rendering and its cursor; each other concern is a mixin in a
module of its own: the jumps to a line, an evidence line or a file (log_navigation.py), the rank filter
and its process (log_filter.py), search (log_search.py), the index worker (log_indexing.py).
"""
from __future__ import annotations

import re

import numpy as np
from rich.segment import Segment
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from vlkb.analyzer.textnorm import strip_terminal

from .lineindex import LineIndex
from .log_filter import LogRankFilter
from .log_indexing import LogIndexing
from .log_navigation import LogNavigation
from .log_search import LogSearch

WIDTH = 4096  # columns the pane scrolls across (left/right); lines are cut at MAX_LINE bytes anyway


# each concern of the pane is a mixin in its own module; this class holds the state they share, the
# rendering and the cursor
class LogView(LogNavigation, LogRankFilter, LogSearch, LogIndexing, ScrollView, can_focus=True):
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
