"""What `vlkb tui LOGS` opens: stdin spooled to a file first (then the keyboard comes from the terminal,
as toolong's cli.py does it), gzip logs unpacked beside it for the log pane, directories walked.

What is spooled or unpacked is capped in all (SPOOL_MAX by default): a gzip bomb or an endless pipe
fills neither the disk nor the time, and a note says where the copy stopped."""
from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

from vlkb.analyzer.reader import GZIP_MAGIC, InputError, expand

COPY = 1 << 20
SPOOL_MAX = 1 << 30


class Budget:
    """Bytes the TUI may still write to its spool folder, and the notes of copies it cut short."""

    def __init__(self, limit: int = SPOOL_MAX):
        self.limit = self.left = limit
        self.notes: list[str] = []

    def copy(self, src, out, note: str) -> None:
        """Copy `src` into `out` until it ends or the budget does; then `note`, with `{kept}` filled in."""
        kept = 0
        while self.left > 0:
            block = src.read(min(COPY, self.left))
            if not block:
                return
            out.write(block)
            kept += len(block)
            self.left -= len(block)
        if src.read(1):
            self.notes.append(note.replace("{kept}", _size(kept)))  # a file name may hold braces


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"


def spool_stdin(folder: Path, budget: Budget | None = None) -> str:
    """Copy stdin (as much as the budget allows) to a file and give the process the terminal as its stdin."""
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError("-: nothing is piped into stdin (cat train.log | vlkb tui -)")
    path = folder / "stdin.log"
    with open(path, "wb") as out:
        (budget or Budget()).copy(sys.stdin.buffer, out, "-: only the first {kept} of stdin were read "
                                  "(the spool limit, vlkb tui --spool-max)")
    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        raise InputError("-: no terminal to read keys from once stdin is read (run it in a terminal)") from None
    os.dup2(tty, 0)
    os.close(tty)
    sys.stdin = sys.__stdin__ = open(0, closefd=False)  # noqa: SIM115 - the terminal, for Textual's driver
    return str(path)


def prepare(inputs: list[str], folder: Path, budget: Budget | None = None) -> tuple[list[str], dict[str, str]]:
    """(what to diagnose, {label the diagnosis uses: a plain file the log pane can map}); copies cut
    short by `budget` leave their notes in it."""
    budget = budget or Budget()
    diagnose = [spool_stdin(folder, budget) if item == "-" else item for item in inputs]
    sources: dict[str, str] = {}
    for n, src in enumerate(expand(diagnose)):
        try:
            with src.open() as f:
                packed = f.read(2) == GZIP_MAGIC
        except OSError as err:
            raise InputError(f"{src.label}: {err.strerror or err}") from None
        if not packed:
            sources[src.label] = src.path or src.label
            continue
        plain = folder / f"{n}-{Path(src.label).name.removesuffix('.gz')}"
        try:
            with gzip.open(src.path or src.label, "rb") as f, open(plain, "wb") as out:
                budget.copy(f, out, src.label + ": the log pane shows its first {kept} unpacked (the spool "
                            "limit, vlkb tui --spool-max); the diagnosis read all of it")
        except (OSError, EOFError):  # truncated: keep what came out; the diagnosis notes the rest
            pass
        sources[src.label] = str(plain)
    return diagnose, sources
