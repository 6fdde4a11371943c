"""`vlkb verify`: replay KB failures and their fixes (vlkb.verify)."""
from __future__ import annotations

import signal
import sys
from concurrent.futures import ThreadPoolExecutor

import click

from vlkb.verify.formats import FORMATS, Context

from .clitools import CONTEXT, complete_entry_ids, emit, fail, kb_option

INSTALL = "pip install 'vlkb[verify]'  (torch, transformers, deepspeed)"


@click.command(context_settings=CONTEXT)
@click.argument("entry_ids", nargs=-1, shell_complete=complete_entry_ids)
@click.option("--all", "run_all", is_flag=True, help="Every entry that has a repro.")
@click.option("--list", "list_only", is_flag=True, help="List entries with a repro, what they need, how long.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True,
              help="auto: CUDA when present (NCCL for distributed repros), else CPU (gloo).")
@click.option("--timeout", type=click.FloatRange(1, 3600), default=180, show_default=True,
              help="Seconds allowed for each run (before, after).")
@click.option("--logs", type=click.Path(file_okay=False), default=None,
              help="Where the runs' logs go (default: $VLKB_HOME/verify).")
@click.option("--stream", is_flag=True, help="Write the repros' output to stderr as it comes, each line "
              "prefixed by its side ([before], [after]; with --jobs, by its entry too); the report stays "
              "on stdout.")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Entries replayed at once (each entry's before and after stay in turn); the report "
              "keeps the entries' order. Repros are small: on CPU, up to the core count pays.")
@kb_option
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="text", show_default=True,
              help="Output format.")
def verify(entry_ids, run_all, list_only, device, timeout, logs, extra_kb, fmt, stream, jobs) -> None:
    """Replay an entry's failure ("before"), then the same run with its fix ("after"); check that the
    failure reproduced, that vlkb diagnoses its own repro's log as that entry, and that the fix passes.
    Exit 0 only when every entry is both reproduced and fixed.

    \b
    Example:
      vlkb verify tensor-does-not-require-grad
      vlkb verify --all --device cpu --format json --jobs 2
      vlkb verify ddp-mark-variable-ready-twice --stream
    """
    from pathlib import Path

    from vlkb.kb import load
    from vlkb.home import home
    from vlkb.verify.catalog import REPROS

    entries = [e for e in load(extra_kb) if e.verify.get("repro") in REPROS]
    if list_only:
        return _list(entries, fmt)
    if run_all:
        chosen = entries
    elif entry_ids:
        by_id = {e.id: e for e in entries}
        unknown = [i for i in entry_ids if i not in by_id]
        if unknown:
            fail(f"no repro for {', '.join(unknown)} (see: vlkb verify --list)")
        chosen = [by_id[i] for i in entry_ids]
    else:
        fail("name an entry, or use --all or --list")
    from vlkb.verify.runner import allow_runs, missing_modules, resolve_device, stop_all, verify as run_verify

    missing = sorted({m for e in chosen for m in missing_modules(REPROS[e.verify["repro"]])})
    if missing:
        fail(f"vlkb verify needs {', '.join(missing)}: {INSTALL}")
    from vlkb.kb import load_engine

    engine, dev = load_engine(extra_kb), resolve_device(device)
    outdir = Path(logs) if logs else home() / "verify"
    replays = []
    each = FORMATS[fmt].each

    def replay(e):
        tell = None
        if stream:
            tell = _to_stderr if jobs == 1 else (lambda text, who=e.id: _to_stderr(f"[{who}] {text}"))
        return run_verify(e, engine, dev, timeout, outdir, tell)

    previous = signal.signal(signal.SIGTERM, _stop)  # a TUI cancelling us: unwind, so the repros are killed
    allow_runs()
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="vlkb-verify")
    try:
        for v in pool.map(replay, chosen):  # in the entries' order, whichever ends first
            replays.append(v)
            if each is not None:
                emit(each(v))
    except BaseException:  # SIGTERM, Ctrl-C: every repro still running goes too, and none starts
        stop_all()
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        pool.shutdown(wait=False, cancel_futures=True)
    emit(FORMATS[fmt].render(replays, Context(dev, outdir)))
    sys.exit(0 if all(v.ok for v in replays) else 1)


def _stop(signum, frame) -> None:
    sys.exit(128 + signum)


def _to_stderr(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _list(entries, fmt) -> None:
    from vlkb.verify.catalog import REPROS

    emit(FORMATS[fmt].listing([(e.id, REPROS[e.verify["repro"]]) for e in entries]))
