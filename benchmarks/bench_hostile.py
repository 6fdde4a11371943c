#!/usr/bin/env python3
"""Benchmark `vlkb diagnose` on issue 15's hostile lines (benchmarks/mixes.HOSTILE_LINES, each after a
traceback header) and hostile log shapes (mixes.HOSTILE_STRUCTURES): each at growing sizes, its median
wall time and peak RSS, and how the time grows from the smallest size to the largest (linear: about the
size ratio; a backtracking regex: its square).

  python benchmarks/bench_hostile.py [--sizes-mb 1,4,16] [--runs 3]

Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_diagnose import timed  # noqa: E402
from mixes import HOSTILE_LINES, HOSTILE_STRUCTURES  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes-mb", default="1,4,16")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes_mb.split(",")]
    vlkb = [sys.executable, "-m", "vlkb", "diagnose"]
    rows = {}
    names = [*HOSTILE_LINES, *HOSTILE_STRUCTURES]
    with tempfile.TemporaryDirectory() as tmp:
        for mb in sizes:
            for name in names:
                path = Path(tmp) / f"{name}.log"
                # written by another process: a child's peak RSS (wait4) counts this process's peak
                subprocess.run([sys.executable, str(HERE / "mixes.py"), "hostile", name, str(mb << 20), str(path)],
                               check=True)
                runs = [timed(vlkb + [str(path)]) for _ in range(args.runs)]
                rows.setdefault(name, []).append((statistics.median(r[0] for r in runs), max(r[1] for r in runs)))
                path.unlink()
    head = " | ".join(f"{mb} MiB" for mb in sizes)
    print(f"| shape | {head} | growth {sizes[0]} -> {sizes[-1]} MiB (size x{sizes[-1] // sizes[0]}) | peak RSS |")
    print("|---|" + "---|" * len(sizes) + "---|---|")
    for name, cells in rows.items():
        times = " | ".join(f"{t:.2f} s" for t, _ in cells)
        print(f"| {name} | {times} | x{cells[-1][0] / cells[0][0]:.1f} | {max(r for _, r in cells)} MiB |")


if __name__ == "__main__":
    main()
