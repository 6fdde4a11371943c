"""A log with no failure that ends mid-run is a suspected hang or silent kill (issue 13, part 4:
"a log that stops mid-epoch with no completion line: say so, as a suspicion, with the last step").

Inputs are the run-hang fixtures (real logs of runs that hung or died without an error) and the
real lines around them."""
import gzip
import os
import time
from pathlib import Path

from vlkb.analyzer.flat import frozen
from vlkb.analyzer.progress import TAIL_BYTES, diverged, stall
from vlkb.kb import fixtures as fx
from vlkb.kb.loader import load, shipped_dir

HANG = fx.parse(shipped_dir() / "run-hang" / "run-hang.pos-llamafactory-ends-after-10h.log")
# the HF Trainer's end-of-training summary (transformers Trainer.train -> self.log(metrics))
SUMMARY = "{'train_runtime': 37300.1, 'train_samples_per_second': 1.2, 'train_steps_per_second': 0.1, 'train_loss': 0.0321, 'epoch': 3.0}"
NOISE = fx.parse(shipped_dir() / "cuda-oom" / "cuda-oom.pos-mistral-finetune-a10g.log").text.splitlines()
# real logs whose run ended with its loss blown up (loss-divergence fixtures)
FIREFLY = fx.parse(shipped_dir() / "loss-divergence" / "loss-divergence.pos-firefly-train-loss-summary.log")
TF_SLIM = fx.parse(shipped_dir() / "loss-divergence" / "loss-divergence.pos-tf-faster-rcnn-loss-explodes.log")


def _old(path):
    """Written an hour ago: not a live log."""
    then = time.time() - 3600
    os.utime(path, (then, then))
    return path


def test_the_last_metrics_line_is_where_the_run_stopped(engine, tmp_path):
    path = tmp_path / "train.log"
    path.write_text(HANG.text)
    _old(path)
    d = engine.diagnose([str(path)])
    assert d.verdict == "suspicious" and d.named.entry.id == "run-hang"
    assert d.subject.first.lineno == HANG.match_line
    assert d.subject.summary == "epoch 2.36"
    assert any("epoch 2.36" in a for a in d.named.advice)
    assert not any("written" in n for n in d.stats.notes)


def test_a_finished_run_is_clean(engine, tmp_path):
    path = tmp_path / "train.log"
    path.write_text(HANG.text + SUMMARY + "\n")
    assert engine.diagnose([str(_old(path))]).verdict == "clean"


