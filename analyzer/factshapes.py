"""The shapes a run fact is read from, each quoted from a printer's real output:
  llamafactory-cli env     "- Transformers version: 4.45.0", "- PyTorch version: 2.4.0+cu124 (GPU)"
  ds_report                "torch version .................... 2.1.2+cu121"
  DeepSpeed banner         "DeepSpeed info: version=0.9.5, git-hash=unknown, git-branch=unknown"
  DeepSpeed config print   "zero_optimization_stage ...... 2", "bfloat16_enabled ....... True"
  DeepSpeed ZeRO init      "[stage_1_and_2.py:146:__init__] Reduce bucket size 500,000,000"
  pip list / freeze        "transformers        4.45.0", "torch==2.1.0"
  YAML, CLI and JSON       "gradient_checkpointing: true", "--fp16 True", "--bf16", "\"stage\": 2",
                           "finetuning_type: lora", "--train_type lora", "--lora_enable True"
  TrainingArguments repr   "gradient_checkpointing=True,"

facts.FactSheet reads them; TRIGGER_WORDS and CONFIG_TRIGGER are what the scan needs to hand a
line over at all, and gated() what a line needs before any extractor is tried on it.
"""
import re

from . import rx

from .trigger import ahocorasick_rs  # None without its wheel: the gate then tests each word in turn


# distribution names as printed -> the fact key "version.<name>"
_LIBS = {
    "torch": "torch", "pytorch": "torch", "transformers": "transformers", "deepspeed": "deepspeed",
    "accelerate": "accelerate", "peft": "peft", "trl": "trl", "flash-attn": "flash_attn",
    "flash_attn": "flash_attn", "llamafactory": "llamafactory", "ms-swift": "ms_swift", "swift": "ms_swift",
    "colossalai": "colossalai", "python": "python", "datasets": "datasets", "bitsandbytes": "bitsandbytes",
    "vllm": "vllm", "nccl": "nccl", "cuda": "cuda", "unsloth": "unsloth", "unsloth_zoo": "unsloth_zoo",
    "unsloth-zoo": "unsloth_zoo", "xformers": "xformers", "triton": "triton", "verl": "verl",
    "openrlhf": "openrlhf", "axolotl": "axolotl", "tokenizers": "tokenizers", "safetensors": "safetensors",
    "huggingface-hub": "huggingface_hub", "huggingface_hub": "huggingface_hub", "torchtune": "torchtune",
    "liger-kernel": "liger_kernel", "liger_kernel": "liger_kernel",
}
_LIB_NAMES = "|".join(sorted(map(re.escape, _LIBS), key=len, reverse=True))


def version_fact(name: str) -> str:
    """The fact key a library's version is read into: `version.ms_swift` for "ms-swift" or "swift"."""
    name = name.lower()
    return f"version.{_LIBS.get(name, name)}"

_VER = r"(?P<v>\d+(?:\.[\w+]+)+)"
VERSIONS = [
    rx.compile(rf"^\s*-\s*`?(?P<name>{_LIB_NAMES})`?\s+version:\s*{_VER}", re.I),  # llamafactory-cli env
    rx.compile(rf"^\s*(?P<name>{_LIB_NAMES})\s+(?:version|info)\s*\.{{3,}}\s*{_VER}", re.I),  # ds_report
    rx.compile(rf"^(?P<name>{_LIB_NAMES})(?:==|\s{{2,}}){_VER}\s*$", re.I),  # pip freeze / pip list
    rx.compile(rf"\b(?P<name>{_LIB_NAMES})\.__version__\W+{_VER}", re.I),
    rx.compile(rf"(?P<name>DeepSpeed) info: version={_VER}"),
    rx.compile(rf"\b(?P<name>NCCL) version {_VER}"),
]

