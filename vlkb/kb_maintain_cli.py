"""`vlkb kb lint|new|report|fit`: check, extend and refit the knowledge base (the `kb` group is kb_cli.py)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from .clitools import CONTEXT, emit, fail, format_option, kb_option


@click.command("lint", context_settings=CONTEXT)
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


@click.command("new", context_settings=CONTEXT)
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


@click.command("report", context_settings=CONTEXT)
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


@click.command("fit", context_settings=CONTEXT)
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
