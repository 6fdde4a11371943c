"""The logs the throughput benchmark reads, one generator per mix (issue 14).

Every mix ends with the same real failure (a fixture's ZeRO-2 traceback on one rank) and the cascade
real runs print after it, so each run also says whether the diagnosis stayed right. The noise is built
from line shapes real runs print (quoted from KB fixtures and issue threads), with timestamps, ranks,
pids and values that change on every line, so no two noisy lines are byte-identical:

  transformers   "[WARNING|logging.py:328] 2024-09-11 17:52:18,030 >> `use_cache=True` is incompatible with
                  gradient checkpointing. Setting `use_cache=False`."
  DeepSpeed fp16 "[2024-09-11 17:52:18,030] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW!
                  Rank 0 Skipping step. Attempted loss scale: 4294967296, reducing to 2147483648"
  DeepSpeed      "[INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=2, lr=[1.9e-05], mom=[(0.9, 0.999)]"
                 "[INFO] [timer.py:260:stop] epoch=0/micro_step=20/global_step=20, RunningAvgSamplesPerSec=..."
                 "[Rank 0] time (ms) | fwd: 6567.66 | bwd: 17950.35 | bwd_inner: 17711.19 | ..."
                 "[INFO] [config.py:1000:print]   zero_optimization_stage ...... 2"
  torch          "[E1206 18:44:13.123456 140 ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective
                  operation timeout: WorkNCCL(SeqNum=931, OpType=ALLREDUCE, ...) ran for 1800104 milliseconds"
"""
from __future__ import annotations

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAILURE = ROOT / "kb/entries/zero-grad-reduced-twice/zero-grad-reduced-twice.pos-llamafactory-minicpmv-partial.log"
FAILED_RANK = 2
EXPECTED = "zero-grad-reduced-twice"
_CONFIG_KEYS = ["zero_optimization_stage", "bfloat16_enabled", "fp16_enabled", "gradient_accumulation_steps",
                "gradient_clipping", "train_micro_batch_size_per_gpu", "wall_clock_breakdown", "zero_allow_untested_optimizer"]


def failure_lines() -> list[str]:
    from vlkb.kb.fixtures import parse

    return parse(FAILURE).text.splitlines()  # the real log, markers removed


def _stamp(rng: random.Random, step: int) -> str:
    return f"2025-09-05 {10 + step // 3600 % 12:02d}:{step // 60 % 60:02d}:{step % 60:02d},{rng.randrange(1000):03d}"


def quiet_line(rng: random.Random, rank: int, step: int, total: int) -> str:
    """Today's benchmark: tqdm redraws, metric dicts, checkpoint INFO lines, a rare warning."""
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


def noisy_line(rng: random.Random, rank: int, step: int, total: int) -> str:
    """About 45 % warnings, fp16 OVERFLOW notices, DeepSpeed step/timer lines and config prints, each
    with its own time and values; the rest as the quiet mix."""
    kind = rng.random()
    when = _stamp(rng, step)
    if kind < 0.10:
        return (f"[rank{rank}]:[WARNING|logging.py:328] {when} >> `use_cache=True` is incompatible with gradient "
                f"checkpointing. Setting `use_cache=False`.")
    if kind < 0.20:
        scale = 2 ** rng.randrange(12, 33)
        return (f"[rank{rank}]:[{when}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank {rank} "
                f"Skipping step. Attempted loss scale: {scale}, reducing to {scale // 2}")
    if kind < 0.28:
        return (f"[rank{rank}]:[{when}] [INFO] [logging.py:96:log_dist] [Rank {rank}] step={step}, "
                f"skipped={rng.randrange(40)}, lr=[{rng.uniform(1e-6, 2e-5):.6e}], mom=[(0.9, 0.999)]")
    if kind < 0.36:
        return (f"[rank{rank}]:[{when}] [INFO] [timer.py:260:stop] epoch=0/micro_step={step}/global_step={step}, "
                f"RunningAvgSamplesPerSec={rng.uniform(1, 30):.6f}, CurrSamplesPerSec={rng.uniform(1, 30):.6f}, "
                f"MemAllocated={rng.uniform(5, 70):.2f}GB, MaxMemAllocated={rng.uniform(5, 78):.2f}GB")
    if kind < 0.42:
        return (f"[rank{rank}]:[Rank {rank}] time (ms) | fwd: {rng.uniform(100, 9000):.2f} | bwd: {rng.uniform(100, 20000):.2f} "
                f"| bwd_inner: {rng.uniform(100, 20000):.2f} | bwd_allreduce: {rng.uniform(1, 900):.2f} | step: {rng.uniform(10, 2000):.2f}")
    if kind < 0.45:
        key = rng.choice(_CONFIG_KEYS)
        return f"[rank{rank}]:[{when}] [INFO] [config.py:1000:print]   {key} {'.' * (40 - len(key))} {rng.randrange(1, 64)}"
    return quiet_line(rng, rank, step, total)


