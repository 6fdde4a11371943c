"""Every key binding of every screen, read from their BINDINGS so the help cannot go stale."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def groups() -> list[tuple[str, list]]:
    """(where, bindings) for the app and each screen and widget that has keys of its own."""
    from .app import VlkbApp
    from .diagnosis_screen import DiagnosisScreen
    from .kb_screen import KBScreen
    from .log_view import LogView
    from .new_entry_screen import NewEntryScreen
    from .verify_screen import VerifyScreen

    return [("Everywhere", VlkbApp.BINDINGS), ("Diagnosis", DiagnosisScreen.BINDINGS),
            ("Log pane", LogView.BINDINGS), ("KB browser", KBScreen.BINDINGS),
            ("Verify", VerifyScreen.BINDINGS), ("New KB entry", NewEntryScreen.BINDINGS)]


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close help")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(self._table())

    def _table(self) -> Table:
        table = Table(title="vlkb tui: keys", expand=True, show_edge=False, box=None, padding=(0, 1))
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("does")
        for where, bindings in groups():
            table.add_row(Text(where, style="bold underline"), "")
            by_action: dict[str, list[Binding]] = {}  # "up,k": one row, every key
            for b in Binding.make_bindings(bindings):
                by_action.setdefault(b.action, []).append(b)
            for same in by_action.values():
                keys = " / ".join(self.app.get_key_display(b) for b in same)
                table.add_row(Text(keys), Text(same[0].description))
        table.add_row("", "")
        table.add_row(Text("Tab", style="bold"), Text("move between the panes; Enter opens a row or a line; "
                                                      "on the tab bar, left / right switch tabs"))
        return table
