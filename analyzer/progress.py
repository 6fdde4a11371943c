"""What the end of a log says when it holds no failure: where the run stopped (the last progress it
reported, if the log ends there), whether its loss blew up (`diverged`), whether its numbers stopped
moving (`frozen`).

A job that hangs (a collective no rank completes, a dataloader worker deadlock) or is killed without a
trace (the kernel's OOM killer on a container, a scheduler's time limit, a dropped SSH session) leaves
a log with no error: the last thing in it is a progress bar short of its total, or a step's metrics
with no summary after them. A run that finished prints its summary (HF Trainer's `train_loss` dict,
`***** train metrics *****`, a bar at its total). Only the end of each file decides, so the scan keeps
the last TAIL_BYTES of every input (reader/scan) and nothing else.

Progress shapes, quoted from real logs:
  tqdm (Trainer, Lightning, kohya, datasets.map)  " 45%|████▌     | 450/1000 [10:00<12:00,  1.20s/it]"
  Megatron-LM                                     " iteration      100/  500000 | consumed samples: ..."
  HF Trainer / LLaMA-Factory / TRL metrics        "{'loss': 0.0107, 'grad_norm': 0.29, ..., 'epoch': 2.36}"
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import rx
from .model import Line
from .textnorm import clean

TAIL_BYTES = 64 * 1024
TAIL_LINES = 400  # how far back from the end the last progress line is looked for

_BAR = rx.compile(r"(?<![\d/])(?P<done>\d{1,12})/(?P<total>\d{1,12}) \[(?:\d|\s*\d+:\d)")
_MEGATRON = rx.compile(r"^.{0,80}?\biteration\s{1,20}(?P<done>\d{1,12})/\s{0,20}(?P<total>\d{1,12}) \|")
_METRICS = rx.compile(r"^\{.{0,2000}?'epoch': (?P<epoch>\d+(?:\.\d+)?)")
_SWIFT_STEPS = rx.compile(r"'global_step/max_steps': '(?P<done>\d{1,12})/(?P<total>\d{1,12})'")  # ms-swift
# what a run prints once it is over (a summary, a final save, an explicit end), or a failure's trace
_OVER = rx.compile(
    r"'train_loss': |\btrain_samples_per_second\b|\*{3,} train metrics \*{3,}|Training completed"
    r"|[Tt]raining (?:is )?(?:finished|complete|done)|Finished training|`Trainer\.fit` stopped"
    r"|Saving model checkpoint to .{0,200}(?:final|output)|Traceback \(most recent call last\)")


# A step's reported training loss as trainers print it: HF Trainer/TRL/LLaMA-Factory dicts and JSON logs
# ("'loss': 1.23", "\"loss\": 1.23"), the train-metrics summary ("train_loss = 1.23"), TF slim's "loss = 1.23",
# mmcv's "loss: 1.23". eval_loss, loss_cls and "loss scale: 65536" (fp16 loss scaling) are other keys, and a
# tqdm postfix "loss=1.23" is left out: Lightning and hand-written loops print it for models of every kind,
# where a regression or likelihood loss of 10^5 is routine.
_LOSS = rx.compile(r"""(?<![\w.])(?:train_|total_)?loss(?:['"]\s{0,4}:\s{0,4}|\s{1,40}=\s{1,40}|: {1,4})"""
                   r"(?P<value>-?\d{1,40}(?:\.\d{1,40})?(?:[eE][+-]?\d{1,3})?)(?![\d.])")
# A fine-tuning loss is a mean cross-entropy over a vocabulary: it starts near ln(vocabulary size), under 12.
DIVERGED_LOSS = 1e4


def diverged(tail: bytes, path: str, last_lineno: int) -> Line | None:
    """The last loss `tail` reports (the end of one input, whose last line is `last_lineno`), when it
    is 10^4 or more: the run ended with its loss blown up (loss-divergence). Only the end decides: a
    spike the run recovered from is not a divergence."""
    for back, raw in enumerate(reversed(last_lines(tail))):
        if "loss" not in raw:
            continue
        c = clean(raw)
        found = list(_LOSS.finditer(c.text[:4096]))
        if found:
            if float(found[-1].group("value")) < DIVERGED_LOSS:
                return None
            return Line(path, last_lineno - back, c.text, c.rank, c.host)
    return None


# A reported loss or evaluation metric with four decimals or more, for repeats: a healthy run's loss never
# prints the same four-decimal value step after step (each batch differs), so exact repeats say the
# weights did not change. tqdm postfixes and loop prints count here ("Epoch 2, Step 3, Loss: 0.9670"):
# only the repetition decides, not the size; so does a loop's "loss 3.5073" (lit-gpt). eval_loss is an evaluation's, read with the metrics.
_TRAIN_LOSS = rx.compile(r"""(?<![\w.])(?:train_|total_)?[Ll]oss(?:['"]\s{0,4}:\s{0,4}|\s{0,40}=\s{0,40}|: {1,4}| )"""
                         r"(?P<value>-?\d{1,12}\.\d{4,40})(?![\d.])")
_EVAL_METRIC = rx.compile(r"""['"](?P<key>(?:eval_)?(?:loss|acc(?:uracy)?|f1|precision|recall|auc|bleu|exact_match))['"]"""
                          r"\s{0,4}:\s{0,4}(?P<value>-?\d{1,6}\.\d{6,40})(?![\d.])")
FROZEN_STEPS = 4  # the same training loss this many times in a row, or this many steps replayed
FROZEN_DIGITS = 4  # significant digits a repeated value needs (a converged 0.0001 repeats by itself)
FROZEN_RECUR = 16  # losses reported that take at most half as many distinct values (batches met again)
FROZEN_EVALS = 3  # evaluations whose metrics (two at least) are all unchanged


def frozen(tail: bytes, path: str, last_lineno: int) -> tuple[Line, str] | None:
    """The last line of a run whose reported numbers stopped moving, and what it says, when the end of
    one input (`tail`, whose last line is `last_lineno`) shows it: the training loss at one value for
    its last FROZEN_STEPS reports or more (with FROZEN_DIGITS significant digits: not 0, the loss-zero
    entry's, nor a converged 0.0001), the loss replaying the steps of the previous epoch value for
    value, or two evaluation metrics or more unchanged over FROZEN_EVALS evaluations. Exact repeats of
    four-digit numbers say the weights were not updated."""
    losses: list[tuple[int, str]] = []  # (line index, value) in order
    evals: list[tuple[int, tuple]] = []  # (line index, ((key, value), ...)) of lines with two metrics or more
    lines = last_lines(tail)
    for i, raw in enumerate(lines):
        if "oss" not in raw and "acc" not in raw and "f1" not in raw:
            continue
        head = raw[:4096]
        found = list(_EVAL_METRIC.finditer(head))
        if len(found) >= 2:
            evals.append((i, tuple((m.group("key"), m.group("value")) for m in found)))
        elif not any(m.group("key").startswith("eval_") for m in found):
            m = _TRAIN_LOSS.search(head)
            if m and _significant(m.group("value")) >= FROZEN_DIGITS:
                losses.append((i, m.group("value")))
    said = _constant(losses) or _replayed(losses) or _recurring(losses) or _constant_evals(evals)
    if said is None:
        return None
    i, text = said
    c = clean(lines[i])
    return Line(path, last_lineno - (len(lines) - 1 - i), c.text, c.rank, c.host), text


def _significant(value: str) -> int:
    """Significant digits of a decimal as printed: '0.6932' 4, '0.0012' 2, '0.0000' 0."""
    return len(value.lstrip("-").replace(".", "").lstrip("0"))


def _constant(losses: list[tuple[int, str]]) -> tuple[int, str] | None:
    run = 0
    for _, value in reversed(losses):
        if value != losses[-1][1]:
            break
        run += 1
    if run >= FROZEN_STEPS:
        return losses[-1][0], f"the training loss is {losses[-1][1]} at each of the last {run} steps it reports"
    return None


def _replayed(losses: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The last losses equal, one for one, those a fixed number of steps before them (an epoch
    replayed), over FROZEN_STEPS steps or more and three distinct values at least."""
    values = [v for _, v in losses]
    for period in range(2, len(values) - FROZEN_STEPS + 1):
        run = 0
        for k in range(len(values) - 1, period - 1, -1):
            if values[k] != values[k - period]:
                break
            run += 1
        if run >= FROZEN_STEPS and len(set(values[-run:])) >= 3:
            return losses[-1][0], (f"the training loss repeats, value for value, the {period} steps reported before "
                                   f"(the last {run} steps)")
    return None


def _recurring(losses: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The last FROZEN_RECUR losses or more (40 at most) take a few values again and again, in no fixed order:
    the same batches met in another order through unchanged weights (lit-gpt's LoRA under DDP)."""
    values = [v for _, v in losses[-40:]]
    distinct = len(set(values))
    if len(values) >= FROZEN_RECUR and 2 <= distinct <= len(values) // 2:
        return losses[-1][0], (f"the training loss takes only {distinct} values, each again and again, over the last "
                               f"{len(values)} steps it reports")
    return None


def _constant_evals(evals: list[tuple[int, tuple]]) -> tuple[int, str] | None:
    """The last evaluations' metrics all equal those FROZEN_EVALS evaluations back (the last line may be
    cut mid-number: a value equal to another's beginning, with FROZEN_DIGITS significant digits, is the
    same value)."""
    if len(evals) < FROZEN_EVALS:
        return None
    reference = evals[-FROZEN_EVALS][1]
    run = 0
    for _, metrics in reversed(evals):
        if not _same_metrics(metrics, reference):
            break
        run += 1
    if run < FROZEN_EVALS:
        return None
    shown = ", ".join(f"{k} {v}" for k, v in evals[-run][1])
    return evals[-1][0], f"the evaluation metrics are unchanged over the last {run} evaluations ({shown})"


def _same_metrics(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(ka == kb and (va.startswith(vb) or vb.startswith(va))
                                    and _significant(min(va, vb, key=len)) >= FROZEN_DIGITS
                                    for (ka, va), (kb, vb) in zip(a, b))


def last_lines(tail: bytes) -> list[str]:
    """The last TAIL_LINES lines of an input's end."""
    lines = tail.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[-TAIL_LINES:]


def _is_progress(text: str) -> bool:
    return bool(_METRICS.match(text) or _BAR.search(text) or _MEGATRON.match(text))


@dataclass
class Stall:
    line: Line  # the last progress line
    done: int | None
    total: int | None
    epoch: str | None
    after: int  # lines of other output after it

    def describe(self) -> str:
        if self.total:
            return f"step {self.done}/{self.total}" + (f" (epoch {self.epoch})" if self.epoch else "")
        return f"epoch {self.epoch}"


def stall(tail: bytes, path: str, last_lineno: int) -> Stall | None:
    """The last progress line of `tail` (the end of one input, whose last line is `last_lineno`)
    when the log ends on it: a bar short of its total, or metrics with no summary after them (two
    progress lines at least: a single dict is as likely a pasted example as a run that stopped)."""
    cleaned = [clean(raw) for raw in last_lines(tail)]  # each line cleaned once, read back to front
    progress_lines = None  # counted when a metrics line is met, at most once
    after = 0
    for back, c in enumerate(reversed(cleaned)):
        text = c.text
        if not text.strip():
            continue
        if _OVER.search(text):
            return None
        m = _BAR.search(text) or _MEGATRON.match(text)
        if m:
            done, total = int(m.group("done")), int(m.group("total"))
            if done >= total or total == 0:
                return None  # a bar at its end: this stage finished
            epoch = re.search(r"Epoch (\d+(?:\.\d+)?)", text)
            return Stall(Line(path, last_lineno - back, text, c.rank, c.host), done, total,
                         epoch.group(1) if epoch else None, after)
        m = _METRICS.match(text)
        if m:
            if progress_lines is None:
                progress_lines = sum(1 for earlier in cleaned if _is_progress(earlier.text))
            if progress_lines >= 2:
                steps = _SWIFT_STEPS.search(text)
                done, total = (int(steps.group("done")), int(steps.group("total"))) if steps else (None, None)
                return Stall(Line(path, last_lineno - back, text, c.rank, c.host), done, total, m.group("epoch"), after)
        after += 1
    return None
