"""What the end of a log says when it holds no failure: where the run stopped (the last progress it
reported, if the log ends there), whether its loss blew up (`diverged`). Whether its numbers stopped
moving is analyzer/flat.py's.

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
