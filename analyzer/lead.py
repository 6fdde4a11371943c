"""What vlkb can still say about a failure no entry explains: where to look and whom to ask.

A person facing an unknown traceback quotes the exception line, reads the last frames, works out
which library raised it (the deepest frame inside site-packages), checks that library's version, and
searches its issue tracker for the message. This module does those steps from the log alone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote_plus

from .facts import version_fact
from .model import Frame, Incident, Line

# import name -> its GitHub repository (the version's fact key is facts.version_fact(name))
LIBRARIES = {
    "torch": "pytorch/pytorch",
    "transformers": "huggingface/transformers",
    "peft": "huggingface/peft",
    "trl": "huggingface/trl",
    "accelerate": "huggingface/accelerate",
    "datasets": "huggingface/datasets",
    "tokenizers": "huggingface/tokenizers",
    "safetensors": "huggingface/safetensors",
    "huggingface_hub": "huggingface/huggingface_hub",
    "deepspeed": "deepspeedai/DeepSpeed",
    "llamafactory": "hiyouga/LLaMA-Factory",
    "swift": "modelscope/ms-swift",
    "colossalai": "hpcaitech/ColossalAI",
    "bitsandbytes": "bitsandbytes-foundation/bitsandbytes",
    "flash_attn": "Dao-AILab/flash-attention",
    "vllm": "vllm-project/vllm",
    "verl": "volcengine/verl",
    "openrlhf": "OpenRLHF/OpenRLHF",
    "unsloth": "unslothai/unsloth",
    "unsloth_zoo": "unslothai/unsloth-zoo",
    "axolotl": "axolotl-ai-cloud/axolotl",
    "torchtune": "pytorch/torchtune",
    "lightning": "Lightning-AI/pytorch-lightning",
    "pytorch_lightning": "Lightning-AI/pytorch-lightning",
    "nemo": "NVIDIA/NeMo",
    "megatron": "NVIDIA/Megatron-LM",
    "xtuner": "InternLM/xtuner",
    "xformers": "facebookresearch/xformers",
    "triton": "triton-lang/triton",
    "liger_kernel": "linkedin/Liger-Kernel",
    "qwen_vl_utils": "QwenLM/Qwen2.5-VL",
    "torch_npu": "Ascend/pytorch",
    "mmengine": "open-mmlab/mmengine",
}
_SITE = re.compile(r"[\\/](?:site|dist)-packages[\\/](\w+)")
# what a search for the message should not carry: long quoted values, then any word holding a path,
# a number, an id or markup. Words are filtered one by one: a regex of `\S*x\S*` alternatives would
# rescan a long word from each of its characters (quadratic on a hostile line).
_QUOTED = re.compile(r"'[^']{25,}'|\"[^\"]{25,}\"")
_NOISY_WORD = re.compile(r"[<>\\/\d]")
SEARCH_WORDS = 14
MAX_FRAMES = 3


@dataclass
class Lead:
    quoted: Line  # the line a person would quote
    frames: list[Frame] = field(default_factory=list)  # the last frames, innermost last
    library: str | None = None  # the import name of the library whose code raised it
    version: str | None = None  # its version, when the log states it
    search_url: str | None = None  # that library's issues, searched for the canonical message

    @property
    def where(self) -> str:
        lib = self.library or "the library that raised it"
        return f"{lib} {self.version}" if self.version else lib


def library_of(frames: list[Frame]) -> str | None:
    """The library whose code raised: the innermost frame inside site-packages, skipping torch's
    own plumbing when a library called into it (a module's `_call_impl`, autograd's `backward`)."""
    found = [m.group(1) for f in frames if (m := _SITE.search(f.file))]
    for name in reversed(found):
        if name != "torch" or all(n == "torch" for n in found):
            return name
    return None


def search_terms(inc: Incident) -> str:
    """The exception and the first words of its message, without paths, numbers or ids."""
    head = (inc.message.splitlines() or [""])[0] if inc.message else inc.quoted.text
    words = [w for w in _QUOTED.sub(" ", head).split() if not _NOISY_WORD.search(w)][:SEARCH_WORDS]
    return " ".join(filter(None, [inc.exception.rsplit(".", 1)[-1] if inc.exception else None, *words]))


def lead(inc: Incident, facts: dict) -> Lead:
    library = library_of(inc.frames)
    repo = LIBRARIES.get(library or "")
    fact = facts.get(version_fact(library)) if library else None
    terms = search_terms(inc)
    url = f"https://github.com/{repo}/issues?q={quote_plus('is:issue ' + terms)}" if repo and terms else None
    return Lead(inc.quoted, inc.frames[-MAX_FRAMES:], library, fact.value if fact else None, url)
