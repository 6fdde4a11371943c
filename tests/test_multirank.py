"""Real failures placed in generated multi-rank noise: the root wins over its cascade and over a
later failure in another rank's file, the cascade is folded with its ranks."""
import random

import pytest

from vlkb.kb import fixtures as fx
from vlkb.kb.loader import shipped_dir

ZERO = fx.parse(shipped_dir() / "zero-grad-reduced-twice" / "zero-grad-reduced-twice.pos-ms-swift-dpo-minicpmv.log")
OOM = fx.parse(shipped_dir() / "cuda-oom" / "cuda-oom.pos-fastchat-qlora-wrapped.log")
# a real watchdog timeout storm of several ranks, and torchrun's failure block of ranks that aborted
CASCADE = fx.parse(shipped_dir() / "nccl-timeout" / "nccl-timeout.pos-llamafactory-reduce-scatter.log")
SIGABRT = fx.parse(shipped_dir() / "signal-sigabrt" / "signal-sigabrt.pos-mmseg-block.log")
# a rank dead of SIGFPE, then the start of torchrun's own traceback, cut in its first frame
SIGFPE = fx.parse(shipped_dir() / "signal-sigfpe" / "signal-sigfpe.pos-r1v-grpo-exitcode-8-before-launcher-traceback.log")
WATCHDOG = ("[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=931, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
            "1800104 milliseconds before timing out.")
SIGTERM = "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid} closing signal SIGTERM"


def _noise(rng: random.Random, rank: int, step: int, minute: int) -> str:
    """Progress, metrics and timestamped INFO lines as HF Trainer and DeepSpeed print them."""
    kind = rng.random()
    if kind < 0.5:
        return f"{100 * step // 500:3d}%|{'#' * (step // 50):<10}| {step}/500 [00:{step % 60:02d}<10:00, 1.52it/s]"
    if kind < 0.8:
        return f"{{'loss': {rng.uniform(0.5, 2):.4f}, 'grad_norm': {rng.uniform(0.3, 5):.4f}, 'epoch': {step / 500:.2f}}}"
    return f"[2024-05-01 10:{minute:02d}:{step % 60:02d},{rank}00] [INFO] [logging.py:96:log_dist] [Rank {rank}] step={step}"


def _rank_file(tmp_path, rank, minute, failure, rng, steps=300):
    lines = [_noise(rng, rank, s, minute) for s in range(steps)]
    path = tmp_path / f"rank{rank}.log"
    path.write_text("\n".join(lines + failure.text.splitlines() + [WATCHDOG.format(r=rank)]) + "\n")
    return path


@pytest.mark.parametrize("first", [0, 1])
def test_across_rank_files_the_earliest_failure_is_the_root(engine, tmp_path, first):
    """rank0.log is read first, but whichever rank's failure the log times first is the root."""
    rng = random.Random(first)
    failures = {0: OOM, 1: ZERO}
    paths = [_rank_file(tmp_path, r, 5 if r == first else 9, failures[r], rng) for r in (0, 1)]
    d = engine.diagnose([str(p) for p in paths])
    expected = {0: "cuda-oom", 1: "zero-grad-reduced-twice"}[first]
    assert d.matches[0].entry.id == expected
    assert d.root.first.path == str(paths[first])
    assert d.root.when.startswith(f"2024-05-01T10:0{5}")


def test_without_times_the_file_order_decides(engine, tmp_path):
    a, b = tmp_path / "rank0.log", tmp_path / "rank1.log"
    a.write_text(OOM.text)
    b.write_text(ZERO.text)
    assert engine.diagnose([str(a), str(b)]).matches[0].entry.id == "cuda-oom"
    assert engine.diagnose([str(b), str(a)]).matches[0].entry.id == "zero-grad-reduced-twice"


def test_eight_interleaved_ranks_root_then_folded_cascade(engine, tmp_path):
    """One file, 8 ranks interleaved by torchrun's [rankN]: prefix; rank 5 fails, the 7 others time
    out on the NCCL watchdog, the launcher sends SIGTERM to all of them."""
    rng = random.Random(3)
    lines = [f"[rank{r}]:{_noise(rng, r, s, 1)}" for s in range(200) for r in range(8)]
    lines += [f"[rank5]:{l}" for l in ZERO.text.splitlines()]
    lines += [f"[rank{r}]:{WATCHDOG.format(r=r)}" for r in range(8) if r != 5]
    lines += [SIGTERM.format(pid=4000 + r) for r in range(8)]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    d = engine.diagnose([str(path)])
    assert d.matches[0].entry.id == "zero-grad-reduced-twice"
    assert d.root.ranks == ["5"]
    watchdog = next(i for i in d.incidents if i.kind == "nccl")
    assert watchdog.cascade and watchdog.count == 7 and watchdog.ranks == ["0", "1", "2", "3", "4", "6", "7"]
    sigterm = next(i for i in d.incidents if i.kind == "launcher")
    assert sigterm.cascade and sigterm.count == 8