# Vision-language model families, from paths, repo ids, model_type and modeling files.
MODELS = [
    ("Qwen2.5-VL", r"qwen2[._]5[-_]?vl"), ("Qwen2-VL", r"qwen2[-_]?vl"), ("Qwen-VL", r"qwen[-_]vl"),
    ("MiniCPM-V", r"minicpm[-_]?(?:llama3[-_])?v|minicpmv"), ("LLaVA", r"llava"), ("InternVL", r"internvl"),
    ("CogVLM", r"cogvlm"), ("Idefics", r"idefics"), ("PaliGemma", r"paligemma"),
    ("Phi-3-vision", r"phi[-_]?3(?:\.5)?[-_]vision"), ("Llama-3.2-Vision", r"llama[-_]?3\.2.*vision|mllama"),
    ("DeepSeek-VL", r"deepseek[-_]vl"), ("GLM-4V", r"glm[-_]?4v"), ("Pixtral", r"pixtral"),
]
# A dataset named after a model ("--dataset llava_cot_train") says nothing about the model trained.
DATA_LINE = rx.compile(r"dataset|data_path|image_folder", re.I)
ANY_MODEL = rx.compile("|".join(f"(?P<m{i}>{p})" for i, (_, p) in enumerate(MODELS)), re.I)

_SEP = r"""["']?\s*(?:[:=]|\s\.{3,}|\s+(?=[\w"'.-]))\s*["']?"""  # key: v, key=v, key .... v, --key v
_BOOL = r"(?P<v>true|false|True|False|TRUE|FALSE|1|0|yes|no)\b"
_NUM = r"(?P<v>\d[\d,_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)"


def _key(names: str) -> str:
    return rf"""(?:^|[\s,{{(\['"])(?:--)?(?:{names})"""


