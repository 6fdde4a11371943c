#!/usr/bin/env python3
"""Benchmark `vlkb triage` on a generated fleet: jobs/s and MB/s with 1 and 2 workers, and on Ray.

  python benchmarks/bench_triage.py [--jobs 1000] [--runs 1] [--large 24 --large-mb 8]

The fleet is the KB's positive fixtures (real logs, markers removed) cycled into --jobs jobs; every
fifth job is a directory of two rank files (the fixture and the next one), as a multi-node job
arrives: it measures the per-job cost. With --large N, a second fleet of N noisy 8-rank logs of
--large-mb MB each (benchmarks/mixes.py's noisy mix, its failure at the end) measures MB/s. Prints
figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(ROOT / "benchmarks"))
import mixes  # noqa: E402

from vlkb.kb import fixtures as fx  # noqa: E402
from vlkb.kb import load  # noqa: E402


def fleet(n: int, out: Path) -> int:
    texts = [fx.parse(p).text for e in load() for p in e.fixtures if ".pos-" in p.name]
    size = 0
    for i in range(n):
        a, b = texts[i % len(texts)], texts[(i + 1) % len(texts)]
        if i % 5 == 4:
            job = out / f"job-{i:05d}"
            job.mkdir()
            (job / "rank0.log").write_text(a, encoding="utf-8")
            (job / "rank1.log").write_text(b, encoding="utf-8")
            size += len(a.encode()) + len(b.encode())
        else:
            (out / f"job-{i:05d}.log").write_text(a, encoding="utf-8")
            size += len(a.encode())
    return size


def large_fleet(n: int, size_mb: int, out: Path) -> int:
    for i in range(n):
        mixes.noisy(out / f"job-{i:03d}.log", size_mb)
    return sum(p.stat().st_size for p in out.iterdir())


def table(name: str, jobs: Path, n: int, size: int, runs: int, env: dict) -> None:
    print(f"\n{name}: {n} jobs, {size / 1e6:.2f} MB, on {os.cpu_count()} cores")
    print("| engine | workers | wall s | jobs/s | MB/s | vs 1 worker |")
    print("|---|---|---|---|---|---|")
    engines = [("local", 1), ("local", 2)]
    try:
        import ray  # noqa: F401
        engines.append(("ray", 2))  # a local Ray instance, started and stopped inside the timed command
    except ImportError:
        pass
    base = None
    for engine, workers in engines:
        walls = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "vlkb", "triage", str(jobs), "--workers", str(workers),
                            "--engine", engine, "--no-history", "--format", "csv"], env=env, capture_output=True,
                           check=True)
            walls.append(time.perf_counter() - t)
        wall = statistics.median(walls)
        base = base or wall
        print(f"| {engine} | {workers} | {wall:.1f} | {n / wall:.1f} | {size / 1e6 / wall:.1f} | x{base / wall:.2f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--large", type=int, default=0, help="jobs of the fleet of large noisy logs (0: none)")
    ap.add_argument("--large-mb", type=int, default=8)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "VLKB_HOME": str(Path(tmp) / "home")}
        jobs = Path(tmp) / "fleet"
        jobs.mkdir()
        table("fixture fleet", jobs, a.jobs, fleet(a.jobs, jobs), a.runs, env)
        if a.large:
            large = Path(tmp) / "large"
            large.mkdir()
            table("noisy fleet", large, a.large, large_fleet(a.large, a.large_mb, large), a.runs, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
