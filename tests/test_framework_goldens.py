"""Each framework's user reads their own fix first, with their log's values (issue 16): one real log per
framework (a KB fixture, verbatim), its whole text report kept as a golden file, and the properties
that make it right checked apart from the golden: the framework read from the log, that framework's
bullet leading the fix, the other frameworks folded into one line, and every number-bearing value quoted
under "For this run" present in the log itself. No fixture of a LLaVA, OpenRLHF or Lightning run has an
entry whose fix has a bullet of its own yet."""
import re
from pathlib import Path

import pytest

from vlkb.analyzer.framework import BY_ID
from vlkb.analyzer.report import text as text_report
from vlkb.analyzer.report.story import tell
from vlkb.kb import fixtures as fx
from vlkb.kb.loader import shipped_dir

GOLDEN = Path(__file__).resolve().parent / "golden" / "frameworks"
UPDATE = "python -m pytest tests/test_framework_goldens.py --update-goldens   # then review the diff"

# framework -> a positive fixture of a real run of it whose entry's fix has that framework's bullet
CASES = {
    "llamafactory": "chat-template-missing.pos-llamafactory-intern-vl-unknown.log",
    "ms-swift": "deepspeed-without-distributed-launch.pos-msswift3-blank-line-drops-nproc.log",
    "axolotl": "chat-template-missing.pos-axolotl-jinja-template-none.log",
    "unsloth": "transformers-model-type-unrecognized.pos-unsloth-gemma3-finetune.log",
    "verl": "dataset-format-error.pos-verl-gsm8k-raw-parquet-reward-model-title.log",
    "colossalai": "framework-unsupported-setup.pos-colossalai-booster-no-plugin-hybridadam-backward.log",
    "trl": "version-skew-unexpected-kwarg.pos-trl-trainer-tokenizer.log",
    "hf-trainer": "multi-rank-file-race.pos-mmeureka-renames-directory-not-empty.log",
    "accelerate": "config-value-error.pos-accelerate-deepspeed-batch-size-none.log",
    "deepspeed": "config-value-error.pos-deepspeed-max-grad-norm-optimizer-param.log",
}


def _diagnose(engine, framework, tmp_path, monkeypatch):
    """The fixture's log as `<framework>.log` in the working directory (paths alike on every machine)."""
    name = CASES[framework]
    text = fx.parse(shipped_dir() / name.split(".pos-")[0] / name).text
    (tmp_path / f"{framework}.log").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return engine.diagnose([f"{framework}.log"]), text


@pytest.mark.parametrize("framework", CASES)
def test_the_frameworks_own_fix_leads_with_the_logs_values(engine, framework, tmp_path, monkeypatch, update_goldens):
    d, log = _diagnose(engine, framework, tmp_path, monkeypatch)
    assert d.named is not None and d.named.entry.id == CASES[framework].split(".pos-")[0]
    assert d.frameworks[0] == framework and d.run["framework"].value == framework
    fix = tell(d).named.fix
    first = next(line for line in fix.text.splitlines() if line.lstrip().startswith("- "))
    assert BY_ID[framework].label.search(first), first  # its own bullet comes first
    assert fix.others  # the bullets of frameworks this run did not use are folded
    for advice in fix.advice:  # a value the advice quotes in backticks is a value the log states
        for value in re.findall(r"`([^`]{1,200})`", advice):
            if any(ch.isdigit() for ch in value) and not value.startswith(("--", "pip ", "vlkb ")):
                assert value in log or value.split()[-1] in log, (value, advice)
    out = text_report.render(d)
    assert "Other frameworks (" in out
    golden = GOLDEN / f"{framework}.txt"
    if update_goldens:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        golden.write_text(out, encoding="utf-8")
    assert golden.exists(), f"no golden {golden.name}: {UPDATE}"
    assert out == golden.read_text(encoding="utf-8"), f"{golden.name} changed; if intended: {UPDATE}"
