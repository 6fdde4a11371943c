"""What vlkb can still say about a failure no entry explains: where to look and whom to ask.

A person facing an unknown traceback quotes the exception line, reads the last frames, works out
which library raised it (the deepest frame inside site-packages), checks that library's version, and
searches its issue tracker for the message. This module does those steps from the log alone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote_plus

from . import rx
from .factshapes import version_fact
from .model import Frame, Incident, Line

# import name -> its GitHub repository (the version's fact key is factshapes.version_fact(name))
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
    "llmtuner": "hiyouga/LLaMA-Factory",
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
    "lm_eval": "EleutherAI/lm-evaluation-harness",
}
_SITE = rx.compile(r"[\\/](?:site|dist)-packages[\\/](\w+)")
# Python's standard library (json's decoder under transformers' config loader, multiprocessing's pool):
# as transparent as torch's plumbing when working out who raised
STDLIB = rx.compile(r"^<frozen |[\\/][Ll]ib[\\/](?:python\d(?:\.\d{1,2})?t?[\\/])?(?:json|multiprocessing|concurrent|asyncio"
                     r"|importlib|logging|http|urllib|email|collections|encodings|unittest|ctypes|threading\.py|subprocess\.py"
                     r"|runpy\.py|contextlib\.py|functools\.py|pickle\.py|copy\.py|copyreg\.py|argparse\.py|ast\.py|typing\.py"
                     r"|dataclasses\.py|os\.py|shutil\.py|socket\.py|ssl\.py|abc\.py|inspect\.py|re[\\/]|enum\.py|codecs\.py"
                     r"|tempfile\.py|pathlib\.py|zipfile\.py|tarfile\.py|queue\.py|selectors\.py|traceback\.py|signal\.py"
                     r"|weakref\.py|posixpath\.py|ntpath\.py|genericpath\.py|tokenize\.py|linecache\.py|warnings\.py)")
# a framework's or library's own package run from its checkout (src/llamafactory/..., verl/trainer/...,
# lm-evaluation-harness/lm_eval/...); not LLaVA's llava/, which its forks share under other repositories
_CHECKOUT = rx.compile(r"[\\/](llamafactory|llmtuner|swift|axolotl|verl|openrlhf|trl|transformers|peft|accelerate"
                       r"|deepspeed|colossalai|unsloth|unsloth_zoo|lm_eval|megatron|xtuner|torchtune|mmengine|vllm"
                       r"|liger_kernel|flash_attn|bitsandbytes|torch_npu|pytorch_lightning)[\\/]")
# what a search for the message should not carry: long quoted values, then any word holding a path,
# a number, an id or markup. Words are filtered one by one: a regex of `\S*x\S*` alternatives would
# rescan a long word from each of its characters (quadratic on a hostile line).
_QUOTED = rx.compile(r"'[^'\s]{25,}'|\"[^\"\s]{25,}\"")
_NOISY_WORD = rx.compile(r"[<>\\/\d]")
_HEADER = rx.compile(r"Traceback \(most recent call last\):?")
_EDGES = "'\"`()[]{}<>|,;:.!?*#=-\u2502\u2500\u256d\u256e\u2570\u256f"  # quotes, brackets, rich's box drawing
_WORD = rx.compile(r"[^\W\d_]")  # a letter of any script
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
        if self.library is None:
            last = self.frames[-1] if self.frames else None
            return f"the project's or your own code ({_base(last.file)}:{last.lineno})" if last else "the code that raised it"
        return f"{self.library} {self.version}" if self.version else self.library


def _base(file: str) -> str:
    return re.split(r"[\\/]", file)[-1]


def package_of(file: str) -> str | None:
    """The import name of the library a frame's file belongs to: installed (site-packages) or a
    framework's checkout; None for a script or a project no library owns."""
    m = _SITE.search(file) or _CHECKOUT.search(file)
    return m.group(1) if m else None


def library_of(frames: list[Frame]) -> str | None:
    """The library whose code raised: the innermost frame's, or the library that called into torch
    when only torch's own plumbing lies below it (a module's `_call_impl`, autograd's `backward`).
    None when the innermost frame is the user's or the project's own code: a decorator of torch's
    (`_contextlib`) or a data loader's worker between them does not make torch the raiser. Frames in
    Python's standard library are passed over: the library that called json or multiprocessing raised."""
    owners = [package_of(f.file) for f in frames if not STDLIB.search(f.file)]
    if not owners or owners[-1] is None:
        return None
    for name in reversed(owners):
        if name != "torch":
            return name or "torch"  # torch called from a script: torch raised it
    return "torch"


def search_terms(inc: Incident) -> str:
    """The exception and the first words of its message, without paths, numbers, ids, quotes or
    markup; empty when the log does not state the exception with its message (a traceback cut
    before it, a kill line, a bare `AssertionError`): a search for a header, a frame or a name alone
    finds every report, so none is offered."""
    if not inc.exception:
        return ""
    exc = inc.exception.rsplit(".", 1)[-1]
    head = (inc.message.splitlines() or [""])[0] if inc.message else ""
    words = [w.strip(_EDGES) for w in _QUOTED.sub(" ", _HEADER.sub(" ", head)).split() if not _NOISY_WORD.search(w)]
    words = [w for w in words if _WORD.search(w) and w != exc][:SEARCH_WORDS]
    return " ".join([exc, *words]) if words else ""  # the exception's name alone matches every report


def lead(inc: Incident, facts: dict) -> Lead:
    library = library_of(inc.frames)
    repo = LIBRARIES.get(library or "")
    fact = facts.get(version_fact(library)) if library else None
    terms = search_terms(inc)
    url = f"https://github.com/{repo}/issues?q={quote_plus('is:issue ' + terms)}" if repo and terms else None
    return Lead(inc.quoted, inc.frames[-MAX_FRAMES:], library, fact.value if fact else None, url)
