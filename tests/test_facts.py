"""Run facts (versions, model, config) read from log lines, KB conditions on them, and the advice
they make concrete, shown in every output format."""
import json

import pytest

from vlkb.analyzer.conditions import Advice, Condition, version_key
from vlkb.analyzer.facts import FactSheet, ordered
from vlkb.analyzer.model import Line
from vlkb.analyzer.textnorm import clean
from vlkb.kb import fixtures as fx
from vlkb.kb.loader import shipped_dir

# (line as printed, fact key, value). Quoted lines name where they were printed.
LINES = [
    ("- Transformers version: 4.45.0", "version.transformers", "4.45.0"),  # llamafactory-cli env
    ("- PyTorch version: 2.4.0+cu124 (GPU)", "version.torch", "2.4.0+cu124"),
    ("- `llamafactory` version: 0.9.1.dev0", "version.llamafactory", "0.9.1.dev0"),
    ("torch version .................... 2.1.2+cu121", "version.torch", "2.1.2+cu121"),  # ds_report
    ("[2024-05-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.9.5, "
     "git-hash=unknown, git-branch=unknown", "version.deepspeed", "0.9.5"),
    ("transformers==4.37.2", "version.transformers", "4.37.2"),  # pip freeze
    ("RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:911, unhandled system error, "
     "NCCL version 2.7.8", "version.nccl", "2.7.8"),
    ("[2023-09-13 22:57:55,685] [INFO] [stage_1_and_2.py:146:__init__] Reduce bucket size 500,000,000",
     "reduce_bucket_size", 500000000),  # huggingface/accelerate#1970
    ("[2022-03-11 02:05:42,731] [INFO] [stage_1_and_2.py:126:__init__] Allgather bucket size 500000000.0",
     "allgather_bucket_size", 500000000),  # deepspeedai/DeepSpeed#1825
    ("    reduce_bucket_size: 500_000_000", "reduce_bucket_size", 500000000),  # DeepSpeed#6351 YAML
    ('    "reduce_bucket_size": 5e8,', "reduce_bucket_size", 500000000),
    ("    stage: 2", "zero_stage", 2),
    ('    "stage": 3,', "zero_stage", 3),
    (" --deepspeed examples/deepspeed/ds_z3_offload_config.json \\", "zero_stage", 3),  # devset 008
    ("    --deepspeed zero2", "zero_stage", 2),  # devset 001 (ms-swift)
    ("deepspeed: examples/deepspeed/ds_z2_config.json", "zero_stage", 2),
    ("bf16: true", "bf16", True),
    ('  "bf16": {"enabled": true},', "bf16", True),
    ("    --fp16 True \\", "fp16", True),  # devset 033 (LLaVA)
    (" --fp16", "fp16", True),  # devset 008
    ("fp16: false", "fp16", False),
    ("    --finetuning_type full \\", "finetuning_type", "full"),  # hiyouga/LlamaFactory#6357
    ("finetuning_type: lora", "finetuning_type", "lora"),
    ("    --train_type lora \\", "finetuning_type", "lora"),  # ms-swift
    ("    --lora_enable True --lora_r 128 --lora_alpha 256 --mm_projector_lr 2e-5 \\", "finetuning_type", "lora"),  # LLaVA
    ("gradient_checkpointing: true", "gradient_checkpointing", True),
    ("    --gradient_checkpointing \\", "gradient_checkpointing", True),
    ("disable_gradient_checkpointing: true", "gradient_checkpointing", False),
    ("gradient_checkpointing_kwargs={'use_reentrant': False},", "use_reentrant", False),
    ("    --freeze_vit false \\", "freeze_vision_tower", False),  # devset 001
    ("freeze_vision_tower: true", "freeze_vision_tower", True),
    ("    --per_device_train_batch_size 4 \\", "batch_size", 4),
    ("  Instantaneous batch size per device = 2", "batch_size", 2),  # HF Trainer banner
    ("  Gradient Accumulation steps = 8", "gradient_accumulation_steps", 8),
    ("    --cutoff_len 1024     --preprocessing_num_workers 16", "max_length", 1024),  # LLaMA-Factory CLI
    ("    --model_max_length 2048 \\", "max_length", 2048),  # LLaVA scripts
    ("max_seq_length: 4096", "max_length", 4096),  # axolotl / TRL YAML
    ("--num_train_epochs 6 --max_length 2048 --check_dataset_strategy warning", "max_length", 2048),  # ms-swift
    ("--image_min_pixels 200704 --image_max_pixels 1003520", "max_pixels", 1003520),
    ("    --learning_rate 5e-5     --num_train_epochs 5.0", "learning_rate", 5e-05),
    ("--weight_decay 0.1 --learning_rate 1e-04 --max_grad_norm 0.5", "max_grad_norm", 0.5),
    ("[2023-09-12 00:26:13,147] [INFO] [config.py:967:print]   gradient_clipping ............ 1.0",
     "max_grad_norm", 1),  # DeepSpeed config print
    ("Num processes: 2", "world_size", 2),  # accelerate's state
    ("torchrun --standalone --nproc_per_node=4 train_sft.py \\", "nproc_per_node", 4),
    ("model_name_or_path: Qwen/Qwen2-VL-7B-Instruct", "model", "Qwen2-VL"),
    ("model_name_or_path: Qwen/Qwen2.5-VL-7B-Instruct", "model", "Qwen2.5-VL"),
    ("    --model_type minicpm-v-v2_6-chat \\", "model", "MiniCPM-V"),
]


