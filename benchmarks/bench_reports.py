#!/usr/bin/env python3
"""Benchmark the index of public reports (vlkb/report_index.py): its size and build time, the search
latency per diagnosis, and what it costs `vlkb diagnose`.

  python benchmarks/bench_reports.py [--scale 10000] [--runs 3]

- build: `report_index.ensure(force=True)` over the shipped records and the KB's fixtures, and over an
  index scaled to --scale reports (the shipped records repeated under other thread numbers: the same texts,
  so the candidate sets are as crowded as the real ones, and larger);
- search: `Index.search` for the root of every dev case of the field corpus that has a signature
  (real logs), median and 95th percentile;
- diagnose: wall time of `vlkb diagnose` on a known log (the index is never opened) and on an unknown
  one (opened, warm), median of --runs.
Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from score_field import FIELD, load_cases  # noqa: E402

from vlkb import report_index, report_records, reports  # noqa: E402
from vlkb.kb import load_engine  # noqa: E402

KNOWN = ROOT / "data/samples/ms-swift-minicpmv-dpo-zero2.log"
UNKNOWN = ROOT / "kb/unknown/torch-restore-location-mps.log"


def build(engine, records: Path, home: Path) -> tuple[float, dict, float]:
    """Seconds to build, the counts, MiB on disk."""
    original = report_records.shipped_dir
    report_records.shipped_dir = lambda: records
    try:
        t = time.perf_counter()
        path = report_index.ensure(engine, home / report_index.DB_NAME, force=True)
        took = time.perf_counter() - t
    finally:
        report_records.shipped_dir = original
    return took, report_index.counts(path), path.stat().st_size / 2**20


def scaled(records: Path, target: int, out: Path) -> Path:
    """The shipped records repeated under distinct URLs until about `target` reports."""
    lines = [line for p in sorted(records.glob("*.jsonl")) for line in p.read_text(encoding="utf-8").splitlines() if line]
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "scaled.jsonl", "w", encoding="utf-8") as f:
        n, copy = 0, 0
        while n < target:
            for line in lines:
                d = json.loads(line)
                if copy:  # another thread number: copies are not folded into one report
                    head, _, number = d["url"].rpartition("/")
                    d["url"] = f"{head}/{number}{copy:04d}"
                f.write(json.dumps(d, ensure_ascii=False) + "\n")
                n += 1
                if n >= target:
                    break
            copy += 1
    return out


def search_latency(engine, path: Path) -> tuple[int, float, float, float]:
    """(queries, median ms, p95 ms, max ms) over the dev cases' root signatures."""
    sigs = []
    for case in load_cases("dev"):
        sig = reports.query(engine.diagnose([str(FIELD / case["file"])]))
        if sig is not None:
            sigs.append(sig)
    index = report_index.Index(path)
    times = []
    for sig in sigs:
        t = time.perf_counter()
        index.search(sig, 3)
        times.append((time.perf_counter() - t) * 1000)
    index.close()
    times.sort()
    return len(times), statistics.median(times), times[int(len(times) * 0.95) - 1], times[-1]


def diagnose_wall(log: Path, home: Path, runs: int) -> float:
    env = {**os.environ, "VLKB_HOME": str(home)}
    cmd = [sys.executable, "-m", "vlkb", "diagnose", str(log), "--no-history", "--format", "json"]
    subprocess.run(cmd, env=env, capture_output=True)  # warm: the index is built here the first time
    walls = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True)
        walls.append(time.perf_counter() - t)
    return statistics.median(walls)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    engine = load_engine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for label, records in (("shipped", report_records.shipped_dir()),
                               (f"scaled to {a.scale:,}",
                                scaled(report_records.shipped_dir(), a.scale, tmp / "scaled"))):
            home = tmp / label.replace(" ", "-").replace(",", "")
            took, counts, mib = build(engine, records, home)
            n, med, p95, worst = search_latency(engine, home / report_index.DB_NAME)
            rows.append((label, counts["reports"], counts["public"], counts["kb"], took, mib, n, med, p95, worst))
        known = diagnose_wall(KNOWN, tmp / "shipped", a.runs)
        unknown = diagnose_wall(UNKNOWN, tmp / "shipped", a.runs)
    print("| index | reports | public | KB fixtures | build s | MiB | queries | search median ms | p95 ms | max ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, total, public, kb, took, mib, n, med, p95, worst in rows:
        print(f"| {label} | {total:,} | {public:,} | {kb:,} | {took:.1f} | {mib:.1f} | {n} | {med:.1f} | {p95:.1f} | {worst:.1f} |")
    print()
    print(f"vlkb diagnose, known root (index not opened): {known * 1000:.0f} ms median of {a.runs}")
    print(f"vlkb diagnose, unknown root (index opened, warm): {unknown * 1000:.0f} ms median of {a.runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
