"""Messages the TUI's widgets post to their screens: small dataclasses (after toolong's messages.py)."""
from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class JumpTo(Message):
    """Show line `lineno` (1-based) of log `path` in the log pane."""

    path: str
    lineno: int


@dataclass
class OpenEntry(Message):
    """Show a KB entry in the KB browser."""

    entry_id: str


@dataclass
class VerifyLine(Message):
    """One line of a running `vlkb verify`'s output."""

    text: str


@dataclass
class VerifyDone(Message):
    """`vlkb verify` ended: its exit code (None when cancelled) and its JSON verdicts, when it gave them."""

    exit_code: int | None
    verdicts: list[dict]
    cancelled: bool = False
