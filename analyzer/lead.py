"""What vlkb can still say about a failure no entry explains: where to look and whom to ask.

A person facing an unknown traceback quotes the exception line, reads the last frames, works out
which library raised it (the deepest frame inside site-packages), checks that library's version, and
searches its issue tracker for the message. This module does those steps from the log alone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote_plus

from .model import Frame, Incident, Line

# import name -> (GitHub repository, the fact key vlkb reads its version into)
LIBRARIES = {
    "torch": ("pytorch/pytorch", "version.torch"),
    "transformers": ("huggingface/transformers", "version.transformers"),
    "peft": ("huggingface/peft", "version.peft"),
    "trl": ("huggingface/trl", "version.trl"),
    "accelerate": ("huggingface/accelerate", "version.accelerate"),
    "datasets": ("huggingface/datasets", "version.datasets"),
    "tokenizers": ("huggingface/tokenizers", "version.tokenizers"),
    "safetensors": ("huggingface/safetensors", "version.safetensors"),
    "huggingface_hub": ("huggingface/huggingface_hub", "version.huggingface_hub"),
    "deepspeed": ("deepspeedai/DeepSpeed", "version.deepspeed"),
    "llamafactory": ("hiyouga/LLaMA-Factory", "version.llamafactory"),
    "swift": ("modelscope/ms-swift", "version.ms_swift"),
    "colossalai": ("hpcaitech/ColossalAI", "version.colossalai"),
    "bitsandbytes": ("bitsandbytes-foundation/bitsandbytes", "version.bitsandbytes"),
    "flash_attn": ("Dao-AILab/flash-attention", "version.flash_attn"),
    "vllm": ("vllm-project/vllm", "version.vllm"),
    "verl": ("volcengine/verl", "version.verl"),
    "openrlhf": ("OpenRLHF/OpenRLHF", "version.openrlhf"),
    "unsloth": ("unslothai/unsloth", "version.unsloth"),
    "unsloth_zoo": ("unslothai/unsloth-zoo", "version.unsloth_zoo"),
    "axolotl": ("axolotl-ai-cloud/axolotl", "version.axolotl"),
    "torchtune": ("pytorch/torchtune", "version.torchtune"),
    "lightning": ("Lightning-AI/pytorch-lightning", "version.lightning"),
    "pytorch_lightning": ("Lightning-AI/pytorch-lightning", "version.pytorch_lightning"),
    "nemo": ("NVIDIA/NeMo", "version.nemo"),
    "megatron": ("NVIDIA/Megatron-LM", "version.megatron"),
    "xtuner": ("InternLM/xtuner", "version.xtuner"),
    "xformers": ("facebookresearch/xformers", "version.xformers"),
    "triton": ("triton-lang/triton", "version.triton"),
    "liger_kernel": ("linkedin/Liger-Kernel", "version.liger_kernel"),
    "qwen_vl_utils": ("QwenLM/Qwen2.5-VL", "version.qwen_vl_utils"),
    "torch_npu": ("Ascend/pytorch", "version.torch_npu"),
    "mmengine": ("open-mmlab/mmengine", "version.mmengine"),
}
_SITE = re.compile(r"[\\/](?:site|dist)-packages[\\/](\w+)")
# what a search for the message should not carry: paths, numbers, ids, long quoted values
_NOISE = re.compile(r"(?:\S*[<>]\S*|\S*[\\/]\S*|\S*\d\S*|'[^']{25,}'|\"[^\"]{25,}\")")
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
    words = _NOISE.sub(" ", head).split()[:SEARCH_WORDS]
    return " ".join(filter(None, [inc.exception.rsplit(".", 1)[-1] if inc.exception else None, *words]))


def lead(inc: Incident, facts: dict) -> Lead:
    library = library_of(inc.frames)
    repo, key = LIBRARIES.get(library or "", (None, None))
    fact = facts.get(key) if key else None
    terms = search_terms(inc)
    url = f"https://github.com/{repo}/issues?q={quote_plus('is:issue ' + terms)}" if repo and terms else None
    return Lead(inc.quoted, inc.frames[-MAX_FRAMES:], library, fact.value if fact else None, url)
