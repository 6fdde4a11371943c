#!/usr/bin/env python3
"""Benchmark `vlkb diagnose`: throughput and peak RSS on a large multi-rank log, wall time on a small one,
against `grep -E -c` and Drain3 on the same log, and the matching cost with a 5,000-entry KB.

  python benchmarks/bench_diagnose.py [--size-mb 1024] [--ranks 8] [--runs 3] [--keep PATH] [--stream-gb 10]

The generated log interleaves 8 ranks' tqdm redraws, HF-style metric dicts, INFO lines and warnings,
with a real failure (a fixture's ZeRO-2 traceback) near the end on one rank, followed by the cascade
(NCCL watchdog timeouts on the other ranks, SIGTERM notices). `grep -E -c` over the same file with
the KB's key words is printed beside it as the floor of one pass. Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAILURE = ROOT / "kb/entries/zero-grad-reduced-twice/zero-grad-reduced-twice.pos-llamafactory-minicpmv-partial.log"
SMALL = ROOT / "data/samples/ms-swift-minicpmv-dpo-zero2.log"
GREP_WORDS = "Traceback|Error|Exception|nan|NCCL|Killed|SIGTERM|OVERFLOW|out of memory"


def noise_line(rng: random.Random, rank: int, step: int, total: int) -> str:
    kind = rng.random()
    if kind < 0.6:  # tqdm redraws, several per line, as a terminal capture keeps them
        redraws = "".join(f"\r{100 * s // total:3d}%|{'#' * (10 * s // total):<10}| {s}/{total} "
                          f"[{s // 60:02d}:{s % 60:02d}<{(total - s) // 60:02d}:00, {rng.uniform(1, 3):.2f}it/s]"
                          for s in range(step, step + 3))
        return f"[rank{rank}]:{redraws}"
    if kind < 0.85:
        return (f"[rank{rank}]:{{'loss': {rng.uniform(0.5, 2.5):.4f}, 'grad_norm': {rng.uniform(0.3, 9):.4f}, "
                f"'learning_rate': {rng.uniform(1e-6, 2e-5):.3e}, 'epoch': {step / total:.2f}}}")
    if kind < 0.97:
        return (f"[rank{rank}]:[INFO|trainer.py:2433] 2025-09-05 19:{step % 60:02d}:49,989 >> "
                f"saving checkpoint-{step} to output/checkpoint-{step}")
    return (f"[rank{rank}]:/usr/lib/python3.10/site-packages/torch/utils/checkpoint.py:61: UserWarning: "
            f"torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.")


def generate(path: Path, size_mb: int, ranks: int) -> None:
    rng = random.Random(0)
    target = size_mb << 20
    from vlkb.kb.fixtures import parse

    failure = parse(FAILURE).text.splitlines()  # the real log, markers removed
    written, step, total = 0, 0, 10_000_000
    with open(path, "w", encoding="utf-8") as out:
        while written < target * 0.98:
            step += 1
            block = "\n".join(noise_line(rng, r, step, total) for r in range(ranks)) + "\n"
            out.write(block)
            written += len(block)
        out.write("\n".join(failure) + "\n")
        for r in range(ranks):
            if r != 2:
                out.write(f"[rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation "
                          f"timeout: WorkNCCL(SeqNum=931, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                          f"Timeout(ms)=1800000) ran for 1800104 milliseconds before timing out.\n")
        for pid in range(4001, 4001 + ranks):
            out.write(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid} closing signal SIGTERM\n")


def timed(cmd: list[str]) -> tuple[float, int, str]:
    """(seconds, peak RSS of the child in MiB, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    cp = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(after, before) // 1024, cp.stdout


def log_options(runs: int) -> argparse.ArgumentParser:
    """The options of the generated log, shared by the benchmarks that read it."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--keep", type=Path, help="write the generated log here and keep it")
    return ap


def main() -> None:
    ap = log_options(runs=3)
    ap.add_argument("--stream-gb", type=int, default=10,
                    help="also pipe the log this many GB deep into `vlkb diagnose -` for peak RSS (0: skip)")
    a = ap.parse_args()
    vlkb = [shutil.which("vlkb") or f"{sys.executable} -m vlkb"][0].split()
    tmp = Path(tempfile.mkdtemp())
    big = a.keep or tmp / "big.log"
    t = time.perf_counter()
    generate(big, a.size_mb, a.ranks)
    size = big.stat().st_size
    print(f"generated {size / 2**20:.0f} MiB, {a.ranks} ranks, in {time.perf_counter() - t:.1f} s: {big}")

    runs, rss, out = [], 0, ""
    for _ in range(a.runs):
        s, r, out = timed(vlkb + ["diagnose", str(big), "--format", "json"])
        runs.append(s)
        rss = max(rss, r)
    med = statistics.median(runs)
    import json
    d = json.loads(out)
    top = d["matches"][0]["entry"] if d["matches"] else None
    print(f"vlkb diagnose (large): median {med:.2f} s over {a.runs} runs = {size / 2**20 / med:.0f} MB/s, "
          f"peak RSS {rss} MiB, verdict {d['verdict']} {top}, root rank {d['incidents'][0]['ranks']}")
    greps = [timed(["grep", "-E", "-c", GREP_WORDS, str(big)])[0] for _ in range(a.runs)]
    g = statistics.median(greps)
    print(f"grep -E -c (floor of one pass): median {g:.2f} s = {size / 2**20 / g:.0f} MB/s; "
          f"vlkb / grep throughput = {g / med:.2f}")
    small = statistics.median(timed(vlkb + ["diagnose", str(SMALL)])[0] for _ in range(max(5, a.runs)))
    print(f"vlkb diagnose (small, {SMALL.stat().st_size} B): median wall {small * 1000:.0f} ms")
    helps = statistics.median(timed(vlkb + ["--help"])[0] for _ in range(max(5, a.runs)))
    stream = streamed(vlkb, big, a.stream_gb) if a.stream_gb else None
    drain = drain3_rate(big)
    per_incident = match_cost(5000)
    if not a.keep:
        os.unlink(big)
    rows = [
        ("log size", f"{size / 2**20:.0f} MiB, {a.ranks} ranks"),
        ("vlkb diagnose throughput (median)", f"{size / 2**20 / med:.0f} MB/s ({med:.2f} s)"),
        ("grep -E -c, same file (one-pass floor)", f"{size / 2**20 / g:.0f} MB/s ({g:.2f} s)"),
        ("vlkb / grep", f"{g / med:.2f}"),
        ("Drain3 on a 1% sample", f"{drain:.0f} lines/s"),
        ("vlkb peak RSS", f"{rss} MiB"),
        *([(f"vlkb peak RSS, {stream[0] / 2**30:.1f} GiB piped to stdin", f"{stream[1]} MiB ({stream[0] / 2**20 / stream[2]:.0f} MB/s)")]
          if stream else []),
        ("vlkb diagnose, small log (median wall)", f"{small * 1000:.0f} ms"),
        ("vlkb --help (median wall)", f"{helps * 1000:.0f} ms"),
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


def drain3_rate(path: Path) -> float:
    """Lines per second Drain3's template miner handles on every 100th line of the log."""
    from drain3 import TemplateMiner

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
    real = Engine.load()
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
