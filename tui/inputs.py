"""What `vlkb tui LOGS` opens: stdin spooled to a file first (then the keyboard comes from the terminal,
as toolong's cli.py does it), gzip logs unpacked beside it for the log pane, directories walked."""
from __future__ import annotations

import gzip
import os
import shutil
import sys
from pathlib import Path

from vlkb.analyzer.reader import GZIP_MAGIC, InputError, expand

COPY = 1 << 20


def spool_stdin(folder: Path) -> str:
    """Copy all of stdin to a file and give the process the terminal as its stdin."""
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError("-: nothing is piped into stdin (cat train.log | vlkb tui -)")
    path = folder / "stdin.log"
    with open(path, "wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out, COPY)
    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        raise InputError("-: no terminal to read keys from once stdin is read (run it in a terminal)") from None
    os.dup2(tty, 0)
    os.close(tty)
    sys.stdin = sys.__stdin__ = open(0, closefd=False)  # noqa: SIM115 - the terminal, for Textual's driver
    return str(path)


def prepare(inputs: list[str], folder: Path) -> tuple[list[str], dict[str, str]]:
    """(what to diagnose, {label the diagnosis uses: a plain file the log pane can map})."""
    diagnose = [spool_stdin(folder) if item == "-" else item for item in inputs]
    sources: dict[str, str] = {}
    for n, src in enumerate(expand(diagnose)):
        try:
            with src.open() as f:
                packed = f.read(2) == GZIP_MAGIC
        except OSError as err:
            raise InputError(f"{src.label}: {err.strerror or err}") from None
        if not packed:
            sources[src.label] = src.label
            continue
        plain = folder / f"{n}-{Path(src.label).name.removesuffix('.gz')}"
        try:
            with gzip.open(src.label, "rb") as f, open(plain, "wb") as out:
                shutil.copyfileobj(f, out, COPY)
        except (OSError, EOFError):  # truncated: keep what came out; the diagnosis notes the rest
            pass
        sources[src.label] = str(plain)
    return diagnose, sources