# key, regex, kind ("bool" | "int" | "float" | "word" | "flag": a bare --flag means true)
CONFIG = [
    ("zero_stage", rx.compile(r"(?:zero_optimization_stage|\bzero_stage|\"stage\"|'stage'|zero_config\s*\.+\s*stage)"
                              r"""["']?\s*(?:[:=]|\s\.{3,})\s*["']?(?P<v>[0-3])\b""", re.I), "int"),
    ("zero_stage", rx.compile(r"^\s*stage:\s*(?P<v>[0-3])\s*$"), "int"),  # DeepSpeed YAML (LLaMA-Factory's is "stage: sft")
    ("zero_stage", rx.compile(r"(?:\bds_z|(?<![A-Za-z])zero_?(?:stage_?)?|ZeRO Stage )(?P<v>[0-3])(?:_\w+)?(?:\.json|\b)", re.I), "int"),
    ("reduce_bucket_size", rx.compile(_key("reduce_bucket_size") + _SEP + _NUM + r"|Reduce bucket size " + _NUM.replace("P<v>", "P<v2>")), "int"),
    ("allgather_bucket_size", rx.compile(_key("allgather_bucket_size") + _SEP + _NUM + r"|Allgather bucket size " + _NUM.replace("P<v>", "P<v2>")), "int"),
    ("bf16", rx.compile(_key("bf16|bfloat16_enabled") + r"(?:" + _SEP + _BOOL + r"|(?P<flag>\s*(?:\\|$|--)))"), "flag"),
    ("bf16", rx.compile(r"""["']bf16["']\s*:\s*\{\s*["']enabled["']\s*:\s*(?P<v>true|false)""", re.I), "bool"),
    ("fp16", rx.compile(_key("fp16|fp16_enabled") + r"(?:" + _SEP + _BOOL + r"|(?P<flag>\s*(?:\\|$|--)))"), "flag"),
    ("fp16", rx.compile(r"""["']fp16["']\s*:\s*\{\s*["']enabled["']\s*:\s*(?P<v>true|false)""", re.I), "bool"),
    ("gradient_checkpointing", rx.compile(_key("gradient_checkpointing") + r"(?:" + _SEP + _BOOL + r"|(?P<flag>\s*(?:\\|$|--)))"), "flag"),
    ("gradient_checkpointing", rx.compile(_key("disable_gradient_checkpointing") + _SEP + r"(?P<neg>true|True)\b"), "bool"),
    ("use_reentrant", rx.compile(r"""use_reentrant["']?\s*[:=]\s*["']?""" + _BOOL), "bool"),
    ("freeze_vision_tower", rx.compile(_key("freeze_vision_tower|freeze_vit") + _SEP + _BOOL), "bool"),
    # LLaMA-Factory finetuning_type, ms-swift train_type / sft_type, LLaVA-style --lora_enable True
    ("finetuning_type", rx.compile(_key("finetuning_type|train_type|sft_type") + _SEP
                                   + r"(?P<v>q?lora|freeze|full|dora|oft|adalora)\b", re.I), "word"),
    ("finetuning_type", rx.compile(_key("lora_enable") + _SEP + r"(?P<lora>true|True)\b"), "word"),
    ("batch_size", rx.compile(_key("per_device_train_batch_size|train_micro_batch_size_per_gpu|micro_batch_size")
                              + _SEP + _NUM + r"|Instantaneous batch size per device = " + _NUM.replace("P<v>", "P<v2>")), "int"),
    ("gradient_accumulation_steps", rx.compile(_key("gradient_accumulation_steps") + _SEP + _NUM
                                               + r"|Gradient Accumulation steps = " + _NUM.replace("P<v>", "P<v2>")), "int"),
    # the sequence limit: LLaMA-Factory cutoff_len, LLaVA/HF model_max_length, TRL/axolotl max_seq_length,
    # ms-swift --max_length (only as a flag: a bare max_length is also generation_config's)
    ("max_length", rx.compile(_key("cutoff_len|model_max_length|max_seq_length|max_seq_len|sequence_len") + _SEP + _NUM
                              + r"|(?:^|\s)--max_length[= ]" + _NUM.replace("P<v>", "P<v2>")), "int"),
    # an image's pixel cap: LLaMA-Factory image_max_pixels, Qwen2-VL processor max_pixels, ms-swift MAX_PIXELS
    ("max_pixels", rx.compile(_key("image_max_pixels|max_pixels|MAX_PIXELS") + _SEP + _NUM), "int"),
    # the dtype the model is loaded in: transformers' torch_dtype (config.json prints, from_pretrained
    # arguments, LLaMA-Factory/ms-swift --torch_dtype), as the user wrote it
    ("dtype", rx.compile(_key("torch_dtype") + _SEP + r"(?:torch\.)?(?P<v>bfloat16|float16|float32|bf16|fp16|fp32|half|auto)\b"),
     "word"),
    ("learning_rate", rx.compile(_key("learning_rate|lr") + _SEP + _NUM), "float"),
    # HF/LLaMA-Factory max_grad_norm, DeepSpeed gradient_clipping, Lightning gradient_clip_val
    ("max_grad_norm", rx.compile(_key("max_grad_norm|gradient_clipping|gradient_clip_val|clip_grad") + _SEP + _NUM), "float"),
    # accelerate's state print "Num processes: 8", torchrun/DeepSpeed "world_size=8"
    ("world_size", rx.compile(_key("world_size|num_processes") + _SEP + _NUM
                              + r"|\bNum processes: " + _NUM.replace("P<v>", "P<v2>")), "int"),
    ("nproc_per_node", rx.compile(_key("nproc_per_node|nproc-per-node|num_gpus") + _SEP + _NUM), "int"),
    # the command that started the run names the framework the user drives ("swift rlhf \", "llamafactory-cli
    # train x.yaml", "NPROC_PER_NODE=8 swift sft ...", "python3 -m verl.trainer.main_ppo ..."), which a
    # traceback cut inside DeepSpeed or torch does not show (framework.detect)
    ("launcher", rx.compile(r"^(?:\$ )?(?:[A-Z][A-Z0-9_]{1,40}=\S{0,200} {1,4}){0,8}(?:(?P<v>swift|llamafactory-cli|axolotl)"
                            r" {1,4}(?:sft|rlhf|pt|infer|export|deploy|sample|eval|app|web-ui|train|chat|webui|api|preprocess)\b"
                            r"|(?:python3?|torchrun|deepspeed|accelerate launch)\b.{0,300}? -m (?P<v2>verl|openrlhf|axolotl|llamafactory|swift)\.)"),
     "word"),
]
# A metrics line (the Trainer's {'loss': ..., 'learning_rate': ...}) states the scheduled rate of one
# step, not the run's setting: the config keys it repeats are not read from it.
METRICS_LINE = rx.compile(r"""['"](?:loss|epoch)['"]\s*:""")
STEP_VALUES = {"learning_rate", "max_grad_norm"}

# Lines that state how the run was configured; KB `context` hints are matched against them.
CONFIG_LINE = rx.compile(
    r"gradient_checkpointing|use_reentrant|zero_optimization|\"stage\"\s*:|--deepspeed|deepspeed[:=]"
    r"|\bzero[_-]?(?:stage[_ ]?)?[123]\b|ds_z[0-3]|\bbf16\b|\bfp16\b|freeze_vi|GeminiPlugin|HybridAdam"
    r"|clip_grad|max_grad_norm|find_unused_parameters|Qwen2(?:\.5)?[-_]?VL|MiniCPM-?V"
    r"|finetuning_type|train_type|sft_type|lora_enable",
    re.I,
)
CONFIG_TRIGGER = (rb"gradient_checkpointing|use_reentrant|zero_optimization|\"stage\"|deepspeed|DeepSpeed"
                 rb"|zero[123_-]|ds_z|bf16|fp16|freeze_vi|Gemini|HybridAdam|clip_grad|max_grad_norm"
                 rb"|find_unused|Qwen2|MiniCPM|finetuning_type|train_type|sft_type|lora_enable")

