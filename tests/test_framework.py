"""The framework a run used is read from its log, and the fix is told in its terms first (issue 16):
its bullet leads, the other frameworks' bullets are folded, and nothing of the fix is ever lost."""
from pathlib import Path

import pytest

from vlkb.analyzer.framework import FRAMEWORKS, split_fix
from vlkb.analyzer.report import text as text_report
from vlkb.kb import fixtures as fx
from vlkb.kb.loader import shipped_dir


def _diagnose(engine, tmp_path, entry, name):
    log = tmp_path / name
    log.write_text(fx.parse(shipped_dir() / entry / f"{entry}.pos-{name}.log").text, encoding="utf-8")
    return engine.diagnose([str(log)])


@pytest.mark.parametrize("entry,name,framework", [
    ("zero-grad-reduced-twice", "llamafactory-minicpmv-partial", "llamafactory"),
    ("dataset-format-error", "ms-swift3-template-inputs-keyerror-messages", "ms-swift"),
    ("rl-generation-batch-mismatch", "open-r1-vllm-gpu", "trl"),
    ("ddp-mark-variable-ready-twice", "chatglm-lora-trainer", "hf-trainer"),
])
def test_the_framework_is_read_from_the_frames(engine, tmp_path, entry, name, framework):
    d = _diagnose(engine, tmp_path, entry, name)
    assert d.frameworks[0] == framework and d.run["framework"].value == framework


def test_the_runs_framework_leads_the_fix_and_the_others_fold(engine, tmp_path):
    d = _diagnose(engine, tmp_path, "zero-grad-reduced-twice", "llamafactory-minicpmv-partial")
    out = text_report.render(d)
    fix = out[out.index("Fix\n"):out.index("Evidence\n")]
    assert "- LLaMA-Factory (YAML): keep `gradient_checkpointing` on" in fix
    assert "- ms-swift:" not in fix and "- HF Trainer / TRL:" not in fix
    assert "Other frameworks (HF Trainer / TRL, ms-swift, plain PyTorch): vlkb kb show zero-grad-reduced-twice" in fix
    assert fix.index("LLaMA-Factory") < fix.index("If the model's remote code")  # the paragraph after the list stays after it


def test_the_command_that_started_the_run_names_its_framework(engine):
    """The bundled sample (ms-swift DPO on MiniCPM-V under ZeRO-2) shows only DeepSpeed's frame: its
    `swift rlhf` command line names the framework, whose bullet then leads the fix."""
    d = engine.diagnose([str(Path(__file__).resolve().parent.parent / "data/samples/ms-swift-minicpmv-dpo-zero2.log")])
    assert d.frameworks == ["ms-swift", "deepspeed"] and d.run["framework"].line.lineno == 1
    out = text_report.render(d)
    fix = out[out.index("Fix\n"):out.index("Evidence\n")]
    assert "- ms-swift: `--gradient_checkpointing_kwargs" in fix and "- HF Trainer / TRL:" not in fix
    assert "launcher" not in out  # the framework fact says it once


def test_a_bullet_that_mentions_a_framework_in_passing_is_not_folded(engine):
    fix = next(e for e in engine.entries if e.id == "version-skew-cannot-import-name").fix
    split = split_fix(fix, ["accelerate"])
    assert "The module is the project's own package (e.g. `llava.model`)" in split.text
    assert split.text.lstrip().startswith("- **accelerate / DeepSpeed / Megatron / PEFT helpers")


def test_unknown_framework_or_no_bullet_for_it_leaves_the_fix_whole(engine):
    fix = next(e for e in engine.entries if e.id == "zero-grad-reduced-twice").fix
    assert split_fix(fix, []).text == fix
    assert split_fix(fix, ["axolotl"]).text == fix  # no bullet names axolotl: every framework's line stays
    below = split_fix(fix, ["axolotl", "hf-trainer"])  # the next framework down the stack has one
    assert "- HF Trainer / TRL:" in below.text and "- ms-swift:" not in below.text


def test_no_line_of_any_fix_is_lost_for_any_framework(engine):
    for e in engine.entries:
        want = sorted(line for line in e.fix.splitlines() if line.strip())
        for fw in FRAMEWORKS:
            split = split_fix(e.fix, [fw.id])
            got = sorted(line for part in [split.text, *split.others] for line in part.splitlines() if line.strip())
            assert got == want, (e.id, fw.id)
