"""The `vlkb` command line: thin commands over vlkb.analyzer and vlkb.kb, one renderer per format.

Exit codes of `vlkb diagnose`: 0 a known failure was matched; 1 no known failure (unknown, or no
failure at all); 2 bad usage or unreadable input.
"""
from __future__ import annotations

import os
import sys

import click

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="vlkb")
def cli() -> None:
    """Diagnose failed vision-language-model training runs from their logs.

    \b
    Example:
      vlkb diagnose train.log
    """


def _kb_option(f):
    return click.option("--kb", "extra_kb", multiple=True, type=click.Path(file_okay=False),
                        help="Directory of extra KB entries (YAML); they override shipped ones by id.")(f)


def _fail(message: str) -> None:
    click.echo(f"vlkb: error: {message}", err=True)
    sys.exit(2)


@cli.command(context_settings=CONTEXT)
@click.argument("inputs", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text",
              show_default=True, help="Output format.")
@click.option("--top", type=click.IntRange(1, 20), default=3, show_default=True,
              help="How many candidate entries to report.")
@_kb_option
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
        _fail(str(err))
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
    _write(out)
    sys.exit(0 if result.verdict == "known" else 1)


def _write(text: str) -> None:
    try:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `vlkb diagnose x | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@cli.group(context_settings=CONTEXT)
def kb() -> None:
    """Browse and maintain the knowledge base.

    \b
    Example:
      vlkb kb list
    """


@kb.command("list", context_settings=CONTEXT)
@_kb_option
def kb_list(extra_kb) -> None:
    """List KB entries: id, family, title.

    \b
    Example:
      vlkb kb list --kb ./my-entries
    """
    from vlkb.kb import EntryError, load

    try:
        entries = load(list(extra_kb))
    except EntryError as err:
        _fail(str(err))
    width = max(len(e.id) for e in entries)
    for e in sorted(entries, key=lambda e: e.id):
        click.echo(f"{e.id:<{width}}  {e.title}")


@kb.command("show", context_settings=CONTEXT)
@click.argument("entry_id")
@_kb_option
def kb_show(entry_id, extra_kb) -> None:
    """Print one entry's symptom, root cause, fix and sources.

    \b
    Example:
      vlkb kb show zero-grad-reduced-twice
    """
    from vlkb.kb import EntryError, load

    try:
        entries = {e.id: e for e in load(list(extra_kb))}
    except EntryError as err:
        _fail(str(err))
    e = entries.get(entry_id)
    if e is None:
        _fail(f"no KB entry '{entry_id}' (try: vlkb kb list)")
    sections = [f"# {e.title}", f"id: {e.id}   family: {e.family}   frameworks: {', '.join(e.frameworks)}",
                "## Symptom", e.symptom, "## Root cause", e.root_cause, "## Fix", e.fix,
                "## Sources", *(f"- {s['url']}  {s.get('title', '')}" for s in e.sources),
                "## Fixtures", *(f"- {p.name}" for p in e.fixtures)]
    _write("\n\n".join(sections))


@kb.command("build", context_settings=CONTEXT)
def kb_build() -> None:
    """Refit the persisted TF-IDF index and confidence calibration from the entries and fixtures.

    Run it after editing an entry or a fixture; needs scikit-learn.

    \b
    Example:
      vlkb kb build
    """
    from vlkb.kb import EntryError
    from vlkb.kb.build import build

    try:
        report = build()
    except EntryError as err:
        _fail(str(err))
    for line in report:
        click.echo(line)


def main() -> None:
    cli(prog_name="vlkb")
