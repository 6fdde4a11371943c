"""`vlkb tui`: the Textual TUI (vlkb.tui), imported only when this command runs."""
from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
from pathlib import Path

import click

from .clitools import CONTEXT, fail, kb_option


class Size(click.ParamType):
    """A byte count: 1073741824, 512M, 1G, 64KiB."""
    name = "size"
    UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        m = re.fullmatch(r"\s*(\d{1,15})\s*([kmgt]?)(?:i?b)?\s*", str(value), re.IGNORECASE)
        if not m:
            self.fail(f"{value!r} is not a size (e.g. 512M, 1G)", param, ctx)
        return int(m.group(1)) * self.UNITS[m.group(2).lower()]


def _remove_on_signals(folder: str) -> None:
    """SIGTERM and SIGHUP (a closed terminal) end the process without unwinding: remove the spool
    first, then die of the signal as before."""
    def handler(signum, frame):
        shutil.rmtree(folder, ignore_errors=True)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, handler)


@click.command(context_settings=CONTEXT)
@click.argument("inputs", nargs=-1)
@kb_option
@click.option("--spool-max", type=Size(), default="1G", show_default=True,
              help="The most bytes copied to a temporary folder in all: stdin, and gzip logs unpacked for the log pane.")
def tui(inputs, extra_kb, spool_max) -> None:
    """Browse the KB, or read the diagnosis of training logs pinned on the log itself, and replay a fix.

    Without INPUTS: the KB browser. With them (log files, one per rank is fine, directories, .gz, or -
    for stdin): the diagnosis. Press ? for every key.

    \b
    Examples:
      vlkb tui
      vlkb tui train.log
      cat train.log | vlkb tui -
    """
    from vlkb.analyzer import InputError
    from vlkb.kb import EntryError

    with tempfile.TemporaryDirectory(prefix="vlkb-tui-") as folder:
        _remove_on_signals(folder)
        try:
            from vlkb.tui.inputs import Budget, prepare

            budget = Budget(spool_max)
            diagnose, sources = prepare(list(inputs), Path(folder), budget) if inputs else ([], {})
            from vlkb.tui.app import VlkbApp

            app = VlkbApp(diagnose, sources, list(extra_kb), notes=budget.notes)
        except (InputError, EntryError) as err:
            fail(str(err))
        app.run()