def test_only_the_end_of_a_long_log_decides(engine, tmp_path):
    """Megabytes of other output first (more than the kept tail), the stop at the end: found, with
    its own line number; the same log gzipped and without its last newline gives the same answer."""
    body = "\n".join(line for line in NOISE if "Error" not in line and "Traceback" not in line) + "\n"
    filler = body * (3 * TAIL_BYTES // len(body) + 1)
    text = filler + HANG.text.rstrip("\n")
    plain = tmp_path / "long.log"
    plain.write_text(text)
    packed = tmp_path / "long.log.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    expected = filler.count("\n") + HANG.match_line
    for path in (plain, packed):
        d = engine.diagnose([str(_old(path))])
        assert d.verdict == "suspicious", (path.name, d.verdict)
        assert d.subject.first.lineno == expected, path.name
        assert d.stats.lines == text.count("\n") + 1


def test_a_bar_at_its_total_is_not_a_stop():
    bar = " 100%|██████████| 1000/1000 [2:03:04<00:00,  7.38s/it]"
    short = "  45%|████▌     | 450/1000 [55:00<1:08:00,  7.38s/it]"
    assert stall(f"{short}\n{bar}\n".encode(), "x.log", 2) is None
    s = stall(f"{bar}\n{short}\nSaving checkpoint shards\n".encode(), "x.log", 3)
    assert (s.done, s.total, s.line.lineno, s.after) == (450, 1000, 2, 1)


def test_a_live_log_is_only_a_suspicion(engine, tmp_path):
    path = tmp_path / "live.log"
    path.write_text(HANG.text)
    d = engine.diagnose([str(path)])
    assert d.verdict == "suspicious"
    assert any("written" in n and "still going" in n for n in d.stats.notes)


def test_a_hostile_tail_is_linear(engine, tmp_path):
    """A last line of 5 MB of digits and slashes: read once, no quadratic regex."""
    path = tmp_path / "hostile.log"
    path.write_text(HANG.text + "1/" * 2_500_000 + "\n")
    d = engine.diagnose([str(_old(path))])
    assert d.verdict in ("clean", "suspicious")


def test_megatron_iterations_with_a_timestamp():
    """Megatron-LM's line, bare (BigScience's logs) and behind a timestamp and a rank prefix."""
    bare = " iteration        2/   95367 | consumed samples:         4096 | consumed tokens:      8388608 | elapsed time per iteration (s): 769.99"
    stamped = "[default0]: [2026-09-11 12:06:52.987995] iteration        3/ 7629408 | consumed samples:           96 |"
    for line in (bare, stamped):
        s = stall((line + "\n").encode(), "m.log", 10)
        assert s is not None and s.done < s.total and s.line.lineno == 10


def test_a_run_that_ends_with_a_huge_loss_is_a_suspected_divergence(engine, tmp_path):
    for fixture in (FIREFLY, TF_SLIM):
        path = tmp_path / "train.log"
        path.write_text(fixture.text)
        d = engine.diagnose([str(path)])
        assert d.verdict == "suspicious" and d.named.entry.id == "loss-divergence"
        assert d.named.incident.first.lineno == fixture.match_line


def test_only_the_last_reported_loss_decides():
    huge = TF_SLIM.text.splitlines()[1]  # "INFO:tensorflow:global step 409: loss = 25237.8984 (0.273 sec/step)"
    assert diverged((huge + "\n").encode(), "x.log", 1) is not None
    # a spike the run recovered from, or followed only by an eval loss: the last training loss decides
    assert diverged((huge + "\nINFO:tensorflow:global step 410: loss = 0.0784 (0.273 sec/step)\n").encode(), "x.log", 2) is None
    assert diverged((huge + "\n{'eval_loss': 0.5, 'epoch': 1.0}\n").encode(), "x.log", 2).lineno == 1
    # fp16 loss scaling and a tqdm postfix name other numbers
    for other in ("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4294967296, reducing to 2147483648",
                  " 12%|#2        | 10/82 [20:38<2:24:23, 120.33s/it, loss=341889.875]"):
        assert diverged((other + "\n").encode(), "x.log", 1) is None


HEALTHY = Path(__file__).resolve().parent.parent / "data" / "corpus" / "healthy"
# real runs whose numbers stopped moving (training-not-learning fixtures: TRL DPO at ln 2, an epoch
# replayed, a classifier's metrics frozen)
FROZEN = {p.name: fx.parse(p) for p in sorted((shipped_dir() / "training-not-learning").glob("*.pos-*.log"))}


def test_numbers_that_stop_moving_are_a_suspicion_that_the_run_does_not_learn(engine, tmp_path):
    for name, fixture in FROZEN.items():
        path = tmp_path / "train.log"
        path.write_text(fixture.text)
        d = engine.diagnose([str(path)])
        assert d.verdict == "suspicious" and d.named.entry.id == "training-not-learning", name
        assert d.named.incident.first.lineno == fixture.match_line, name


def test_repeats_need_four_reports_and_four_digits():
    """Three equal losses, a loss of 0 (the loss-zero entry's) or a converged 0.0001 say nothing; the
    fourth equal four-digit loss does. Lines of the TRL fixture, whose losses are all 0.6932."""
    line = FROZEN["training-not-learning.pos-trl-dpo-loss-ln2-rewards-zero.log"].text.splitlines()[-1]
    assert frozen(("\n".join([line] * 3) + "\n").encode(), "x.log", 3) is None
    found = frozen(("\n".join([line] * 4) + "\n").encode(), "x.log", 4)
    assert found is not None and found[0].lineno == 4 and "0.6932 at each of the last 4 steps" in found[1]
    for small in ("0.0", "0.0001"):
        other = line.replace("'loss': 0.6932", f"'loss': {small}")
        assert frozen(("\n".join([other] * 6) + "\n").encode(), "x.log", 6) is None


def test_no_other_fixture_and_no_healthy_log_has_frozen_numbers():
    """Every positive fixture of every other entry, its negatives and the healthy corpus: a loss that moves
    never reads as frozen."""
    texts = {p.name: fx.parse(p).text.encode() for e in load() if e.id != "training-not-learning" for p in e.fixtures}
    texts |= {p.name: p.read_bytes() for p in sorted(HEALTHY.glob("*.log"))}
    assert len(texts) > 1500
    assert not [name for name, text in texts.items() if frozen(text[-TAIL_BYTES:], name, 1)]
