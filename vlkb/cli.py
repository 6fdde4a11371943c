"""The `vlkb` command line: thin commands over vlkb.analyzer and vlkb.kb (formats: vlkb.analyzer.report).

Exit codes of `vlkb diagnose`: 0 an entry was named (a known failure, or a warning a silent entry
suspects); 1 none (unknown, or no failure at all); 2 bad usage or unreadable input. With
`--fail-on`, 1 means the step should fail (see FAIL_ON) and 0 that it should not.
"""
from __future__ import annotations

import os
import sys

import click

from vlkb.analyzer.report import FORMATS

from .clitools import CONTEXT, emit, fail, kb_option

# --fail-on: which verdicts fail a CI step (exit 1)
FAIL_ON = {"known": {"known", "suspicious"}, "unknown": {"unknown"}, "any": {"known", "suspicious", "unknown"},
           "never": set()}


# the other commands, imported when one is run: `vlkb diagnose` needs none of them (a fifth of its
# start-up on a small log), nor does `vlkb --help`, which lists each by the first paragraph of its help,
# kept here (tests/test_cli.py holds it to the command's own)
LAZY = {
    "kb": ("kb_cli", "Browse, search, lint and extend the knowledge base."),
    "history": ("history_cli", "List recent diagnoses and the most frequent failures that `vlkb diagnose` recorded."),
    "reports": ("reports_cli", "Public failure reports: build their index, search it with a log, add your own."),
    "triage": ("triage_cli", "Diagnose every failed job of a fleet and group them: by entry, by fingerprint, new "
               "ones, and the hosts and ranks that hold more failed roots than chance."),
    "diff": ("diff_cli", "What is different this time: the lines of FAILED whose template (the line with its time, "
             "rank and host prefixes removed and its numbers, ids, hex and paths masked) never appears in HEALTHY, "
             "a run of the same job that went well, in the order they first appear."),
    "verify": ("verify_cli", 'Replay an entry\'s failure ("before"), then the same run with its fix ("after"); check '
               "that the failure reproduced, that vlkb diagnoses its own repro's log as that entry, and that the "
               "fix passes."),
    "tui": ("tui_cli", "Browse the KB, or read the diagnosis of training logs pinned on the log itself, and replay "
            "a fix."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY and name not in self.commands:
            import importlib

            self.add_command(getattr(importlib.import_module(f"vlkb.{LAZY[name][0]}"), name))
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's list of commands, each lazy one shortened from its stored paragraph, not imported."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        rows = [(n, (self.commands.get(n) or click.Command(n, help=LAZY[n][1])).get_short_help_str(limit))
                for n in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings=CONTEXT)
@click.version_option(package_name="vlkb")
def cli() -> None:
    """Diagnose failed vision-language-model training runs from their logs.

    \b
    Example:
      vlkb diagnose train.log
    """


@cli.command(context_settings=CONTEXT)
@click.argument("inputs", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="text",
              show_default=True, help="Output format: markdown is the CI triage comment, github the Actions "
              "annotations (plus the comment in $GITHUB_STEP_SUMMARY), sarif SARIF 2.1.0.")
@click.option("--top", type=click.IntRange(1, 20), default=3, show_default=True,
              help="How many candidate entries to report.")
@kb_option
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", is_flag=False,
              flag_value="always", show_default=True,
              help="Colours in the text report: auto (on a terminal, unless NO_COLOR is set), always, never; "
              "a bare --color is always.")
@click.option("--no-color", is_flag=True, help="Same as --color=never.")
@click.option("--fail-on", type=click.Choice(list(FAIL_ON)), default=None,
              help="Exit 1 when the verdict is: known (a KB failure or a suspicious run), unknown, any failure, "
              "or never. Without it: 0 when an entry was named, else 1.")
@click.option("--history", "history_path", type=click.Path(dir_okay=False), default=None,
              help="History database (default: $VLKB_HOME/history.db); a CI cache path keeps it across jobs.")
@click.option("--no-history", is_flag=True, help="Neither read nor record the history.")
@click.option("--jobs", type=click.IntRange(1, 2), default=None,
              help="Processes that read a regular file: 2 finds its candidate lines in two child processes while "
              "this one parses them, 1 reads in this one. Default: 2 for a file of 64 MiB or more when two "
              "cores are free. Pipes are read in one.")
@click.option("--similar/--no-similar", default=None,
              help="Similar public reports (issue threads of the same failure, with what resolved them): shown for "
              "an unknown failure unless --no-similar; --similar shows them for a known one too.")
def diagnose(inputs, fmt, top, extra_kb, color, no_color, fail_on, history_path, no_history, jobs, similar) -> None:
    """Find the root failure in training logs and match it against the KB.

    INPUTS are log files (one per rank is fine), directories, .gz files, or - for stdin.

    \b
    Examples:
      vlkb diagnose train.log
      vlkb diagnose logs/rank*.log --format json
      cat ci.log | vlkb diagnose - --format markdown --fail-on any
      vlkb diagnose train.log --format sarif --history .vlkb-cache/history.db > vlkb.sarif
    """
    from vlkb.analyzer import InputError
    from vlkb.home import cache_dir
    from vlkb.kb import EntryError, load_engine

    try:
        engine = load_engine(list(extra_kb), cache_dir())
        result = engine.diagnose(list(inputs), top=top, jobs=jobs)
    except (InputError, EntryError) as err:
        fail(str(err))
    except KeyboardInterrupt:
        sys.exit(130)
    if similar or (similar is None and result.verdict == "unknown"):
        from vlkb import reports

        result.similar = reports.similar(result, engine)
    if not no_history:
        result.seen = _remember(result, history_path)
    from vlkb.analyzer.report import Context, render

    color = "never" if no_color else color
    on = color == "always" or (color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    emit(render(fmt, result, Context(tuple(engine.entries), on)))
    if fail_on is not None:
        sys.exit(1 if result.verdict in FAIL_ON[fail_on] else 0)
    sys.exit(0 if result.named else 1)


def _remember(result, path):
    """Record the diagnosis; a history that cannot be written costs a note, never the diagnosis."""
    import sqlite3
    from pathlib import Path

    from vlkb import history

    try:
        return history.record(Path(path) if path else history.default_path(), result)
    except (OSError, sqlite3.Error) as err:
        result.stats.notes.append(f"history not recorded: {err}")
        return None


def main(argv: list[str] | None = None) -> None:
    try:
        cli(args=_bare_color(sys.argv[1:] if argv is None else argv), prog_name="vlkb")
    except OSError as err:  # the environment refused (a home that cannot be written, a full disk): one line
        from vlkb.home import refused

        fail(refused(err))


def _bare_color(args: list[str]) -> list[str]:
    """`--color` takes its value as GNU tools do, after `=` (`--color=never`) or as the next word when
    that is one of its values; alone it means always, so `vlkb diagnose --color train.log` keeps working."""
    out = []
    for i, a in enumerate(args):
        if a == "--":
            return out + args[i:]
        nxt = args[i + 1] if i + 1 < len(args) else None
        out.append("--color=always" if a == "--color" and nxt not in ("auto", "always", "never") else a)
    return out
