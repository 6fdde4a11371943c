"""flat.frozen's readings that need more than one repeated value: a few losses met again and again
(lit-gpt under DDP), a language model's loss held at the level of a uniform guess (CPM-1), and a
loss that barely moves (InternVideo2). Each is
tried on its real fixture's lines, then on the same lines with the losses changed the way a learning
run's would be: neither may fire then."""
import re

from vlkb.analyzer.flat import CHANCE_STEPS, FROZEN_RECUR, PLATEAU_STEPS, frozen
from vlkb.kb import fixtures as fx
from vlkb.kb.loader import shipped_dir

FOLDER = shipped_dir() / "training-not-learning"
RECUR = fx.parse(FOLDER / "training-not-learning.pos-litgpt-ddp-lora-losses-recur.log").text.splitlines()
CHANCE = fx.parse(FOLDER / "training-not-learning.pos-cpm1-lm-loss-flat-at-chance.log").text.splitlines()
PLATEAU = fx.parse(FOLDER / "training-not-learning.pos-internvideo2-ssv2-loss-plateau.log").text.splitlines()


def _read(lines: list[str]):
    return frozen(("\n".join(lines) + "\n").encode(), "x.log", len(lines))


def _with_losses(lines: list[str], pattern: str, values) -> list[str]:
    """The lines, each loss in turn replaced by the next of `values` (printed as the log printed it)."""
    it = iter(values)
    return [re.sub(pattern, lambda m: m.group(1) + next(it), line) if re.search(pattern, line) else line for line in lines]


LITGPT_LOSS = r"(loss )\d\.\d{4}"
CPM_LOSS = r"(train lm loss: )\d+\.\d+"
INTERN_LOSS = r'("train_loss": )\d\.\d+'


def test_losses_met_again_and_again_are_read_only_while_few_values_recur():
    found = _read(RECUR)
    assert found is not None and "takes only 9 values, each again and again, over the last 23 steps" in found[1]
    # the same steps with every loss a value of its own that differs from batch to batch, as a learning run prints them
    assert _read(_with_losses(RECUR, LITGPT_LOSS, (f"{3.5 + (i * 37 % 101) / 250:.4f}" for i in range(100)))) is None
    # fewer reports than FROZEN_RECUR say nothing, however few their values
    losses = [l for l in RECUR if re.search(LITGPT_LOSS, l)]
    assert len(losses) >= FROZEN_RECUR and _read(losses[-(FROZEN_RECUR - 1):]) is None


def test_a_loss_held_at_uniform_guess_level_is_read_only_when_flat_and_in_the_band():
    found = _read(CHANCE)
    assert found is not None and "stays between 11.49 and 11.63 over the last 17 steps" in found[1]
    n = sum(bool(re.search(CPM_LOSS, l)) for l in CHANCE)
    # a pretraining run falling through the band, and a fine-tuning plateau far below it
    falling = (f"{11.6 - i * 0.15:.10f}" for i in range(n))
    assert _read(_with_losses(CHANCE, CPM_LOSS, falling)) is None
    plateau = (f"{2.3 + (i * i % 17) * 0.004 + i * 1e-5:.10f}" for i in range(n))  # flat, never repeating
    assert _read(_with_losses(CHANCE, CPM_LOSS, plateau)) is None
    # under CHANCE_STEPS reports in the band say nothing
    lines = [l for l in CHANCE if re.search(CPM_LOSS, l) and re.search(r"\d\.\d{4}", l)]
    assert _read(lines[-(CHANCE_STEPS - 1):]) is None and _read(lines[-CHANCE_STEPS:]) is not None


def test_a_loss_that_barely_moves_is_read_only_within_the_spread_and_over_enough_reports():
    found = _read(PLATEAU)
    assert found is not None
    assert found[1] == "the training loss moves by less than 0.2% over the last 5 epochs it reports (4.22319 to 4.22111)"
    n = sum(bool(re.search(INTERN_LOSS, l)) for l in PLATEAU)
    # the same epochs with a loss that falls by half a percent each, as a learning run's does
    assert _read(_with_losses(PLATEAU, INTERN_LOSS, (f"{4.22 * (1 - 0.005 * i):.10f}" for i in range(n)))) is None
    # under PLATEAU_STEPS reports say nothing
    lines = [l for l in PLATEAU if re.search(r'"train_loss": \d\.\d{4}', l)]
    assert _read(lines[-(PLATEAU_STEPS - 1):]) is None and _read(lines[-PLATEAU_STEPS:]) is not None
