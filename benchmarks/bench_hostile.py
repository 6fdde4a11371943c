#!/usr/bin/env python3
"""Benchmark `vlkb diagnose` on issue 15's hostile lines (benchmarks/mixes.hostile_lines): each shape
at growing sizes after a traceback header, its median wall time and peak RSS, and how the time grows
from the smallest size to the largest (linear: about the size ratio; a backtracking regex: its square).

  python benchmarks/bench_hostile.py [--sizes-mb 1,4,16] [--runs 3]

Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_diagnose import timed  # noqa: E402
from mixes import hostile_lines  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes-mb", default="1,4,16")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes_mb.split(",")]
    vlkb = [sys.executable, "-m", "vlkb", "diagnose"]
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mb in sizes:
            for name, line in hostile_lines(mb << 20).items():
                path = Path(tmp) / f"{name}.log"
                path.write_text("Traceback (most recent call last):\n" + line + "\nstep 2\n", encoding="utf-8")
                runs = [timed(vlkb + [str(path)]) for _ in range(args.runs)]
                rows.setdefault(name, []).append((statistics.median(r[0] for r in runs), max(r[1] for r in runs)))
                path.unlink()
    head = " | ".join(f"{mb} MiB" for mb in sizes)
    print(f"| line | {head} | growth {sizes[0]} -> {sizes[-1]} MiB (size x{sizes[-1] // sizes[0]}) | peak RSS |")
    print("|---|" + "---|" * len(sizes) + "---|---|")
    for name, cells in rows.items():
        times = " | ".join(f"{t:.2f} s" for t, _ in cells)
        print(f"| {name} | {times} | x{cells[-1][0] / cells[0][0]:.1f} | {max(r for _, r in cells)} MiB |")


if __name__ == "__main__":
    main()
