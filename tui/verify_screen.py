"""`vlkb verify ID` run from the TUI: its output streams into a panel as the repro prints it, a key
cancels it (SIGTERM, which `vlkb verify` turns into killing its repro's process group), and it ends with
the verdict table read from the command's JSON report."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Log, Static

from vlkb.analyzer.textnorm import strip_terminal

from .messages import VerifyDone, VerifyLine

GRACE = 5.0  # seconds between SIGTERM and SIGKILL on cancel


def _yes(flag) -> str:
    return "n/a" if flag is None else "yes" if flag else "NO"


def _exit(r: dict) -> str:
    return "timeout" if r.get("timed_out") else str(r.get("exit_code"))


class VerifyScreen(Screen):
    BINDINGS = [
        Binding("c", "cancel", "Cancel"),
        Binding("escape", "close", "Back"),
    ]

    def __init__(self, entry_id: str, argv: list[str], **kw):
        super().__init__(**kw)
        self.entry_id = entry_id
        self.argv = argv
        self.proc: subprocess.Popen | None = None
        self.result: VerifyDone | None = None
        self.cancelled = False

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble((" VERIFY ", "bold reverse"), f" {self.entry_id}: replaying the failure, "
                                   "then the fix"), id="verify-title")
        yield Log(id="verify-log", highlight=False)
        yield DataTable(id="verify-table", cursor_type="none")
        yield Static(Text("running... (c cancels)", style="italic"), id="verify-verdict")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#verify-table").display = False
        shown = [os.path.basename(self.argv[0]), *self.argv[1:]]  # python3.11 -m vlkb verify ID ...
        self.query_one("#verify-log", Log).write_line("$ " + shlex.join(shown))
        self._verify()

    @work(thread=True, exclusive=True, group="verify")
    def _verify(self) -> None:
        with tempfile.TemporaryFile() as report:
            try:
                self.proc = subprocess.Popen(self.argv, stdout=report, stderr=subprocess.PIPE,
                                             stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})
            except OSError as err:
                self.post_message(VerifyLine(f"cannot start: {err}"))
                self.post_message(VerifyDone(None, []))
                return
            for raw in self.proc.stderr:
                self.post_message(VerifyLine(raw.decode("utf-8", "replace").rstrip("\r\n")))
            code = self.proc.wait()
            report.seek(0)
            try:
                verdicts = json.loads(report.read().decode("utf-8", "replace") or "[]")
            except ValueError:
                verdicts = []
        self.post_message(VerifyDone(code, verdicts if isinstance(verdicts, list) else [], self.cancelled))

    def on_verify_line(self, message: VerifyLine) -> None:
        self.query_one("#verify-log", Log).write_line(strip_terminal(message.text))

    def on_verify_done(self, message: VerifyDone) -> None:
        self.result = message
        verdict = self.query_one("#verify-verdict", Static)
        if message.cancelled:
            verdict.update(Text(" CANCELLED ", style="bold reverse"))
            return
        if not message.verdicts:
            verdict.update(Text(f" NO VERDICT: vlkb verify ended with exit {message.exit_code} ", style="bold red reverse"))
            return
        table = self.query_one("#verify-table", DataTable)
        # within 80 columns for the longest repro's entry id: vlkb's answer on the failing run is "itself"
        # when it names the entry replayed (the usual case), and each run's time is in the log above
        table.add_columns("entry", "reproduced", "vlkb names", "fixed", "exit before/after")
        for v in message.verdicts:
            before = v["before"]
            named = before.get("diagnosis")
            named = "-" if not named else f"{'itself' if named == v['entry'] else named} {before['confidence']:.2f}"
            table.add_row(v["entry"], _yes(v["reproduced"]), named if v["closed_loop"] is not None else "n/a",
                          _yes(v["fixed"]), f"{_exit(before)} / {_exit(v['after'])}")
        # header, rows and a horizontal scrollbar's row (narrow terminals); "auto" can lay the table
        # out before its rows are counted and leave it 0 rows high, so the verdict never shows
        table.styles.height = table.row_count + 2
        table.display = True
        log = self.query_one("#verify-log", Log)  # the table took rows from it: keep its last lines in view
        self.call_after_refresh(log.scroll_end, animate=False)
        ok = all(v["ok"] for v in message.verdicts)
        label = " REPRODUCED AND FIXED " if ok else " NOT VERIFIED "
        verdict.update(Text.assemble((label, "bold reverse " + ("green" if ok else "red")),
                                     f"  on {message.verdicts[0]['device']}; logs: "
                                     f"{os.path.dirname(message.verdicts[0]['before']['log'])}"))

    def action_cancel(self) -> None:
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        self.cancelled = True
        self.query_one("#verify-verdict", Static).update(Text("cancelling...", style="italic"))
        proc.terminate()
        self._reap(proc)

    @work(thread=True, group="reap")
    def _reap(self, proc: subprocess.Popen) -> None:
        try:
            proc.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()

    def action_close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.action_cancel()
            return
        self.app.pop_screen()
