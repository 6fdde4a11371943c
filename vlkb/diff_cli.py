"""`vlkb diff HEALTHY FAILED`: the line templates a failed run printed and a healthy run never did."""
from __future__ import annotations

import json
import sys

import click

from .clitools import CONTEXT, emit, fail, format_option, kb_option


@click.command(context_settings=CONTEXT)
@click.argument("healthy")
@click.argument("failed")
@format_option
@click.option("--limit", type=click.IntRange(1, 10_000), default=40, show_default=True,
              help="How many new templates to list (all are counted).")
@click.option("--root/--no-root", default=True, show_default=True,
              help="Diagnose FAILED too and mark the new template that holds its root failure.")
@kb_option
def diff(healthy, failed, fmt, limit, root, extra_kb) -> None:
    """What is different this time: the lines of FAILED whose template (the line with its time, rank and
    host prefixes removed and its numbers, ids, hex and paths masked) never appears in HEALTHY, a run of
    the same job that went well, in the order they first appear. The first one is marked; so is the
    one that holds the root failure `vlkb diagnose FAILED` names.

    HEALTHY and FAILED are each a log file, a directory of rank/node files, a .gz file or - (one of
    them). Exit status: 0 no new template, 1 some, 2 bad usage or unreadable input.

    \b
    Examples:
      vlkb diff runs/ok-1104/train.log runs/failed-1105/train.log
      vlkb diff runs/ok-1104/ runs/failed-1105/ --format json --limit 200
    """
    from vlkb import diff as differ
    from vlkb.analyzer import InputError

    if healthy == "-" and failed == "-":
        fail("only one of HEALTHY and FAILED can be - (standard input)")
    try:
        result = differ.compare([healthy], [failed])
        if root:
            _mark_root(result, failed, extra_kb)
    except InputError as err:
        fail(str(err))
    if fmt == "json":
        emit(json.dumps(differ.to_json(result, limit), indent=2, ensure_ascii=False))
    else:
        emit(_text(result, limit))
    sys.exit(1 if result.new else 0)


def _mark_root(result, failed: str, extra_kb) -> None:
    """Mark the root: the failed run diagnosed as `vlkb diagnose` would (a pipe cannot be read twice)."""
    from vlkb import diff as differ
    from vlkb.home import cache_dir
    from vlkb.kb import EntryError, load_engine

    if failed == "-":
        return
    try:
        d = load_engine(list(extra_kb), cache_dir()).diagnose([failed])
    except EntryError as err:
        fail(str(err))
    differ.mark_root(result, d.root.quoted.text if d.root else None)


def _text(result, limit: int) -> str:
    h, f = result.healthy, result.failed
    lines = [f"{len(result.new):,} line template{'s' if len(result.new) != 1 else ''} of the failed run never "
             f"appear in the healthy run", f"  healthy: {', '.join(h.inputs)} ({h.lines:,} lines, "
             f"{len(h.templates):,} templates)", f"  failed:  {', '.join(f.inputs)} ({f.lines:,} lines, "
             f"{len(f.templates):,} templates)", ""]
    for i, s in enumerate(result.new[:limit]):
        mark = "first" if i == 0 else ""
        if i == result.root:
            mark = f"{mark}+root" if mark else "root"
        count = f"  (x{s.count:,})" if s.count > 1 else ""
        lines.append(f"{mark:<10} {s.path}:{s.lineno}  {s.text[:300]}{count}")
    if len(result.new) > limit:
        lines.append(f"... and {len(result.new) - limit:,} more (--limit)")
    if result.root is None and result.new:
        lines += ["", "The root failure's line is not among the new templates (or no root was found)."]
    lines += [f"note: {n}" for n in result.notes]
    return "\n".join(lines)
