#!/usr/bin/env python3
"""Benchmark `vlkb diff HEALTHY FAILED` on a generated noisy pair: MB/s over both runs, peak RSS.

  python benchmarks/bench_diff.py [--size-mb 100] [--runs 3]

FAILED is benchmarks/mixes.py's noisy mix (8 ranks, about 45 % warnings, step and timer lines with
their own times and values, the failure and its cascade at the end); HEALTHY is the same run before
its failure with every digit moved on by 3 (other times, steps, losses), so hardly a line of one is
byte-identical to the other's, and only the failure's templates are new. Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mixes  # noqa: E402

ROTATE = bytes.maketrans(b"0123456789", b"3456789012")


def _healthy_twin(failed: Path, healthy: Path) -> None:
    """The failed run's lines up to its failure (the mix's last 64 KB hold it and its cascade), with
    every digit moved on by 3; streamed, so this process stays small (a forked child's peak RSS
    counts the parent's pages)."""
    keep = failed.stat().st_size - (64 << 10)
    with open(failed, "rb") as src, open(healthy, "wb") as dst:
        while keep > 0:
            block = src.read(min(8 << 20, keep))
            if not block:
                break
            keep -= len(block)
            if keep <= 0:
                block = block[:block.rfind(b"\n") + 1]
            dst.write(block.translate(ROTATE))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        healthy, failed = Path(tmp) / "healthy.log", Path(tmp) / "failed.log"
        mixes.noisy(failed, a.size_mb)
        _healthy_twin(failed, healthy)
        size = healthy.stat().st_size + failed.stat().st_size
        walls = []
        for _ in range(a.runs):
            t = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "vlkb", "diff", str(healthy), str(failed), "--no-root"],
                                 capture_output=True, text=True, env={**os.environ, "VLKB_HOME": tmp})
            walls.append(time.perf_counter() - t)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
        wall = statistics.median(walls)
        print(f"vlkb diff, two noisy runs of {size / 2 / 1e6:.0f} MB: median {wall:.2f} s of {a.runs}, "
              f"{size / 1e6 / wall:.1f} MB/s, peak RSS {rss} MiB; {out.stdout.splitlines()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