def _sheet(*texts):
    sheet = FactSheet()
    for i, raw in enumerate(texts, 1):
        c = clean(raw)
        sheet.observe(Line("x.log", i, c.text, c.rank, c.host))
    return sheet


@pytest.mark.parametrize("text,key,value", LINES)
def test_a_fact_is_read_from_each_printer(text, key, value):
    facts = _sheet(text).facts
    assert key in facts, facts
    assert facts[key].value == value and type(facts[key].value) is type(value)


@pytest.mark.parametrize("text", [
    "stage: sft",  # LLaMA-Factory's training stage, not ZeRO's
    "[INFO|trainer.py:2433] 2025-09-05 19:10:49,989 >> saving checkpoint-10 to output/checkpoint-10",
    "  File \"/usr/lib/python3.10/site-packages/deepspeed/runtime/zero/stage_1_and_2.py\", line 867, in reduce",
    "We use bf16 for most runs",
])
def test_near_misses_state_no_config(text):
    facts = _sheet(text).facts
    assert not set(facts) & {"zero_stage", "bf16", "fp16", "batch_size"}, facts


@pytest.mark.parametrize("text", [
    "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 0.0001, 'epoch': 0.05}",  # one step's scheduled rate
    "lr_scheduler_type: cosine",
    "[INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=2, lr=[1.9e-05], mom=[(0.9, 0.999)]",
    "  \"max_length\": 20,",  # generation_config.json, not the training limit
])
def test_step_values_and_generation_limits_are_not_the_runs_setting(text):
    facts = _sheet(text).facts
    assert not set(facts) & {"learning_rate", "max_grad_norm", "max_length"}, facts


def test_advice_about_the_users_log_needs_the_log_to_say_it():
    """Advice that tells users what their log shows renders only from what the log states: with no
    facts and no captured values, none of it appears (a generic step belongs in the fix)."""
    from vlkb.kb import load

    spoken = [(e.id, a) for e in load() for a in e.advice if "your log" in a.text.lower()]
    assert spoken
    assert [(i, a.text) for i, a in spoken if a.render({}, {}) is not None] == []


@pytest.mark.parametrize("text,dtype", [
    ("  \"torch_dtype\": \"bfloat16\",", "bfloat16"),  # a config.json print
    ("model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float16)", "float16"),
    ("--torch_dtype bfloat16 \\", "bfloat16"),  # LLaMA-Factory / ms-swift flag
    ("torch_dtype: auto", "auto"),
])
def test_the_dtype_the_model_is_loaded_in_is_a_fact(text, dtype):
    assert _sheet(text).facts["dtype"].value == dtype