def _tail(out, ranks: int, rng: random.Random) -> None:
    """The failure on one rank, then every other rank's watchdog timeout and the launcher's SIGTERMs."""
    out.write("\n".join(failure_lines()) + "\n")
    for r in range(ranks):
        if r != FAILED_RANK:
            out.write(f"[rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation "
                      f"timeout: WorkNCCL(SeqNum=931, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                      f"Timeout(ms)=1800000) ran for {1800000 + rng.randrange(1000)} milliseconds before timing out.\n")
    for pid in range(4001, 4001 + ranks):
        out.write(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid} closing signal SIGTERM\n")


def _steps(path: Path, size_mb: int, ranks: int, block) -> None:
    """Write `block(rng, ranks, step, total)` for step after step up to the size, then the failure."""
    rng = random.Random(0)
    target = size_mb << 20
    written, step, total = 0, 0, 10_000_000
    with open(path, "w", encoding="utf-8") as out:
        while written < target * 0.98:
            step += 1
            text = block(rng, ranks, step, total)
            out.write(text)
            written += len(text)
        _tail(out, ranks, rng)


def _every_rank(line):
    return lambda rng, ranks, step, total: "\n".join(line(rng, r, step, total) for r in range(ranks)) + "\n"


def quiet(path: Path, size_mb: int, ranks: int = 8) -> None:
    _steps(path, size_mb, ranks, _every_rank(quiet_line))


def noisy(path: Path, size_mb: int, ranks: int = 8) -> None:
    _steps(path, size_mb, ranks, _every_rank(noisy_line))


def error_dense(path: Path, size_mb: int, ranks: int = 512) -> None:
    """`ranks` ranks that each print the same traceback (a real one) with their own rank prefix, pid
    and time, each followed by an NCCL watchdog storm from every rank, repeated to the size asked;
    the first traceback, on rank FAILED_RANK, comes first."""
    rng = random.Random(0)
    target = size_mb << 20
    tb = [l for l in failure_lines() if l.strip()]
    written, seq = 0, 931
    with open(path, "w", encoding="utf-8") as out:
        order = [FAILED_RANK] + [r for r in range(ranks) if r != FAILED_RANK]
        while written < target:
            parts = []
            for r in order:
                pid = 1000 + r * 7 + seq
                parts.append(f"[rank{r}]:[E{1206 + seq % 20} 18:{seq % 60:02d}:{rng.randrange(60):02d}.{rng.randrange(10**6):06d} "
                             f"{pid} ProcessGroupNCCL.cpp:1316] [PG 0 Rank {r}] Process group watchdog thread terminated with exception")
                parts += [f"[rank{r}]:{l}" for l in tb]
            for r in order:
                parts.append(f"[rank{r}]:[E{1206 + seq % 20} 18:{seq % 60:02d}:{rng.randrange(60):02d}.{rng.randrange(10**6):06d} "
                             f"{1000 + r} ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: "
                             f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
                             f"{1800000 + rng.randrange(1000)} milliseconds before timing out.")
            block = "\n".join(parts) + "\n"
            out.write(block)
            written += len(block)
            seq += 1


