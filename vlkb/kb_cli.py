"""`vlkb kb ...`: browse, search, lint, scaffold and maintain the knowledge base.

The group and the commands that read the KB (list, show, search, build) are here; those that check,
extend and refit it (lint, new, report, fit) are in kb_maintain_cli.py.
"""
from __future__ import annotations

import json

import click

from .clitools import CONTEXT, complete_entry_ids, emit, fail, format_option, kb_option
from .kb_maintain_cli import kb_fit, kb_lint, kb_new, kb_report


@click.group(context_settings=CONTEXT)
def kb() -> None:
    """Browse, search, lint and extend the knowledge base.

    \b
    Example:
      vlkb kb search "marked as ready twice"
    """


for _command in (kb_lint, kb_new, kb_report, kb_fit):
    kb.add_command(_command)


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
