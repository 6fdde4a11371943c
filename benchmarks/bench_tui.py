#!/usr/bin/env python3
"""Benchmark the TUI on a 1 GB multi-rank log (the same generated log as bench_diagnose.py): how long
until the diagnosis screen sits on the root line, how long a key takes to be answered while the log
pane shows the big file, search and rank filter, and the line index alone. Headless (App.run_test).

  python benchmarks/bench_tui.py [--size-mb 1024] [--ranks 8] [--runs 5] [--keep PATH]

Prints figures; asserts nothing.
"""
from __future__ import annotations

import asyncio
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_diagnose import log_options  # noqa: E402
from mixes import quiet as generate  # noqa: E402

from vlkb.tui.app import VlkbApp  # noqa: E402
from vlkb.tui.lineindex import LineIndex  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "data/samples/llamafactory-minicpmv-zero2-ranks.log"


async def until(pilot, check, step: float = 0.01) -> None:
    while not check():
        await pilot.pause(step)


def memory() -> dict:
    """Resident memory now: anonymous (the process's own) and file-backed (the mapped log's pages,
    page cache the kernel can drop), from /proc/self/status."""
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("RssAnon", "RssFile"):
                fields[key] = int(value.split()[0]) / 1024
    return fields


async def keys_on(path: Path, runs: int) -> float:
    """Median time to answer a page-down on `path` (the baseline: the pilot's own cost per key)."""
    app = VlkbApp([str(path)])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.screen.log_view is not None)
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            await pilot.press("pagedown")
            await pilot.pause()
            times.append(time.perf_counter() - t)
        return statistics.median(times)


async def session(path: Path, runs: int) -> dict:
    out: dict = {"key: page down, 37-line sample log": await keys_on(SAMPLE, runs)}
    t = time.perf_counter()
    app = VlkbApp([str(path)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        await until(pilot, lambda: screen.log_view is not None)
        log = screen.log_view
        out["diagnosis shown"] = time.perf_counter() - t
        d = screen.diagnosis
        head = d.subject.headline.line if d.subject.headline and d.subject.headline.line else d.subject.first
        await until(pilot, lambda: log.line == head.lineno)
        out["on the root line"] = time.perf_counter() - t
        out["lines"] = log.index.count
        for name, keys in [("page down", ("pagedown",)), ("line down", ("down",)), ("home", ("home",)),
                           ("end", ("end",)), ("next evidence", ("right_square_bracket",))]:
            times = []
            for _ in range(runs):
                t = time.perf_counter()
                await pilot.press(*keys)
                await pilot.pause()  # the repaint after the key
                times.append(time.perf_counter() - t)
            out[f"key: {name}"] = statistics.median(times)
        times = []
        for _ in range(runs):
            await pilot.press("home")
            t = time.perf_counter()
            log.goto(log.path, log.index.count // 2)
            await pilot.pause()
            times.append(time.perf_counter() - t)
        out["go to the middle line"] = statistics.median(times)
        times = []
        for _ in range(min(runs, 3)):  # a word found only near the end: one pass over the file
            await pilot.press("home")
            t = time.perf_counter()
            log.search("Watchdog caught")
            await until(pilot, lambda: log.note == "" and log.line > 1)
            times.append(time.perf_counter() - t)
        out["search, match near the end"] = statistics.median(times)
        t = time.perf_counter()
        await pilot.press("r")
        await until(pilot, lambda: log.rows is not None and len(log.rows) > 0)
        out["rank filter: first rows shown"] = time.perf_counter() - t
        latency = []
        while log.note == "filtering...":  # the pane keeps answering keys while the filter runs
            k = time.perf_counter()
            await pilot.press("pagedown")
            await pilot.pause()
            latency.append(time.perf_counter() - k)
            await pilot.pause(0.2)
        out["rank filter: done"] = time.perf_counter() - t
        out["key during the filter"] = statistics.median(latency) if latency else float("nan")
        mem = memory()
    out["peak RSS MiB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["RSS at the end, anonymous MiB"] = mem.get("RssAnon", float("nan"))
    out["RSS at the end, file-backed MiB"] = mem.get("RssFile", float("nan"))
    return out


def main() -> None:
    a = log_options(runs=5).parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = a.keep or Path(tmp) / "big.log"
        if not path.exists():
            generate(path, a.size_mb, a.ranks)
        size = path.stat().st_size
        builds = []
        for _ in range(a.runs):
            t = time.perf_counter()
            ix = LineIndex(path).build_all()
            builds.append(time.perf_counter() - t)
            ix.close()
        build = statistics.median(builds)
        print(f"log: {size / 2**20:.0f} MiB, {a.ranks} ranks")
        print(f"{'line index alone (median of ' + str(a.runs) + ')':<36} {build:.2f} s ({size / build / 1e6:.0f} MB/s)")
        for name, value in asyncio.run(session(path, a.runs)).items():
            if name == "lines":
                print(f"{name:<36} {value:,}")
            elif "MiB" in name:
                print(f"{name:<36} {value:.0f}")
            else:
                print(f"{name:<36} {value * 1000:.0f} ms" if value < 1 else f"{name:<36} {value:.2f} s")


if __name__ == "__main__":
    main()
