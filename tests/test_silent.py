"""Silent entries: a run that fails no step but warns that it is not training. They are matched on
warnings only when nothing failed (verdict "suspicious"), never compete with a real failure, and an
`unless` condition (a run where the warning is harmless) explains them away."""
import json

from vlkb.analyzer.facts import FactSheet
from vlkb.analyzer.model import Line
from vlkb.kb import fixtures as fx
from vlkb.kb.loader import shipped_dir

SILENT = "checkpoint-inputs-no-grad-silent"
ENTRIES = shipped_dir()
# hiyouga/LlamaFactory#6357, as in the entry's negative fixture
WARNING = ("_env/lib/python3.10/site-packages/torch/utils/checkpoint.py:87: UserWarning: None of the inputs have "
           "requires_grad=True. Gradients will be None")


def _fixture(entry: str, name: str) -> str:
    return fx.parse(ENTRIES / entry / f"{entry}.{name}.log").text


def _log(tmp_path, text: str):
    path = tmp_path / "train.log"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_warning_alone_is_suspicious_and_names_the_warning_line(engine, tmp_path):
    d = engine.diagnose([_log(tmp_path, "step 1 loss 2.3\n" + WARNING + "\nstep 2 loss 2.3\n")])
    assert d.verdict == "suspicious" and d.root is None
    assert d.named.entry.id == SILENT and d.subject.first.lineno == 2
    assert d.named.evidence[0].lineno == 2


def test_full_fine_tuning_explains_the_warning_away(engine, tmp_path):
    d = engine.diagnose([_log(tmp_path, _fixture(SILENT, "neg-llamafactory-full-frozen-vision"))])
    assert d.verdict == "clean" and d.named is None
    assert d.matches[0].entry.id == SILENT and d.matches[0].confidence == 0.0
    assert "finetuning_type == full" in d.matches[0].explained


def test_lora_confirms_and_a_frozen_tower_lowers_the_context(engine, tmp_path):
    lora = engine.diagnose([_log(tmp_path, "finetuning_type: lora\n" + WARNING + "\n")]).matches[0]
    tower = engine.diagnose([_log(tmp_path, "freeze_vision_tower: true\n" + WARNING + "\n")]).matches[0]
    assert lora.entry.id == tower.entry.id == SILENT
    context = lambda s: next((g.score for g in s.signals if g.name == "context"), 0.0)  # noqa: E731
    assert context(lora) > context(tower) and lora.confidence >= tower.confidence
    assert any("freeze_vision_tower" in a for a in tower.advice)


def test_a_real_failure_after_the_warning_is_the_answer(engine, tmp_path):
    """The warning precedes `element 0 of tensors does not require grad`: the failure is the root and
    the silent entry is not among the matches (it never competes with a failure)."""
    text = _fixture("tensor-does-not-require-grad", "pos-verify-frozen-embedding-reentrant-checkpoint")
    d = engine.diagnose([_log(tmp_path, text)], top=20)
    assert d.verdict == "known" and d.named.entry.id == "tensor-does-not-require-grad"
    assert SILENT not in {s.entry.id for s in d.matches}


def test_suspicious_in_every_format(run_vlkb, tmp_path):
    path = _log(tmp_path, "finetuning_type: lora\n" + WARNING + "\n")
    code, out, _ = run_vlkb("diagnose", path)
    assert code == 0 and "No step failed" in out and "Suspected:" in out and SILENT in out
    code, out, _ = run_vlkb("diagnose", path, "--format", "json")
    d = json.loads(out)
    assert d["verdict"] == "suspicious" and d["matches"][0]["entry"] == SILENT
    assert d["matches"][0]["incident"]["kind"] == "warning"
    code, out, _ = run_vlkb("diagnose", path, "--format", "markdown")
    assert "suspected:" in out and "No step failed" in out


def test_a_dataset_named_after_a_model_is_not_the_model():
    sheet = FactSheet()
    for i, text in enumerate(["    --dataset llava_cot_train \\", "    --template mllama \\"], 1):
        sheet.observe(Line("x.log", i, text))
    assert sheet.facts["model"].value == "Llama-3.2-Vision"