def test_a_message_that_runs_into_a_c10_warning_is_not_taken_for_its_cascade(engine, tmp_path):
    """A rank's KeyError whose next lines are the rank's own `[W110 18:05:28...] ProcessGroupNCCL ...
    process group has NOT been destroyed` warning (a c10 record start, month written with one digit):
    the warning ends the message, so the KeyError is not a cascade, and stays the root when the other
    ranks' NCCL watchdog timeouts follow (a field-corpus dev case, then a KB fixture's real cascade)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    case = (root / "data/corpus/field/cases/vllm-11578.log").read_text(encoding="utf-8")
    cascade = fx.parse(shipped_dir() / "nccl-timeout" / "nccl-timeout.pos-llamafactory-reduce-scatter.log").text
    log = tmp_path / "run.log"
    log.write_text(case.rstrip("\n") + "\n" + cascade, encoding="utf-8")
    d = engine.diagnose([str(log)])
    assert d.root.exception == "KeyError" and not d.root.cascade
    assert "process group has NOT been destroyed" not in d.root.message
    assert d.named is None or d.named.entry.id != "nccl-timeout"


def test_a_cuda_error_the_watchdog_found_is_the_ranks_own_failure(engine, tmp_path):
    """`Process group watchdog thread terminated with exception: CUDA error: ...` is a kernel fault on
    that rank, which the NCCL watchdog only noticed: it is the root, not a cascade, over the c10 frames
    printed under it and the other ranks' timeouts that follow (a KB fixture with its frames, then a
    fixture's real cascade)."""
    fault = fx.parse(shipped_dir() / "cuda-launch-failure" / "cuda-launch-failure.pos-deepseek-moe-pg-watchdog.log")
    log = tmp_path / "run.log"
    log.write_text(fault.text + CASCADE.text, encoding="utf-8")
    d = engine.diagnose([str(log)])
    assert d.root.first.lineno == fault.match_line and not d.root.cascade
    assert d.named is not None and d.named.entry.id == "cuda-launch-failure"



def test_a_sigabrt_logged_before_the_nccl_timeout_is_its_own_failure(engine, tmp_path):
    """SIGABRT is the watchdog's way to end a rank after a timeout, but only after one: an abort
    logged first happened first, and the timeouts of the ranks left waiting follow it."""
    log = tmp_path / "train.log"
    log.write_text(SIGABRT.text + CASCADE.text)
    d = engine.diagnose([str(log)])
    assert d.named.entry.id == "signal-sigabrt"
    assert d.root.kind != "nccl" and d.root.first.lineno <= len(SIGABRT.text.splitlines())
    # the other order: the abort is the timeout's aftermath
    log.write_text(CASCADE.text + SIGABRT.text)
    assert engine.diagnose([str(log)]).named.entry.id == "nccl-timeout"


def test_an_nccl_timeout_after_the_launcher_reaped_a_rank_is_not_named(engine, tmp_path):
    """torchrun sends SIGTERM only after a worker failed: timeouts logged after that are the ranks
    that waited for it. The failure itself is not in the log, so the answer is unknown, rooted at the
    launcher's notice, never the NCCL timeout."""
    log = tmp_path / "train.log"
    log.write_text("\n".join(["{'loss': 1.2, 'grad_norm': 0.8, 'epoch': 0.5}", SIGTERM.format(pid=4242)])
                   + "\n" + CASCADE.text)
    d = engine.diagnose([str(log)])
    assert d.verdict == "unknown"
    assert d.named is None or d.named.entry.id != "nccl-timeout"
    assert d.root.kind == "launcher" and "closing signal SIGTERM" in d.root.first.text


def test_a_traceback_cut_in_its_first_frame_after_a_death_does_not_outrank_it(engine, tmp_path):
    """torchrun logs a worker's exit line, then raises ChildFailedError in a traceback of its own: that
    traceback, cut before any frame, says less than the SIGFPE exit line before it. The same cut
    traceback logged before any death is the rank's own failure, and leads."""
    lines = SIGFPE.text.splitlines()
    exit_at = next(i for i, line in enumerate(lines) if "exitcode: -8" in line)
    log = tmp_path / "train.log"
    log.write_text("\n".join(lines) + "\n")
    d = engine.diagnose([str(log)])
    assert d.named.entry.id == "signal-sigfpe" and d.root.first.lineno == exit_at + 1
    # the cut traceback moved before the exit line: a rank raised first, the death followed
    log.write_text("\n".join(lines[:exit_at] + lines[exit_at + 1:] + [lines[exit_at]]) + "\n")
    d = engine.diagnose([str(log)])
    assert d.root.kind == "traceback" and d.root.first.lineno == exit_at + 1