# Literal words at least one of which every line holding a fact contains (the scan's trigger).
TRIGGER_WORDS = [
    "version", "Version", "DeepSpeed", "deepspeed", "stage", "ZeRO", "zero", "ds_z", "bucket size", "bf16",
    "bfloat16", "fp16", "gradient_checkpointing", "use_reentrant", "freeze_vi", "batch_size", "batch size",
    "accumulation", "Accumulation", "torch==", "transformers", "Qwen", "qwen", "MiniCPM", "minicpm", "llava",
    "LLaVA", "InternVL", "internvl", "CogVLM", "cogvlm", "idefics", "Idefics", "paligemma", "PaliGemma",
    "vision", "Vision", "mllama", "DeepSeek-VL", "deepseek_vl", "GLM-4V", "glm4v", "pixtral", "Pixtral", "NCCL",
    "finetuning_type", "train_type", "sft_type", "lora_enable", "cutoff_len", "max_length", "max_seq_len",
    # the rate as a setting ("learning_rate: 1e-4", "--learning_rate 2e-5", "learning_rate=2e-05,", JSON), never
    # the Trainer's per-step metrics dict ("'learning_rate': 1.9e-05"), which is a quarter of a quiet log's lines
    "sequence_len", "max_pixels", "MAX_PIXELS", "learning_rate:", "learning_rate=", "learning_rate ", 'learning_rate"',
    "gradient_clipping", "gradient_clip_val", "torch_dtype",
    "world_size", "Num processes", "num_processes", "nproc_per_node", "nproc-per-node", "num_gpus",
    "swift ", "llamafactory-cli", "axolotl", "-m verl.", "-m openrlhf.", "-m llamafactory.",
]


# Lower-case literals one of which every line any extractor or CONFIG_LINE can match contains: a
# line without them (most lines, and every long error line) costs a few substring tests, not 30
# regex searches (about 2 ms on a 2 KB line).
_GATE = sorted({w.lower() for w in TRIGGER_WORDS} | {"==",
    "gradient_checkpointing", "use_reentrant", "zero", "ds_z", "bf16", "fp16", "freeze_vi", "gemini", "hybridadam",
    "clip_grad", "max_grad_norm", "find_unused", "qwen", "minicpm", "stage", "deepspeed", "bucket", "batch",
    "finetuning_type", "train_type", "sft_type", "lora_enable"} | {m.split("[")[0].split("(")[0].lower()
                                                                   for _, m in MODELS})


# pip list / freeze: the name leads, after at most a short indent (an unbounded `\s*` retried every
# library name at each of a long run of spaces: 77 s for a line of 20,000)
_PIP_LINE = rx.compile(rf"\s{{0,40}}(?:{_LIB_NAMES})(?:==|\s{{2}})", re.I)


# one pass over the line for all the gate's words (a Python `in` per word took a quarter of the time of
# a log of distinct error lines, each of which the parser hands to the fact extractors)
_GATE_WORDS = ahocorasick_rs.AhoCorasick(_GATE) if ahocorasick_rs is not None else None


def gated(text: str) -> bool:
    low = text[:4000].lower()  # the extractors read no longer line
    return _has_gate_word(low) or _PIP_LINE.match(low) is not None


def _has_gate_word(low: str) -> bool:
    if _GATE_WORDS is not None:
        try:
            return bool(_GATE_WORDS.find_matches_as_indexes(low))
        except UnicodeEncodeError:  # a lone surrogate (an unescaped JSON "\ud83d"), which the automaton cannot take
            pass
    return any(w in low for w in _GATE)


def trigger_pieces() -> list[bytes]:
    """Regex pieces for the scan's trigger: every line `FactSheet` reads contains one of them."""
    return [CONFIG_TRIGGER, *(re.escape(w.encode()) for w in TRIGGER_WORDS)]
