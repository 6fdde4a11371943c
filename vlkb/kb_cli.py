"""`vlkb kb ...`: browse, search, lint, scaffold and maintain the knowledge base."""
from __future__ import annotations

import json
from pathlib import Path

import click

from .clitools import CONTEXT, complete_entry_ids, emit, fail, format_option, kb_option


@click.group(context_settings=CONTEXT)
def kb() -> None:
    """Browse, search, lint and extend the knowledge base.

    \b
    Example:
      vlkb kb search "marked as ready twice"
    """


def _entries(extra_kb):
    from vlkb.kb import EntryError, load

    try:
        return load(list(extra_kb))
    except EntryError as err:
        fail(str(err))


@kb.command("list", context_settings=CONTEXT)
@click.option("--family", help="Only entries of this family.")
@click.option("--framework", help="Only entries seen with this framework (deepspeed, ms-swift, ...).")
@click.option("--tag", help="Only entries with this tag (vlm, distributed, precision, ...).")
@kb_option
@format_option
def kb_list(family, framework, tag, extra_kb, fmt) -> None:
    """List KB entries: id and title, and the family where it is not the id.

    \b
    Examples:
      vlkb kb list --tag vlm
      vlkb kb list --framework deepspeed --format json
    """
    from vlkb.kb.docs import select

    rows = select(_entries(extra_kb), family, framework, tag)
    if fmt == "json":
        emit(json.dumps([{"id": e.id, "family": e.family, "title": e.title, "frameworks": e.frameworks,
                          "tags": e.tags} for e in rows], indent=2))
        return
    width = max((len(e.id) for e in rows), default=0)
    emit("\n".join(f"{e.id:<{width}}  {e.title}" + (f"  (family {e.family})" if e.family != e.id else "")
                   for e in rows) or "no entries match")


@kb.command("show", context_settings=CONTEXT)
@click.argument("entry_id", shell_complete=complete_entry_ids)
@kb_option
@format_option
def kb_show(entry_id, extra_kb, fmt) -> None:
    """Print one entry in fixed sections: symptom, root cause, fix, conditions and advice on the run's
    facts, sources, fixtures.

    \b
    Example:
      vlkb kb show zero-grad-reduced-twice
    """
    entries = {e.id: e for e in _entries(extra_kb)}
    e = entries.get(entry_id)
    if e is None:
        fail(f"no KB entry '{entry_id}' (try: vlkb kb search {entry_id.replace('-', ' ')})")
    if fmt == "json":
        emit(json.dumps({"id": e.id, "family": e.family, "title": e.title, "symptom": e.symptom,
                         "root_cause": e.root_cause, "fix": e.fix, "frameworks": e.frameworks, "tags": e.tags,
                         "silent": e.silent, "conditions": [vars(c) for c in e.conditions],
                         "unless": [vars(c) for c in e.unless],
                         "advice": [{"when": [vars(c) for c in a.when], "text": a.text} for a in e.advice],
                         "sources": e.sources, "verify": e.verify, "fixtures": [p.name for p in e.fixtures],
                         "path": str(e.path)}, indent=2))
        return
    from vlkb.kb.docs import entry_markdown

    emit(entry_markdown(e))


@kb.command("search", context_settings=CONTEXT)
@click.argument("query")
@click.option("--limit", type=click.IntRange(1, 100), default=10, show_default=True)
@kb_option
@format_option
def kb_search(query, limit, extra_kb, fmt) -> None:
    """Full-text search (SQLite FTS5, ranked) over titles, symptoms, causes, fixes and messages.

    \b
    Example:
      vlkb kb search "gradient computed twice"
    """
    from vlkb.kb import EntryError
    from vlkb.kb.search import search

    try:
        rows = search(query, list(extra_kb), limit)
    except EntryError as err:
        fail(str(err))
    if fmt == "json":
        emit(json.dumps(rows, indent=2))
        return
    if not rows:
        emit(f"no entry matches {query!r}")
        return
    emit("\n".join(f"{r['id']}  {r['title']}\n    {' '.join(r['snippet'].split())}" for r in rows))


@kb.command("build", context_settings=CONTEXT)
@click.option("--force", is_flag=True, help="Rebuild even when the KB has not changed.")
@kb_option
def kb_build(force, extra_kb) -> None:
    """Compile the KB (shipped, VLKB_KB_PATH and --kb entries) into the SQLite index in VLKB_HOME.

    Search builds it on first use; run this to rebuild by hand.

    \b
    Example:
      VLKB_HOME=/tmp/vlkb vlkb kb build --kb ./team-entries
    """
    import sqlite_utils

    from vlkb.kb import EntryError
    from vlkb.kb.search import ensure

    try:
        path = ensure(list(extra_kb), force=force)
    except EntryError as err:
        fail(str(err))
    db = sqlite_utils.Database(path)
    counts = ", ".join(f"{db[t].count} {t}" for t in ("entries", "patterns", "messages", "sources", "fixtures"))
    emit(f"{path}: {counts}")


