#!/usr/bin/env python3
"""Keep what `vlkb verify` runs: each repro's "before" log becomes a positive fixture of its entry
(`<id>.pos-verify-<repro>.log`, #=MATCH=# on the line vlkb cites) and each "after" log a healthy
corpus log (`data/corpus/healthy/verify-<repro>.log`). Both are verbatim real runs of the shipped
repros; the source line names the repro and the versions it ran with.

  python scripts/capture_verify_logs.py [--device cpu] [--only REPRO ...]
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from vlkb.kb import load_engine
from vlkb.kb import fixtures as fx
from vlkb.kb import load
from vlkb.verify.catalog import REPROS
from vlkb.verify.runner import run_once

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--only", nargs="*", default=None, help="repro names (default: all)")
    a = ap.parse_args()
    engine, tmp = load_engine(), Path(tempfile.mkdtemp())
    for entry in load():
        repro = REPROS.get(entry.verify.get("repro"))
        if repro is None or (a.only is not None and repro.name not in a.only):
            continue
        before = run_once(repro, "before", a.device, 300, tmp / entry.id)
        after = run_once(repro, "after", a.device, 300, tmp / entry.id)
        env = ", ".join(f"{k} {v}" for k, v in before.env.items() if k in ("torch", "transformers", "deepspeed"))
        source = f"{fx.SOURCE}vlkb verify {repro.name} ({env}, {a.device}, world size {repro.world_size})"
        if repro.diagnosable and before.exit_code not in (0, None):
            _fixture(engine, entry, repro, before.log, source)
        if after.exit_code == 0:
            out = ROOT / "data/corpus/healthy" / f"verify-{repro.name}.log"
            out.write_bytes(after.log.read_bytes())
            print(f"wrote {out.relative_to(ROOT)}")


def _fixture(engine, entry, repro, log: Path, source: str) -> None:
    d = engine.diagnose([str(log)])
    if not d.named or d.named.entry.id != entry.id:
        print(f"skip {entry.id}: its before log is not diagnosed as the entry")
        return
    cite = d.matches[0].evidence[0].lineno
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    body = [fx.MATCH + l if i == cite else l for i, l in enumerate(lines, 1)]
    note = f"{fx.NOTE}the 'before' run of vlkb's repro: {repro.before}"
    out = entry.path.parent / f"{entry.id}.pos-verify-{repro.name}.log"
    out.write_text("\n".join([source, note, *body]) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
