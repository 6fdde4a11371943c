"""The diagnosis screen: verdict, cause and fix, ranked matches, incidents, run facts, and the log itself
with the evidence marked in place. The diagnosis runs in a worker; the screen only shows it."""
from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static, TabbedContent, TabPane

from vlkb.analyzer import Diagnosis, InputError
from vlkb.analyzer.facts import describe, ordered

from . import report_file
from .cause_view import CauseView, verdict_line
from .incidents_tree import IncidentsTree
from .log_view import LogView
from .messages import JumpTo, OpenEntry


def _similar_text(d: Diagnosis) -> Text:
    from vlkb.analyzer.report.text import similar

    if not d.similar:
        why = "nothing failed" if d.root is None else "no public report in the index is similar enough to show"
        return Text(f"No similar public reports: {why}.", style="dim")
    return Text(similar(d.similar))


class DiagnosisScreen(Screen):
    SHORT = 32  # rows under which the cause pane takes most of the screen (vlkb.tcss: .-short)
    BINDINGS = [
        Binding("right_square_bracket", "log('evidence', 1)", "Next evidence"),
        Binding("left_square_bracket", "log('evidence', -1)", "Prev evidence", show=False),
        Binding("slash", "prompt('search')", "Search"),
        Binding("n", "log('search_again', False)", "Next match", show=False),
        Binding("N", "log('search_again', True)", "Prev match", show=False),
        Binding("g", "prompt('goto')", "Go to line", show=False),
        Binding("s", "prompt('save')", "Save the report (Markdown, JSON, SARIF, text)", show=False),
        Binding("r", "log('next_rank')", "Rank filter"),
        Binding("f", "log('next_file')", "Next file", show=False),
        Binding("l", "focus_log", "Log pane", show=False),
        Binding("v", "verify", "Verify fix"),
        Binding("o", "open_entry", "Open in KB", show=False),
        Binding("a", "new_entry", "New KB entry", show=False),
        Binding("escape", "close_prompt", "Close prompt", show=False),
        *(Binding(str(i), f"tab('{tab}-tab')", f"{tab.title()} tab", show=False)
          for i, tab in enumerate(["cause", "matches", "incidents", "run", "similar"], 1)),
    ]

    def __init__(self, inputs: list[str], sources: dict[str, str], notes: list[str] = (), **kw):
        super().__init__(**kw)
        self.inputs = inputs  # what the diagnosis reads (paths, directories, .gz)
        self.notes = list(notes)  # how the inputs were prepared (a spool cut short), shown with the reader's
        self.sources = sources  # each file the log pane can show: its label in the diagnosis -> a plain file
        self.diagnosis: Diagnosis | None = None
        self._mode = "search"

    def compose(self) -> ComposeResult:
        yield Static(Text(f" DIAGNOSING {len(self.inputs)} input(s)...", style="bold reverse"), id="verdict")
        with TabbedContent(id="tabs"):
            with TabPane("Cause", id="cause-tab"):
                yield VerticalScroll(CauseView(id="cause"))
            with TabPane("Matches", id="matches-tab"):
                yield DataTable(id="matches", cursor_type="row", zebra_stripes=True)
            with TabPane("Incidents", id="incidents-tab"):
                yield IncidentsTree(id="incidents")
            with TabPane("Run", id="run-tab"):
                yield DataTable(id="run", cursor_type="row", zebra_stripes=True)
            with TabPane("Similar", id="similar-tab"):
                yield VerticalScroll(Static(Text("Searching public reports...", style="dim"), id="similar"))
        yield Container(id="log-box")
        yield Input(id="prompt")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#prompt").display = False
        self.set_class(self.app.size.height < self.SHORT, "-short")
        self._diagnose()

    def on_resize(self) -> None:
        self.set_class(self.app.size.height < self.SHORT, "-short")

    @work(thread=True, exclusive=True)
    def _diagnose(self) -> None:
        try:
            d = self.app.engine.diagnose(self.inputs, top=5)
        except InputError as err:
            self.app.call_from_thread(self._failed, str(err))
            return
        d.stats.notes[:0] = self.notes
        from vlkb import reports

        d.similar = reports.similar(d, self.app.engine)  # whatever the verdict: the tab is how the TUI asks
        self.app.call_from_thread(self.show, d)

    def _failed(self, message: str) -> None:
        self.query_one("#verdict", Static).update(Text(f" CANNOT READ THE LOG: {message}", style="bold reverse"))

    # ---- filling the screen -------------------------------------------------------------------
    def show(self, d: Diagnosis) -> None:
        self.diagnosis = d
        self.query_one("#verdict", Static).update(verdict_line(d))
        self.query_one(CauseView).show(d, {"verify": "v", "new": "a"})
        self._matches(d)
        self.query_one(IncidentsTree).show(d)
        self._run(d)
        self.query_one("#similar", Static).update(_similar_text(d))
        evidence = [(line.path, line.lineno) for line in (d.named.evidence if d.named else [])]
        subject = d.subject
        landing = None
        if subject is not None:
            landing = (subject.quoted.path, subject.quoted.lineno)
            evidence += [landing] + [(line.path, line.lineno) for line in subject.lines[:1]]
        ranks = sorted({r for inc in d.incidents for r in inc.ranks}, key=_rank_key)
        log = LogView(self.sources, evidence, ranks, id="log")
        self.query_one("#log-box").mount(log)
        if landing:
            log.goto(*landing)
        log.focus()

    def _matches(self, d: Diagnosis) -> None:
        table = self.query_one("#matches", DataTable)
        table.add_columns("entry", "confidence", "signals")
        for s in d.matches:
            note = f"  harmless here: {s.explained}" if s.explained else ""
            table.add_row(Text(s.entry.id), f"{s.confidence:.2f}", Text(s.signal_summary + note), key=s.entry.id)

    def _run(self, d: Diagnosis) -> None:
        table = self.query_one("#run", DataTable)
        table.add_columns("fact", "where")
        self._facts = ordered(d.run)
        for i, fact in enumerate(self._facts):
            rank = f" [rank {fact.line.who}]" if fact.line.who else ""
            table.add_row(Text(describe(fact)), Text(f"{fact.line.path}:{fact.line.lineno}{rank}"), key=str(i))

    # ---- moving to the log --------------------------------------------------------------------
    @property
    def log_view(self) -> LogView | None:
        found = self.query("#log")
        return found.first(LogView) if found else None

    def on_jump_to(self, message: JumpTo) -> None:
        if self.log_view is not None:
            self.log_view.goto(message.path, message.lineno)
            self.log_view.focus()

    @on(DataTable.RowSelected, "#run")
    def _fact_selected(self, event: DataTable.RowSelected) -> None:
        line = self._facts[int(event.row_key.value)].line
        self.post_message(JumpTo(line.path, line.lineno))

    @on(DataTable.RowSelected, "#matches")
    def _match_selected(self, event: DataTable.RowSelected) -> None:
        self.app.post_message(OpenEntry(event.row_key.value))

    def action_log(self, action: str, *args) -> None:
        if self.log_view is not None:
            getattr(self.log_view, f"action_{action}")(*args)

    def action_tab(self, tab: str) -> None:
        self.query_one("#tabs", TabbedContent).active = tab

    def action_focus_log(self) -> None:
        if self.log_view is not None:
            self.log_view.focus()

    def action_prompt(self, mode: str) -> None:
        prompt = self.query_one("#prompt", Input)
        self._mode = mode
        prompt.placeholder = {"search": "search the log (lower case matches any case)", "goto": "go to line",
                              "save": report_file.prompt()}[mode]
        prompt.value = ""
        prompt.display = True
        prompt.focus()

    def action_close_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        if prompt.display:
            prompt.display = False
            self.action_focus_log()

    @on(Input.Submitted, "#prompt")
    def _prompted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.action_close_prompt()
        if self._mode == "save":
            self._save(value.lower())
        elif not value or self.log_view is None:
            return
        elif self._mode == "search":
            self.log_view.search(value)
        elif value.replace(",", "").isdigit():
            self.log_view.goto(self.log_view.path, int(value.replace(",", "")))
        else:
            self.notify(f"not a line number: {value}", severity="warning", markup=False)

    def _save(self, fmt: str) -> None:
        if self.diagnosis is None:
            self.notify("The diagnosis is still running.", severity="warning")
            return
        try:
            path = report_file.save(self.diagnosis, self.app.engine.entries, fmt)
        except (ValueError, OSError) as err:  # a word typed wrong, a directory that cannot be written
            self.notify(f"Not saved: {err}", severity="warning", markup=False)
        else:
            self.notify(f"Saved the {fmt or report_file.DEFAULT} report to {path.resolve()}", markup=False)

    # ---- actions on the entry -----------------------------------------------------------------
    def pointed_entry(self):
        """The entry the user points at: the row selected in Matches, else the named entry."""
        d = self.diagnosis
        if d is None or not d.matches:
            return None
        if self.query_one("#tabs", TabbedContent).active == "matches-tab":
            row = self.query_one("#matches", DataTable).cursor_row
            return d.matches[min(row, len(d.matches) - 1)].entry
        return d.named.entry if d.named else None

    def action_verify(self) -> None:
        entry = self.pointed_entry()
        if entry is None:
            self.notify("No entry is named here; pick one in the Matches tab.", severity="warning")
        elif not entry.verify.get("repro"):
            self.notify(f"{entry.id} has no repro to replay.", severity="warning")
        else:
            self.app.verify(entry.id)

    def action_open_entry(self) -> None:
        entry = self.pointed_entry()
        if entry is not None:
            self.app.post_message(OpenEntry(entry.id))

    def action_new_entry(self) -> None:
        d = self.diagnosis
        if d is None or d.root is None:
            self.notify("There is no failure here to scaffold an entry from.", severity="warning")
            return
        from .new_entry_screen import NewEntryScreen

        self.app.push_screen(NewEntryScreen(self.inputs, d.root.exception))


def _rank_key(rank: str) -> tuple:
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in rank.split("/"))
