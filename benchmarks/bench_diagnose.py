#!/usr/bin/env python3
"""Benchmark `vlkb diagnose`: throughput and peak RSS on large logs of several mixes (benchmarks/mixes.py:
quiet, noisy, error-dense, long lines, and one huge line with no newline), each against `grep -E -c`
over the same file in the same run; wall time on a small log and `--help`; Drain3 on the quiet log;
the matching cost with a 5,000-entry KB.

  python benchmarks/bench_diagnose.py [--size-mb 1024] [--mix quiet,noisy,error-dense,long-lines]
                                      [--one-line-mb 1024] [--runs 3] [--keep DIR] [--stream-gb 10]

Each mix ends with the same real failure (a fixture's ZeRO-2 traceback) and its cascade; the table
says whether vlkb still named it. `grep -E -c` with the KB's key words is the floor of one pass.
Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mixes import EXPECTED, MIXES, one_line  # noqa: E402

SMALL = ROOT / "data/samples/ms-swift-minicpmv-dpo-zero2.log"
GREP_WORDS = "Traceback|Error|Exception|nan|NCCL|Killed|SIGTERM|OVERFLOW|out of memory"


def waited(cmd: list[str], stdout=None, **popen) -> tuple[int, float, int, bytes, bytes]:
    """(exit code, seconds, peak RSS in MiB of this command's largest process, stdout, stderr); `stdout`:
    a file to write to instead (its bytes are then not returned). wait4 gives the usage of this child
    alone, with the children it reaped (getrusage(RUSAGE_CHILDREN) would give the largest of every
    command run so far). Linux starts a child's peak at this process's own peak (exec keeps it), so a
    benchmark keeps its own memory small: bench_hostile writes its inputs from another process."""
    t = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=stdout or out, stderr=err, **popen)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait for it again
        out.seek(0), err.seek(0)
        return proc.returncode, seconds, usage.ru_maxrss // 1024, out.read(), err.read()


def timed(cmd: list[str]) -> tuple[float, int, str]:
    """(seconds, peak RSS in MiB of this command's largest process, stdout), as `waited` measures them."""
    _, seconds, rss, out, _ = waited(cmd)
    return seconds, rss, out.decode("utf-8", "replace")


def log_options(runs: int) -> argparse.ArgumentParser:
    """The options of the generated log, shared by the benchmarks that read it."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--keep", type=Path, help="write the generated logs into this folder and keep them")
    return ap


def run_mix(vlkb: list[str], path: Path, runs: int) -> dict:
    """Median throughput of vlkb (as a user runs it, and with --jobs 1: one process) and grep on one
    file, vlkb's peak RSS (the largest of its processes: the pre-scan children are forked and share
    the parent's pages), and its verdict."""
    import json

    size = path.stat().st_size
    times, serial, rss, out = [], [], 0, ""
    for _ in range(runs):
        s, r, out = timed(vlkb + ["diagnose", str(path), "--format", "json"])
        times.append(s)
        rss = max(rss, r)
        serial.append(timed(vlkb + ["diagnose", str(path), "--format", "json", "--jobs", "1"])[0])
    med = statistics.median(times)
    g = statistics.median(timed(["grep", "-E", "-c", GREP_WORDS, str(path)])[0] for _ in range(runs))
    try:
        d = json.loads(out)
        named = d["matches"][0]["entry"] if d["verdict"] == "known" and d["matches"] else d["verdict"]
    except ValueError:
        named = "no JSON"
    return {"size": size, "vlkb": med, "serial": statistics.median(serial), "grep": g, "rss": rss, "named": named}


def main() -> None:
    ap = log_options(runs=3)
    ap.add_argument("--mix", default=",".join(MIXES), help="comma-separated: " + ", ".join(MIXES))
    ap.add_argument("--one-line-mb", type=int, default=1024, help="size of the one-line log (0: skip)")
    ap.add_argument("--stream-gb", type=int, default=10,
                    help="also pipe the quiet log this many GB deep into `vlkb diagnose -` for peak RSS (0: skip)")
    a = ap.parse_args()
    vlkb = [shutil.which("vlkb") or f"{sys.executable} -m vlkb"][0].split()
    tmp = Path(tempfile.mkdtemp())
    where = a.keep or tmp
    where.mkdir(parents=True, exist_ok=True)
    results, quiet_log = [], None
    for name in a.mix.split(","):
        path = where / f"{name}.log"
        t = time.perf_counter()
        MIXES[name](path, a.size_mb) if name != "quiet" else MIXES[name](path, a.size_mb, a.ranks)
        print(f"generated {name}: {path.stat().st_size / 2**20:.0f} MiB in {time.perf_counter() - t:.1f} s")
        r = run_mix(vlkb, path, a.runs)
        print(f"  vlkb {r['size'] / 2**20 / r['vlkb']:.0f} MB/s, grep {r['size'] / 2**20 / r['grep']:.0f} MB/s, "
              f"peak RSS {r['rss']} MiB, named {r['named']}")
        results.append((name, r))
        if name == "quiet":
            quiet_log = path
        elif not a.keep:
            os.unlink(path)
    if a.one_line_mb:
        path = where / "one-line.log"
        one_line(path, a.one_line_mb)
        r = run_mix(vlkb, path, a.runs)
        results.append((f"one {a.one_line_mb} MiB line, no newline", r))
        if not a.keep:
            os.unlink(path)
    small = statistics.median(timed(vlkb + ["diagnose", str(SMALL)])[0] for _ in range(max(5, a.runs)))
    helps = statistics.median(timed(vlkb + ["--help"])[0] for _ in range(max(5, a.runs)))
    stream = streamed(vlkb, quiet_log, a.stream_gb) if a.stream_gb and quiet_log else None
    drain = drain3_rate(quiet_log) if quiet_log else None
    per_incident = match_cost(5000)
    if quiet_log and not a.keep:
        os.unlink(quiet_log)

    print()
    print("| mix | size | vlkb | one process (--jobs 1) | grep -E -c | vlkb / grep | peak RSS | diagnosis |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in results:
        mb = r["size"] / 2**20
        right = "n/a (no failure in it)" if name.startswith("one ") else \
            ("right" if r["named"] == EXPECTED else f"WRONG: {r['named']}")
        print(f"| {name} | {mb:.0f} MiB | {mb / r['vlkb']:.0f} MB/s ({r['vlkb']:.2f} s) | "
              f"{mb / r['serial']:.0f} MB/s (x{r['serial'] / r['vlkb']:.2f} with two) | {mb / r['grep']:.0f} MB/s | "
              f"{r['grep'] / r['vlkb']:.2f} | {r['rss']} MiB | {right} |")
    rows = [
        *([(f"vlkb peak RSS, {stream[0] / 2**30:.1f} GiB piped to stdin", f"{stream[1]} MiB ({stream[0] / 2**20 / stream[2]:.0f} MB/s)")]
          if stream else []),
        ("vlkb diagnose, small log (median wall)", f"{small * 1000:.0f} ms"),
        ("vlkb --help (median wall)", f"{helps * 1000:.0f} ms"),
        *([("Drain3 on a 1% sample of the quiet log", f"{drain:.0f} lines/s")] if drain else []),
        ("match cost, 5,000-entry KB", f"{per_incident:.1f} ms per incident"),
    ]
    width = max(len(r[0]) for r in rows)
    print()
    print(f"| {'measure':<{width}} | result |")
    print(f"|{'-' * (width + 2)}|--------|")
    for k, v in rows:
        print(f"| {k:<{width}} | {v} |")


def streamed(vlkb: list[str], path: Path, gigabytes: int) -> tuple[int, int, float]:
    """(bytes, peak RSS in MiB, seconds) of `vlkb diagnose -` reading the log repeated until
    `gigabytes` GiB have gone through the pipe: memory must not grow with the input."""
    target, size, sent = gigabytes << 30, path.stat().st_size, 0
    t = time.perf_counter()
    proc = subprocess.Popen(vlkb + ["diagnose", "-", "--format", "json"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)
    with open(path, "rb") as f:
        while sent < target:
            f.seek(0)
            shutil.copyfileobj(f, proc.stdin, 8 << 20)
            sent += size
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)  # this child's own peak, not the largest child's so far
    elapsed = time.perf_counter() - t
    print(f"vlkb diagnose - ({sent / 2**30:.1f} GiB through a pipe): {elapsed:.1f} s, peak RSS {usage.ru_maxrss // 1024} MiB")
    return sent, usage.ru_maxrss // 1024, elapsed


def drain3_rate(path: Path) -> float | None:
    """Lines per second Drain3's template miner handles on every 100th line of the log (None without
    the bench extra: pip install -e '.[bench]')."""
    try:
        from drain3 import TemplateMiner
    except ImportError:
        print("drain3 is not installed (pip install -e '.[bench]'): its row is left out", file=sys.stderr)
        return None

    miner = TemplateMiner()
    sample = []
    with open(path, "rb") as f:
        for i, line in enumerate(f):
            if i % 100 == 0:
                sample.append(line.decode("utf-8", "replace").rstrip("\n"))
    t = time.perf_counter()
    for line in sample:
        miner.add_log_message(line)
    return len(sample) / (time.perf_counter() - t)


def match_cost(n_entries: int) -> float:
    """Milliseconds to score one incident against a synthetic KB of `n_entries` (shipped entries cloned
    under new ids with their messages shuffled, so regex, fuzzy and TF-IDF all have work to do):
    the median over 7 passes of the mean over 20 fixtures' root incidents."""
    import copy
    import random

    from vlkb.analyzer import Engine
    from vlkb.kb import load_engine
    from vlkb.analyzer.diagnose import fit_vectors
    from vlkb.kb import load
    from vlkb.kb.fixtures import parse

    base = load()
    rng = random.Random(0)
    entries = []
    for i in range(n_entries):
        e = copy.copy(base[i % len(base)])
        e.id = f"{e.id}-{i}"
        shuffled = []
        for message in e.messages:  # same lengths as real messages, different wording
            words = message.split()
            rng.shuffle(words)
            shuffled.append(" ".join(words))
        e.messages = shuffled
        entries.append(e)
    real = load_engine()
    idf, vectors = fit_vectors(entries)
    engine = Engine(entries, idf, vectors, real.calibration)
    incidents = []
    for p in sorted((ROOT / "kb/entries").glob("*/*.pos-*.log"))[:20]:
        tmp = Path(tempfile.mkdtemp()) / p.name
        tmp.write_text(parse(p).text)
        d = real.diagnose([str(tmp)])
        if d.root is not None:
            incidents.append(d.root)
    passes = []
    for _ in range(7):
        t = time.perf_counter()
        for inc in incidents:
            engine.matcher.score(inc, [])
        passes.append((time.perf_counter() - t) * 1000 / max(len(incidents), 1))
    return statistics.median(passes)


if __name__ == "__main__":
    main()
