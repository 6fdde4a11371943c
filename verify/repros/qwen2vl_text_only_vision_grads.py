"""colossalai-gemini-grad-chunk-none, its mechanism: a tiny Qwen2-VL fed text only leaves every
vision-tower parameter with `grad is None`.

ColossalAI's Gemini keeps gradients in chunks and asserts `grad_chunk.l2_norm is not None` when
a chunk's parameters received no gradient; that plugin needs CUDA (and torch<=2.5.1), so this repro
shows the precondition on any device, not Gemini's assertion: after a text-only step it lists the
trainable parameters without a gradient and exits 1. Fix (the entry's): a zero-weighted pass through
the vision tower on text-only batches, after which every trainable parameter has a gradient.
"""
from ._common import announce, args


def main() -> int:
    a = args(__doc__)
    import torch  # noqa: F401 - recorded by announce
    import transformers  # noqa: F401

    from . import _qwen2vl

    announce(a.device, batch="text only")
    model = _qwen2vl.model().to(a.device)
    model.train()
    loss = model(**_qwen2vl.text_batch(a.device)).loss
    if a.mode == "after":
        loss = loss + _qwen2vl.dummy_vision_loss(model, a.device)
    loss.backward()
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    missing = [n for n, p in params if p.grad is None]
    print(f"loss {loss.item():.4f}; {len(missing)} of {len(params)} trainable parameters have grad None", flush=True)
    for name in missing:
        print(f"  no grad: {name}", flush=True)
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