@kb.command("lint", context_settings=CONTEXT)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@kb_option
@format_option
def kb_lint(strict, extra_kb, fmt) -> None:
    """Check every entry and fixture; each problem names the file, the key and the fix.

    Exit 1 when there are errors (or warnings, with --strict).

    \b
    Example:
      vlkb kb lint --kb ./team-entries
    """
    import sys

    from vlkb.kb.lint import lint

    found = lint(list(extra_kb))
    if fmt == "json":
        emit(json.dumps([p.as_dict() for p in found], indent=2))
    else:
        errors = sum(p.severity == "error" for p in found)
        emit("\n".join(map(str, found)) + ("\n" if found else "") +
             f"{errors} errors, {len(found) - errors} warnings")
    bad = [p for p in found if strict or p.severity == "error"]
    sys.exit(1 if bad else 0)


@kb.command("new", context_settings=CONTEXT)
@click.argument("entry_id")
@click.option("--from", "logs", multiple=True, type=click.Path(dir_okay=False),
              help="The log holding the failure (repeatable, one per rank).")
@click.option("--from-report", "report_urls", multiple=True,
              help="A public report of the index (`vlkb reports candidates` lists frequent ones): the first "
              "gives the scaffold, each further one a fixture (repeatable).")
@click.option("--dir", "dest", type=click.Path(file_okay=False), default="kb-local", show_default=True,
              help="Directory of your own entries (use it with --kb or VLKB_KB_PATH).")
@click.option("--source", help="Public URL of the report the log comes from.")
@click.option("--family", help="Family id when this refines an existing failure.")
def kb_new(entry_id, logs, report_urls, dest, source, family) -> None:
    """Scaffold an entry and its first fixture from a log, or from public reports: real text in, TODOs
    where you write.

    \b
    Examples:
      vlkb kb new vision-tower-oom --from train.log --source https://github.com/org/repo/issues/1
      vlkb kb new vision-tower-oom --from-report https://github.com/org/repo/issues/1 --from-report URL2
    """
    from vlkb.analyzer import InputError
    from vlkb.kb import EntryError
    from vlkb.kb.scaffold import scaffold

    if bool(logs) == bool(report_urls):
        fail("give the failure with --from LOG or with --from-report URL (one of the two)")
    try:
        if report_urls:
            from vlkb.report_promote import promote

            written = promote(entry_id, list(report_urls), Path(dest), family)
        else:
            written = scaffold(entry_id, list(logs), Path(dest), source, family)
    except (InputError, EntryError, ValueError) as err:
        fail(str(err))
    emit("\n".join(f"wrote {p}" for p in written) +
         f"\nnext: fill the TODOs, then `vlkb kb lint --kb {dest}` and `vlkb diagnose LOG --kb {dest}`")


@kb.command("report", context_settings=CONTEXT)
@format_option
def kb_report(fmt) -> None:
    """Cross-check every entry against every fixture: precision and recall per family, abstention on
    unknown fixtures, and the confusion matrix.

    \b
    Example:
      vlkb kb report
    """
    from vlkb.kb import load, load_engine
    from vlkb.kb import accuracy as r

    entries = load()
    outcomes = r.evaluate(load_engine(), entries)
    families = sorted({e.family for e in entries})
    if fmt == "json":
        emit(json.dumps({"summary": r.summary(outcomes),
                         "families": [dict(zip(("family", "positives", "precision", "recall"), row))
                                      for row in r.family_table(outcomes, families)],
                         "outcomes": [{"fixture": o.fixture.name, "truth": o.truth, "predicted": o.predicted,
                                       "confidence": o.confidence, "others_above": o.others_above}
                                      for o in outcomes]}, indent=2))
        return
    emit(r.markdown_table(outcomes, families) + "\n\nConfusion matrix (rows: truth, columns: prediction)\n\n"
         + r.confusion(outcomes, families))


@kb.command("fit", context_settings=CONTEXT)
def kb_fit() -> None:
    """For KB maintainers: refit the persisted TF-IDF and the confidence calibration on the fixtures,
    and regenerate kb/INDEX.md and the README's accuracy table. Needs scikit-learn and a source checkout.

    \b
    Example:
      vlkb kb fit
    """
    from vlkb.kb import EntryError
    from vlkb.kb.fit import fit

    try:
        notes = fit()
    except EntryError as err:
        fail(str(err))
    emit("\n".join(notes))
