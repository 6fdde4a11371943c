"""`vlkb tui`: the KB browser, or the diagnosis of the logs given, with verify one key away."""
from __future__ import annotations

import threading
from collections.abc import Callable

from textual.app import App
from textual.binding import Binding

from vlkb.analyzer import Engine
from vlkb.home import cache_dir
from vlkb.kb import load_engine
from vlkb.subproc import module_command

from .diagnosis_screen import DiagnosisScreen
from .help_screen import HelpScreen
from .kb_screen import KBScreen
from .messages import OpenEntry
from .verify_screen import VerifyScreen


def verify_argv(extra_kb: list[str]) -> Callable[[str], list[str]]:
    """The command the verify panel runs: the real `vlkb verify`, output streamed, report as JSON."""
    kb = [arg for d in extra_kb for arg in ("--kb", d)]
    return lambda entry_id: module_command("vlkb", "verify", entry_id, "--stream", "--format", "json", *kb)


class VlkbApp(App):
    CSS_PATH = "vlkb.tcss"
    TITLE = "vlkb"
    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("b", "browse", "KB browser", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, inputs: list[str] = (), sources: dict[str, str] | None = None, extra_kb: list[str] = (),
                 verify_command: Callable[[str], list[str]] | None = None, engine: Engine | None = None,
                 notes: list[str] = ()):
        """`notes`: what the diagnosis should say about how its inputs were prepared (a spool cut short)."""
        super().__init__()
        self.notes = list(notes)
        self.inputs = list(inputs)
        self.sources = sources if sources is not None else {p: p for p in self.inputs}
        self.extra_kb = list(extra_kb)
        self.verify_command = verify_command or verify_argv(self.extra_kb)
        self._engine = engine
        self._lock = threading.Lock()

    @property
    def engine(self) -> Engine:
        """The KB, loaded once (from the first screen or a worker, whichever asks first)."""
        with self._lock:
            if self._engine is None:
                self._engine = load_engine(self.extra_kb, cache_dir())
            return self._engine

    def on_mount(self) -> None:
        if self.inputs:
            self.push_screen(DiagnosisScreen(self.inputs, self.sources, notes=self.notes))
        else:
            self.push_screen(KBScreen(self.engine.entries, self.extra_kb))

    def verify(self, entry_id: str) -> None:
        self.push_screen(VerifyScreen(entry_id, self.verify_command(entry_id)))

    def on_open_entry(self, message: OpenEntry) -> None:
        self.push_screen(KBScreen(self.engine.entries, self.extra_kb, selected=message.entry_id))

    def action_browse(self) -> None:
        """The KB browser, on the entry the diagnosis names (or the one picked in its Matches tab)."""
        if not isinstance(self.screen, KBScreen):
            entry = self.screen.pointed_entry() if isinstance(self.screen, DiagnosisScreen) else None
            self.push_screen(KBScreen(self.engine.entries, self.extra_kb, selected=entry.id if entry else None))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())
