"""The repros vlkb ships, by the name KB entries give in `verify: {repro: NAME}`."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Repro:
    name: str
    module: str  # under vlkb.verify.repros
    before: str  # what the failing run does
    after: str  # the fix it applies
    needs: tuple[str, ...] = ("torch",)
    world_size: int = 1
    seconds: int = 5  # expected wall time of both runs on a 2-core CPU
    mechanism_only: str = ""  # set when the repro shows the mechanism, not the entry's exact failure
    diagnosable: bool = True  # False: the before log cannot carry the entry's signature (closed loop n/a)


REPROS = {r.name: r for r in [
    Repro("frozen-embedding-reentrant-checkpoint", "frozen_embedding_reentrant_checkpoint",
          "a frozen embedding feeds a reentrant torch.utils.checkpoint segment",
          "the checkpointed input requires grad (enable_input_require_grads)", seconds=5),
    Repro("bf16-fp32-min-mask", "bf16_fp32_min_mask",
          "an attention mask filled with finfo(float32).min in bf16, one row all padding",
          "the mask is filled with finfo(bf16).min", seconds=5,
          mechanism_only="a deterministic bf16 NaN mechanism, not the entry's two-stage training run"),
    Repro("ddp-reentrant-qwen2vl", "ddp_reentrant_qwen2vl",
          "tiny Qwen2-VL, DDP over 2 processes, HF gradient checkpointing use_reentrant=True, "
          "find_unused_parameters=True", "use_reentrant=False", needs=("torch", "transformers"),
          world_size=2, seconds=15),
    Repro("zero2-reentrant-shared-module", "zero2_reentrant_shared_module",
          "DeepSpeed ZeRO-2 over 2 processes, one module in two reentrant checkpoint segments",
          "use_reentrant=False", needs=("torch", "deepspeed"), world_size=2, seconds=12),
    Repro("qwen2vl-text-only-ddp", "qwen2vl_text_only_ddp",
          "tiny Qwen2-VL, DDP over 2 processes, text-only batches, find_unused_parameters=False",
          "a zero-weighted pass through the vision tower on text-only batches", needs=("torch", "transformers"),
          world_size=2, seconds=15),
    Repro("qwen2vl-text-only-vision-grads", "qwen2vl_text_only_vision_grads",
          "tiny Qwen2-VL, one text-only step: list the trainable parameters left with grad None",
          "a zero-weighted pass through the vision tower", needs=("torch", "transformers"), seconds=10,
          mechanism_only="the precondition of Gemini's `grad_chunk.l2_norm is not None` (31 vision parameters "
                         "without a gradient), not Gemini itself: that plugin needs CUDA and torch<=2.5.1",
          diagnosable=False),
    Repro("lora-reentrant-checkpoint-silent", "lora_reentrant_checkpoint_silent",
          "tiny Qwen2-VL, only q_proj/v_proj (adapters) and lm_head trainable, HF gradient checkpointing "
          "use_reentrant=True without input grads: list the adapters left without a gradient",
          "enable_input_require_grads()", needs=("torch", "transformers"), seconds=10),
]}