@pytest.mark.parametrize("text", ["x = torch.zeros(3, dtype=torch.float16)", "torch_dtype is deprecated! Use dtype instead!"])
def test_a_tensors_dtype_or_a_notice_is_not_the_models(text):
    assert "dtype" not in _sheet(text).facts


def test_the_first_value_wins_and_rank_prefixes_do_not_matter():
    facts = _sheet("[rank0]: bf16: true", "[rank1]: bf16: false").facts
    assert facts["bf16"].value is True and facts["bf16"].line.lineno == 1


def test_conditions_confirm_contradict_or_abstain():
    facts = _sheet("    stage: 1", "- Transformers version: 4.45.0").facts
    assert Condition("zero_stage", ">=", 2).holds(facts) is False
    assert Condition("zero_stage", "==", 1).holds(facts) is True
    assert Condition("fp16", "==", True).holds(facts) is None  # the log does not say
    assert Condition("version.transformers", "in", ">=4.45,<4.47").holds(facts) is True
    assert Condition("version.transformers", "<", "4.45.1").holds(facts) is True
    assert Condition("version.transformers", "in", ">=4.46").holds(facts) is False
    assert version_key("2.4.0+cu124") == (2, 4, 0) and version_key("0.9.1.dev0") == (0, 9, 1)
    assert version_key("4.\u00b9") == (4,) and version_key("\u00b2.1") == ()  # superscripts: str digits, not int's


def test_a_version_with_a_digit_int_cannot_read_is_no_crash(engine, tmp_path):
    """A stranger's log that states `transformers==4.¹` (issue 15): read as far as it is a version, never
    a traceback, and the failure in the log is still diagnosed."""
    p = tmp_path / "x.log"
    p.write_bytes("transformers==4.\u00b9\nTraceback (most recent call last):\n  File \"x.py\", line 1, in f\n"
                  "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n".encode())
    d = engine.diagnose([str(p)])
    assert d.verdict == "known" and d.named.entry.id == "cuda-oom"


def test_advice_fills_in_the_logs_values_only_when_it_applies():
    advice = Advice([Condition("reduce_bucket_size", ">", 200000000)],
                    "Your log shows `reduce_bucket_size: {reduce_bucket_size}`; set 200000000.")
    big = _sheet("    reduce_bucket_size: 500_000_000").facts
    assert advice.render(big) == "Your log shows `reduce_bucket_size: 500000000`; set 200000000."
    assert advice.render(_sheet("    reduce_bucket_size: 1e8").facts) is None
    assert advice.render({}) is None
    needs_two = Advice([], "batch {batch_size} x accumulation {gradient_accumulation_steps}")
    assert needs_two.render(_sheet("    --per_device_train_batch_size 4 \\").facts) is None  # never "{...}"
    assert needs_two.render(_sheet("    --per_device_train_batch_size 4 \\", "  Gradient Accumulation steps = 8")
                            .facts) == "batch 4 x accumulation 8"


ZERO = fx.parse(shipped_dir() / "zero-grad-reduced-twice" / "zero-grad-reduced-twice.pos-ms-swift-dpo-minicpmv.log")
# an excerpt cut before its assertion: only frames remain, so the confidence has room to move
PARTIAL = fx.parse(shipped_dir() / "zero-grad-reduced-twice" / "zero-grad-reduced-twice.pos-llamafactory-minicpmv-partial.log")
CONFIG = "gradient_checkpointing: true\ndeepspeed: examples/deepspeed/ds_z2_config.json\n"


def _context(d):
    return next((g for g in d.matches[0].signals if g.name == "context"), None)


def test_conditions_move_the_confidence_both_ways(engine, tmp_path):
    """The same real failure after a config that confirms the entry's conditions, and after one
    that contradicts them (ZeRO stage 1, non-reentrant checkpointing)."""
    plain, pro, con = tmp_path / "plain.log", tmp_path / "pro.log", tmp_path / "con.log"
    plain.write_text(PARTIAL.text)
    pro.write_text(CONFIG + PARTIAL.text)
    con.write_text("gradient_checkpointing: true\n    stage: 1\nuse_reentrant: false\n" + PARTIAL.text)
    base = engine.diagnose([str(plain)]).matches[0]
    up, down = engine.diagnose([str(pro)]), engine.diagnose([str(con)])
    assert up.matches[0].entry.id == base.entry.id == "zero-grad-reduced-twice"
    assert up.matches[0].confidence > base.confidence
    assert "log shows zero_stage >= 2" in _context(up).detail
    assert "log contradicts zero_stage >= 2" in _context(down).detail
    assert down.matches[0].confidence < up.matches[0].confidence


