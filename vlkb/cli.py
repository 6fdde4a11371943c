"""The `vlkb` command line: thin commands over vlkb.analyzer and vlkb.kb, one renderer per format.

Exit codes of `vlkb diagnose`: 0 an entry was named (a known failure, or a warning a silent entry
suspects); 1 none (unknown, or no failure at all); 2 bad usage or unreadable input.
"""
from __future__ import annotations

import os
import sys

import click

from .clitools import CONTEXT, emit, fail, kb_option
from .kb_cli import kb
from .verify_cli import verify


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="vlkb")
def cli() -> None:
    """Diagnose failed vision-language-model training runs from their logs.

    \b
    Example:
      vlkb diagnose train.log
    """


@cli.command(context_settings=CONTEXT)
@click.argument("inputs", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text",
              show_default=True, help="Output format.")
@click.option("--top", type=click.IntRange(1, 20), default=3, show_default=True,
              help="How many candidate entries to report.")
@kb_option
@click.option("--color/--no-color", default=None, help="Force colours on or off (NO_COLOR is honoured).")
def diagnose(inputs, fmt, top, extra_kb, color) -> None:
    """Find the root failure in training logs and match it against the KB.

    INPUTS are log files (one per rank is fine), directories, .gz files, or - for stdin.

    \b
    Examples:
      vlkb diagnose train.log
      vlkb diagnose logs/rank*.log --format json
      cat ci.log | vlkb diagnose - --format markdown
    """
    from vlkb.analyzer import Engine, InputError
    from vlkb.kb import EntryError

    try:
        engine = Engine.load(list(extra_kb))
        result = engine.diagnose(list(inputs), top=top)
    except (InputError, EntryError) as err:
        fail(str(err))
    except KeyboardInterrupt:
        sys.exit(130)
    if fmt == "json":
        from vlkb.analyzer.report.json_ import render
        out = render(result)
    elif fmt == "markdown":
        from vlkb.analyzer.report.markdown import render
        out = render(result)
    else:
        from vlkb.analyzer.report.text import render
        if color is None:
            color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        out = render(result, color=color)
    emit(out)
    sys.exit(0 if result.named else 1)


cli.add_command(kb)
cli.add_command(verify)


def main() -> None:
    cli(prog_name="vlkb")
