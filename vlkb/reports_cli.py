"""`vlkb reports ...`: the index of public failure reports behind "Similar public reports"."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from .clitools import CONTEXT, emit, fail, format_option, kb_option


@click.group(context_settings=CONTEXT)
def reports() -> None:
    """Public failure reports: build their index, search it with a log, add your own.

    \b
    Examples:
      vlkb reports search train.log
      vlkb reports add https://github.com/org/repo/issues/12 --log train.log --fix "pin transformers<4.46"
      vlkb reports candidates --min 3
    """


def _engine(extra_kb=()):
    from vlkb.home import cache_dir
    from vlkb.kb import EntryError, load_engine

    try:
        return load_engine(list(extra_kb), cache_dir())
    except EntryError as err:
        fail(str(err))


@reports.command("build", context_settings=CONTEXT)
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Where to write the index (default: $VLKB_HOME/reports.db, where diagnose looks).")
@kb_option
def reports_build(out, extra_kb) -> None:
    """Build the index from the records: the shipped ones, yours ($VLKB_HOME/reports) and the KB's fixtures.

    \b
    Example:
      vlkb reports build --out /tmp/reports.db
    """
    from vlkb import report_index as store

    engine = _engine(extra_kb)
    notes: list[str] = []
    start = time.perf_counter()
    path = store.ensure(engine, Path(out) if out else None, force=True, notes=notes)
    took = time.perf_counter() - start
    counts = store.counts(path)
    for note in notes:
        click.echo(f"vlkb: {note}", err=True)
    emit(f"{path}: {counts.get('reports', 0)} reports ({counts.get('public', 0)} public records, "
         f"{counts.get('kb', 0)} KB fixtures, {counts.get('user', 0)} yours; {counts.get('skipped', 0)} with no "
         f"error vlkb can read) in {took:.1f} s, {path.stat().st_size / 2**20:.1f} MiB")


@reports.command("search", context_settings=CONTEXT)
@click.argument("inputs", nargs=-1, required=True)
@click.option("--top", type=click.IntRange(1, 20), default=3, show_default=True, help="How many reports to show.")
@kb_option
@format_option
def reports_search(inputs, top, extra_kb, fmt) -> None:
    """The public reports most like a log's root failure, whether or not the KB knows it.

    \b
    Example:
      vlkb reports search train.log --top 10 --format json
    """
    from vlkb import reports as store
    from vlkb.analyzer import InputError

    engine = _engine(extra_kb)
    try:
        d = engine.diagnose(list(inputs))
    except InputError as err:
        fail(str(err))
    found = store.similar(d, engine, k=top)
    for note in d.stats.notes:
        click.echo(f"vlkb: {note}", err=True)
    inc = store.subject(d)
    if fmt == "json":
        emit(json.dumps({"root": inc.summary if inc else None, "similar": [f.to_json() for f in found]},
                        indent=2, ensure_ascii=False))
        return
    if inc is None:
        emit("No failure found in the log: nothing to search for.")
        sys.exit(1)
    from vlkb.analyzer.report.text import similar

    emit(f"Failure: {inc.summary}")
    if not found:
        emit("No public report in the index is similar enough to show.")
        sys.exit(1)
    emit(similar(found))


@reports.command("add", context_settings=CONTEXT)
@click.argument("source")
@click.option("--log", "logs", multiple=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="With a URL: the log holding the failure the report describes (repeatable; - for stdin).")
@click.option("--title", help="The report's title.")
@click.option("--fix", "fix_text", help="What resolved it, in your words.")
@click.option("--fix-kind", type=click.Choice(["fix", "fixed-in", "workaround", "no-fix", "unknown"]), default=None,
              help="How it was resolved (default: fixed-in with --fixed-in, fix with --fix, else unknown).")
@click.option("--fixed-in", help="The release that fixed it.")
@click.option("--framework", help="The training framework (default: the one the log shows).")
@click.option("--model", help="The model (default: the one the log states).")
@kb_option
def reports_add(source, logs, title, fix_text, fix_kind, fixed_in, framework, model, extra_kb) -> None:
    """Add public reports to your index ($VLKB_HOME/reports/added.jsonl).

    SOURCE is the report's URL, with --log: the log gives the error, frames and versions; you give what
    it cannot say (title, what resolved it). Or SOURCE is a JSON-lines file of records (data/reports/README.md
    says their keys): each is checked and added.

    \b
    Examples:
      vlkb reports add https://github.com/org/repo/issues/12 --log train.log --fix "pin transformers<4.46"
      vlkb reports add team-reports.jsonl
    """
    from vlkb import report_records as records
    from vlkb import reports as store
    from vlkb.analyzer import InputError

    try:
        if not source.startswith(("https://", "http://")):
            added, notes = records.import_records(Path(source))
            for note in notes:
                click.echo(f"vlkb: {note}", err=True)
            emit(f"added {added} records from {source} to {records.user_dir() / 'added.jsonl'}"
                 f"{f'; {len(notes)} skipped' if notes else ''}; the index rebuilds on its next use")
            return
        if not logs:
            fail("a report given by its URL needs --log LOG: the error it describes")
        d = _engine(extra_kb).diagnose(list(logs))
        rec = store.from_diagnosis(d, source, title=title, fix_text=fix_text, fix_kind=fix_kind, fixed_in=fixed_in,
                                   framework=framework, model=model)
        path = records.append_user_record(rec)
    except (InputError, OSError, records.ReportError) as err:
        fail(str(err))
    emit(json.dumps(rec, indent=2, ensure_ascii=False))
    emit(f"added to {path}; the index rebuilds on its next use")


@reports.command("candidates", context_settings=CONTEXT)
@click.option("--min", "min_size", type=click.IntRange(2, 1000), default=3, show_default=True,
              help="The fewest reports of one failure that make it a candidate entry.")
@click.option("--limit", type=click.IntRange(1, 1000), default=20, show_default=True)
@kb_option
@format_option
def reports_candidates(min_size, limit, extra_kb, fmt) -> None:
    """Failures that several public reports share and no KB entry covers: the entries to write next.

    \b
    Example:
      vlkb reports candidates --min 3 --format json
    """
    from vlkb.report_promote import candidates

    engine = _engine(extra_kb)
    groups = candidates(engine, min_size)[:limit]
    if fmt == "json":
        emit(json.dumps(groups, indent=2, ensure_ascii=False))
        return
    if not groups:
        emit(f"No failure is shared by {min_size} or more reports that no entry covers.")
        return
    for g in groups:
        emit(f"{len(g['urls'])} reports: {g['quoted'][:160]}")
        for u in g["urls"][:6]:
            emit(f"    {u}")
        emit(f"  promote: vlkb kb new ID {' '.join('--from-report ' + u for u in g['urls'][:3])}")
