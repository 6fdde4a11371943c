"""A tiny random-init Qwen2-VL (186,624 parameters, built in code, no download) and its batches, for
transformers 4.x and 5.x (shared/notes/cpu-repros.md section 3)."""
from __future__ import annotations

IMG, VID, VSTART, VEND = 250, 251, 252, 253


def model(seed: int = 0):
    import torch
    import transformers
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration

    v5 = int(transformers.__version__.split(".")[0]) >= 5
    text = dict(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, max_position_embeddings=512, bos_token_id=1, eos_token_id=2, pad_token_id=0)
    ids = dict(image_token_id=IMG, video_token_id=VID, vision_start_token_id=VSTART, vision_end_token_id=VEND)
    if v5:
        text["rope_parameters"] = {"rope_type": "default", "rope_theta": 1e4, "mrope_section": [2, 3, 3]}
        top = dict(text_config=text, **ids)
    else:
        top = dict(text, rope_theta=1e4, rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]}, **ids)
    cfg = Qwen2VLConfig(vision_config=dict(depth=2, embed_dim=32, hidden_size=64, num_heads=2, mlp_ratio=2,
                                           patch_size=14, spatial_merge_size=2, temporal_patch_size=2), **top)
    torch.manual_seed(seed)
    return Qwen2VLForConditionalGeneration(cfg)


def visual(m):
    """The vision tower: `model.visual` on transformers 5, `visual` on 4."""
    return m.model.visual if hasattr(m.model, "visual") else m.visual


def text_batch(device: str, seed: int = 0) -> dict:
    import torch

    g = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(3, 200, (2, 16), generator=g)
    return {k: v.to(device) for k, v in dict(input_ids=input_ids, attention_mask=torch.ones_like(input_ids),
                                               labels=input_ids.clone()).items()}


def train_steps(ddp, rank: int, device: str, steps: int, extra_loss=None) -> None:
    """Text-only steps under DDP; `extra_loss(model)` is added to each step's loss when given."""
    for step in range(steps):
        loss = ddp(**text_batch(device, seed=step)).loss
        if extra_loss is not None:
            loss = loss + extra_loss(ddp.module)
        loss.backward()
        if rank == 0:
            print(f"step {step}: loss {loss.item():.4f}", flush=True)


def dummy_vision_loss(m, device: str):
    """Zero-weighted pass through the vision tower: every vision parameter gets a (zero) gradient on a
    text-only batch (the fix for Gemini's `grad_chunk.l2_norm is not None` and DDP's unused parameters)."""
    import torch

    tower = visual(m)
    out = tower(torch.zeros(4, 1176, device=device), grid_thw=torch.tensor([[1, 2, 2]], device=device))
    out = out.pooler_output if hasattr(out, "pooler_output") else (out[0] if isinstance(out, tuple) else out)
    return 0.0 * out.sum()
