"""Shared option bundles and output helpers for the click commands (STYLE.md 9)."""
from __future__ import annotations

import os
import sys

import click

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def kb_option(f):
    return click.option("--kb", "extra_kb", multiple=True, type=click.Path(file_okay=False),
                        help="Directory of extra KB entries (YAML); they override shipped ones by id.")(f)


def format_option(f):
    return click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                        show_default=True, help="Output format.")(f)


def complete_entry_ids(ctx, param, incomplete: str) -> list:
    """Shell completion of an entry id (`vlkb kb show zero-<TAB>`): the shipped entries' folders,
    named by id, and those of the --kb directories already on the command line. No YAML is read."""
    from click.shell_completion import CompletionItem

    from vlkb.kb.loader import kb_dirs

    ids = set()
    for directory in kb_dirs((ctx.params or {}).get("extra_kb") or ()):
        if directory.is_dir():
            ids |= {p.parent.name for p in directory.glob("*/*.yaml") if p.stem == p.parent.name}
    return [CompletionItem(i) for i in sorted(ids) if i.startswith(incomplete)]


def fail(message: str) -> None:
    click.echo(f"vlkb: error: {message}", err=True)
    sys.exit(2)


def emit(text: str | bytes) -> None:
    """The report to standard output: text ends with a newline; bytes (a binary format) go as they are."""
    try:
        if isinstance(text, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(text)
        else:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `vlkb ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as err:  # a full disk, /dev/full, a closed terminal: say so, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit flush must not raise again
        fail(f"cannot write the report to standard output ({err.strerror or err})")