def long_lines(path: Path, size_mb: int, ranks: int = 8) -> None:
    """Tensor and batch dumps of 10-100 KB per line between quiet lines (a print(batch) in a
    training step), then the failure."""
    quiet_block = _every_rank(quiet_line)

    def block(rng, ranks, step, total):
        n = rng.randrange(10_000, 100_000) // 9
        values = ", ".join(f"{rng.uniform(-3, 3):.4f}" for _ in range(64))
        dump = f"[rank{step % ranks}]:tensor([[" + ", ".join([values] * (n // 64 + 1)) + "]], device='cuda:0', dtype=torch.bfloat16)"
        return dump + "\n" + quiet_block(rng, ranks, step, total)

    _steps(path, size_mb, ranks, block)


def one_line(path: Path, size_mb: int) -> None:
    """A single line of `size_mb` MiB and no newline at all (a binary-ish dump redirected to the log)."""
    chunk = ("0.1234, -0.5678, " * 4096).encode()
    with open(path, "wb") as out:
        left = size_mb << 20
        while left > 0:
            out.write(chunk[:left])
            left -= len(chunk)


MIXES = {"quiet": quiet, "noisy": noisy, "error-dense": error_dense, "long-lines": long_lines}


# Issue 15's hostile one-line shapes, each built at about `n` characters: each once made a regex
# backtrack per character (a pdsh host prefix, the pip-list fact gate, the fp16 overflow notice)
HOSTILE_LINES = {
    "digits-then-error": lambda n: "a" + "1" * n + " Error",
    "frame-then-spaces": lambda n: 'File "x", line 1, in f' + " " * n,
    "frame-spaces-word": lambda n: 'File "x", line 1, in f' + " " * n + "x",  # the frame regex's lazy function name
    "overflow-repeated": lambda n: "Overflow " * (n // 9),
    "message-of-words": lambda n: "RuntimeError: " + "a " * (n // 2),
    "host-like-word": lambda n: "node" + "-1" * (n // 2) + "x",
    "indent-then-word": lambda n: " " * n + "torch",
}


def _deep_traceback(n: int) -> str:
    frames = "".join(f'  File "/w/pkg/m{i}.py", line {i}, in f{i}\n    f{i + 1}(x)\n' for i in range(n // 60))
    return f"Traceback (most recent call last):\n{frames}RecursionError: deep\n"


def _fat_traceback(n: int) -> str:
    body = "".join(f"    {'y' * (n // 30)}\n" for _ in range(30))
    return f'Traceback (most recent call last):\n  File "t.py", line 1, in <module>\n{body}ValueError: x\n'


# Issue 15's hostile log shapes, each built at about `n` characters: many small things where one big
# line was the attack above (a deep traceback, distinct error lines from many ranks, a traceback of
# fat source lines); each once grew memory with the input
HOSTILE_STRUCTURES = {
    "deep-traceback": _deep_traceback,
    "distinct-errors": lambda n: "".join(f"[rank{i % 64}]: RuntimeError: value {i} at {i * 7:x} is wrong\n"
                                         for i in range(n // 50)),
    "fat-traceback": _fat_traceback,
}


def hostile_lines(n: int) -> dict[str, str]:
    """Every hostile one-line shape at about `n` characters."""
    return {name: make(n) for name, make in HOSTILE_LINES.items()}


def hostile_log(name: str, n: int) -> str:
    """A log of one hostile shape of about `n` characters: a line after a traceback header, or a structure."""
    if name in HOSTILE_LINES:
        return "Traceback (most recent call last):\n" + HOSTILE_LINES[name](n) + "\nstep 2\n"
    return HOSTILE_STRUCTURES[name](n)


if __name__ == "__main__":  # `python mixes.py hostile NAME N PATH`: bench_hostile writes each file from a
    # process of its own, so that the benchmark's own peak (wait4 counts it in every child) stays small
    import sys

    if sys.argv[1:2] == ["hostile"]:
        Path(sys.argv[4]).write_text(hostile_log(sys.argv[2], int(sys.argv[3])), encoding="utf-8")
