"""`vlkb tui`: the Textual TUI (vlkb.tui), imported only when this command runs."""
from __future__ import annotations

import tempfile
from pathlib import Path

import click

from .clitools import CONTEXT, fail, kb_option


@click.command(context_settings=CONTEXT)
@click.argument("inputs", nargs=-1)
@kb_option
def tui(inputs, extra_kb) -> None:
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
        try:
            from vlkb.tui.inputs import prepare

            diagnose, sources = prepare(list(inputs), Path(folder)) if inputs else ([], {})
            from vlkb.tui.app import VlkbApp

            app = VlkbApp(diagnose, sources, list(extra_kb))
        except (InputError, EntryError) as err:
            fail(str(err))
        app.run()
