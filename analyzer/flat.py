"""Whether a run's reported numbers stopped moving (`frozen`), read from the end of one input as
progress.py reads it: the training loss at one value step after step, an epoch's losses replayed, a few
losses met again and again, a language model's loss held at the level of a uniform guess, an epoch's
loss that moves by less than a fifth of a percent over the last epochs, or the evaluation metrics
unchanged. A silent entry (training-not-learning) names what this states."""
from __future__ import annotations

from . import rx
from .model import Line
from .progress import last_lines
from .textnorm import clean

# A reported loss or evaluation metric with four decimals or more, for repeats: a healthy run's loss never
# prints the same four-decimal value step after step (each batch differs), so exact repeats say the
# weights did not change. tqdm postfixes and loop prints count here ("Epoch 2, Step 3, Loss: 0.9670"):
# only the repetition decides, not the size; so does a loop's "loss 3.5073" (lit-gpt). eval_loss is an
# evaluation's, read with the metrics.
_TRAIN_LOSS = rx.compile(r"""(?<![\w.])(?:train_|total_)?[Ll]oss(?:['"]\s{0,4}:\s{0,4}|\s{0,40}=\s{0,40}|: {1,4}| )"""
                         r"(?P<value>-?\d{1,12}\.\d{4,40})(?![\d.])")
_EVAL_METRIC = rx.compile(r"""['"](?P<key>(?:eval_)?(?:loss|acc(?:uracy)?|f1|precision|recall|auc|bleu|exact_match))['"]"""
                          r"\s{0,4}:\s{0,4}(?P<value>-?\d{1,6}\.\d{6,40})(?![\d.])")
FROZEN_STEPS = 4  # the same training loss this many times in a row, or this many steps replayed
FROZEN_DIGITS = 4  # significant digits a repeated value needs (a converged 0.0001 repeats by itself)
FROZEN_RECUR = 16  # losses reported that take at most half as many distinct values (batches met again)
FROZEN_WINDOW = 40  # the last losses the recurring and chance-level readings look at
# A causal LM's loss is a cross-entropy over its vocabulary: a model that has learned nothing guesses
# uniformly and scores ln(vocabulary size), 9.0 for 8k tokens to 13 for 450k. A fine-tuning run starts
# far below that (2-4), and a pretraining run falls through that band within its first hundreds of
# steps; held there, flat, over CHANCE_STEPS reports, the model is not learning.
CHANCE_BAND = (9.0, 13.0)
CHANCE_STEPS = 10  # reports at least, all in the band
CHANCE_SPREAD = 0.025  # (max - min) / min over them, at most
FROZEN_EVALS = 3  # evaluations whose metrics (two at least) are all unchanged
# An epoch's loss that still moves but by less than PLATEAU_SPREAD of itself over its last PLATEAU_STEPS
# epochs, three distinct values at least: a learning run's epoch means differ by more (InternVideo2
# fine-tuned on SSV2: train_loss 4.2232, 4.2235, 4.2231, 4.2219, 4.2211 over five epochs, accuracy at
# chance). Per-step losses are left out: a large-batch pretraining run's steps can be that close
# (DiLoCo at 6.9320-6.9332 over six steps) while it learns.
PLATEAU_STEPS = 5
PLATEAU_SPREAD = 0.002
_WHOLE_EPOCH = rx.compile(r"""['"]?\bepoch['"]?\s{0,4}[:=]\s{0,4}\d{1,6}(?![\d.])""")


def frozen(tail: bytes, path: str, last_lineno: int) -> tuple[Line, str] | None:
    """The last line of a run whose reported numbers stopped moving, and what it says, when the end of
    one input (`tail`, whose last line is `last_lineno`) shows it: the training loss at one value for
    its last FROZEN_STEPS reports or more (with FROZEN_DIGITS significant digits: not 0, the loss-zero
    entry's, nor a converged 0.0001), the loss replaying the steps of the previous epoch value for
    value, the last FROZEN_RECUR losses or more taking a few values again and again, a language
    model's loss held flat in CHANCE_BAND, or two evaluation metrics or more unchanged over
    FROZEN_EVALS evaluations. Exact repeats of four-digit numbers say the weights were not updated."""
    losses: list[tuple[int, str]] = []  # (line index, value) in order
    evals: list[tuple[int, tuple]] = []  # (line index, ((key, value), ...)) of lines with two metrics or more
    epochs: list[tuple[int, str]] = []  # the losses of lines that report a whole epoch
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
                if _WHOLE_EPOCH.search(head):
                    epochs.append((i, m.group("value")))
    said = (_constant(losses) or _replayed(losses) or _recurring(losses) or _chance(losses) or _plateau(epochs)
            or _constant_evals(evals))
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
    """The last FROZEN_RECUR losses or more (FROZEN_WINDOW at most) take a few values again and again, in no fixed order:
    the same batches met in another order through unchanged weights (lit-gpt's LoRA under DDP)."""
    values = [v for _, v in losses[-FROZEN_WINDOW:]]
    distinct = len(set(values))
    if len(values) >= FROZEN_RECUR and 2 <= distinct <= len(values) // 2:
        return losses[-1][0], (f"the training loss takes only {distinct} values, each again and again, over the last "
                               f"{len(values)} steps it reports")
    return None


def _chance(losses: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The last CHANCE_STEPS losses or more (FROZEN_WINDOW at most) all in CHANCE_BAND, within CHANCE_SPREAD of one another."""
    values = []
    for _, v in reversed(losses[-FROZEN_WINDOW:]):
        if not CHANCE_BAND[0] <= float(v) <= CHANCE_BAND[1]:
            break
        values.append(float(v))
    if len(values) < CHANCE_STEPS or (max(values) - min(values)) / min(values) > CHANCE_SPREAD:
        return None
    return losses[-1][0], (f"the training loss stays between {min(values):.2f} and {max(values):.2f} over the last "
                           f"{len(values)} steps it reports, the level of a language model that guesses uniformly")


def _plateau(losses: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The last PLATEAU_STEPS epochs' losses or more (FROZEN_WINDOW at most), three distinct values at
    least, all positive and within PLATEAU_SPREAD of the largest."""
    values: list[float] = []
    for _, v in reversed(losses[-FROZEN_WINDOW:]):
        x = float(v)
        if x <= 0 or (values and (max(*values, x) - min(*values, x)) / max(*values, x) >= PLATEAU_SPREAD):
            break
        values.append(x)
    if len(values) < PLATEAU_STEPS or len(set(values)) < 3:
        return None
    return losses[-1][0], (f"the training loss moves by less than {PLATEAU_SPREAD:.1%} over the last {len(values)} "
                           f"epochs it reports ({values[-1]:g} to {values[0]:g})")


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
