"""`vlkb verify`'s output formats, by name, as a diagnosis's are in `vlkb.analyzer.report`: a format is
one function that renders the replays once every entry has run, one that renders the catalogue
(`--list`), and one line in FORMATS. A format may also write a line as each entry finishes, so a long
`--all` shows its progress."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # `vlkb verify --help` imports this module; the runner only when entries run
    from .catalog import Repro
    from .runner import Replay

    Listing = list[tuple[str, Repro]]  # (entry id, its repro), as `--list` shows them


@dataclass(frozen=True)
class Context:
    """What a format may need beyond the replays."""

    device: str  # where the repros ran ("cpu", "cuda")
    logs: Path  # where their logs are kept


@dataclass(frozen=True)
class Format:
    render: Callable[[list[Replay], Context], str]  # written once all entries have run
    listing: Callable[[Listing], str]  # the entries that have a repro (`--list`)
    each: Callable[[Replay], str] | None = None  # written as each entry finishes


def line(v: Replay) -> str:
    """One entry's outcome: reproduced (how its log was diagnosed), fixed, and a mechanism-only note."""
    mark = "ok  " if v.ok else "FAIL"
    b, a = v.before, v.after
    seen = (f"diagnosed {b.diagnosis} {b.confidence:.2f}" if b.diagnosis else "not diagnosed") \
        if v.closed_loop is not None else "closed loop n/a"
    return (f"{mark} {v.entry:<36} reproduced={'yes' if v.reproduced else 'no'} ({b.ended}, {seen}, {b.seconds:.1f} s)"
            f"  fixed={'yes' if v.fixed else 'no'} ({a.ended}, {a.seconds:.1f} s)"
            + (f"\n     note: {v.repro.mechanism_only}" if v.repro.mechanism_only else ""))


def summary(replays: list[Replay], ctx: Context) -> str:
    ok = sum(v.ok for v in replays)
    return f"{ok}/{len(replays)} reproduced and fixed on {ctx.device}; logs in {ctx.logs}"


def as_dict(v: Replay) -> dict:
    """One entry's outcome in the JSON report (the TUI's verify panel reads it)."""
    run = lambda r: {"exit_code": r.exit_code, "timed_out": r.exit_code is None, "seconds": r.seconds,  # noqa: E731
                     "log": str(r.log), "diagnosis": r.diagnosis, "confidence": r.confidence, "env": r.env}
    return {"entry": v.entry, "family": v.family, "repro": v.repro.name, "device": v.device,
            "reproduced": v.reproduced, "closed_loop": v.closed_loop, "fixed": v.fixed, "ok": v.ok,
            "mechanism_only": v.repro.mechanism_only or None, "before": run(v.before), "after": run(v.after)}


def as_json(replays: list[Replay], ctx: Context) -> str:
    return json.dumps([as_dict(v) for v in replays], indent=2)


def catalogue(rows: Listing) -> str:
    """One line per entry with a repro: the repro, what it needs, how many processes, how long."""
    return "\n".join(f"{i:<36} {r.name:<40} needs {'+'.join(r.needs)}, {r.world_size} process(es), ~{r.seconds} s"
                     for i, r in rows)


def catalogue_json(rows: Listing) -> str:
    return json.dumps([{"entry": i, "repro": r.name, "needs": list(r.needs), "world_size": r.world_size,
                        "seconds": r.seconds, "before": r.before, "after": r.after,
                        "mechanism_only": r.mechanism_only or None} for i, r in rows], indent=2)


# name -> Format; `vlkb verify --format` offers these names
FORMATS = {"text": Format(summary, catalogue, each=line), "json": Format(as_json, catalogue_json)}


def render(fmt: str, replays: list[Replay], ctx: Context) -> str:
    """The replays in format `fmt` (a FORMATS name), once every entry has run."""
    return FORMATS[fmt].render(replays, ctx)