def test_facts_and_advice_in_every_format(run_vlkb, tmp_path):
    log = tmp_path / "run.log"
    log.write_text(CONFIG + ZERO.text)
    _, text, _ = run_vlkb("diagnose", str(log), "--no-color")
    assert "Run (as the log states it)" in text and "zero_stage: 2" in text
    assert "For this run" in text and "ZeRO stage 2: make it non-reentrant" in text
    _, out, _ = run_vlkb("diagnose", str(log), "--format", "json")
    d = json.loads(out)
    assert {"key": "zero_stage", "value": 2, "path": str(log), "line": 2,
            "text": "deepspeed: examples/deepspeed/ds_z2_config.json", "rank": None} in d["run"]
    assert any("ZeRO stage 2" in a for a in d["matches"][0]["advice"])
    _, md, _ = run_vlkb("diagnose", str(log), "--format", "markdown")
    assert "| zero\\_stage | 2 |" in md and "**For this run**" in md


def test_a_short_sequence_limit_in_the_log_is_named_in_the_advice(engine):
    """LLaVA with --model_max_length 256: the image's tokens do not fit; the advice quotes 256."""
    path = shipped_dir() / "image-token-mismatch" / "image-token-mismatch.pos-llava-start-end-tokens.log"
    d = engine.diagnose([str(path)])
    assert d.named.entry.id == "image-token-mismatch"
    assert d.run["max_length"].value == 256
    assert any("sequence limit to 256 tokens" in a for a in d.named.advice)


def test_facts_are_ordered_config_first():
    facts = _sheet("- Transformers version: 4.45.0", "bf16: true", "model_name_or_path: Qwen/Qwen2-VL-7B").facts
    assert [f.key for f in ordered(facts)] == ["model", "bf16", "version.transformers"]


def test_a_bad_version_range_is_named_with_its_key():
    from vlkb.kb.schema import problems
    from vlkb.kb.loader import read_yaml

    doc = read_yaml(shipped_dir() / "loss-nan" / "loss-nan.yaml")
    doc["conditions"] = [{"fact": "version.transformers", "op": "in", "value": "about 4.45"}]
    found = problems(doc)
    assert found and found[0][0] == "conditions" and "not a version constraint" in found[0][1]


def test_a_version_fact_fills_advice_and_conditions():
    from vlkb.kb import load

    entry = next(e for e in load() if e.id == "tensor-does-not-require-grad")
    old = _sheet("- Transformers version: 4.45.0").facts
    assert any(c.fact == "version.transformers" and c.holds(old) for c in entry.conditions)
    assert any("transformers 4.45.0" in (a.render(old) or "") for a in entry.advice)
    new = _sheet("- Transformers version: 5.23.0").facts
    assert not any(a.render(new) for a in entry.advice if "transformers" in a.text)


def test_the_gate_finds_a_word_where_a_word_by_word_search_does():
    """factshapes.gated looks for all its words in one pass (Aho-Corasick): on every line of the KB's
    positive fixtures, and on lines with a lone surrogate the automaton cannot take, it agrees with `in`."""
    from pathlib import Path

    from vlkb.analyzer import factshapes as fs
    from vlkb.kb.fixtures import parse

    root = Path(__file__).resolve().parent.parent / "kb" / "entries"
    lines = [line for path in sorted(root.glob("*/*.pos-*.log")) for line in parse(path).text.splitlines()]
    lines += ["x \ud83d --bf16 true", "\udcff only a surrogate", "ZeRO Stage 2 \ud800"]
    assert len(lines) > 20000
    for text in lines:
        low = text[:4000].lower()
        assert fs._has_gate_word(low) == any(w in low for w in fs._GATE), text
