"""checkpoint-inputs-no-grad-silent: LoRA-like adapters inside reentrant checkpoint segments get no
gradient, and nothing fails.

A tiny Qwen2-VL with everything frozen except the language model's q_proj/v_proj (the adapters)
and lm_head, HF gradient checkpointing with `use_reentrant=True` and no input grads: what
transformers 4.x does unless `enable_input_require_grads()` is called (transformers 5 calls it by
itself, so the repro undoes it with `disable_input_require_grads()`). The frozen embeddings feed the
first checkpointed layer inputs that do not require grad, torch warns `None of the inputs have
requires_grad=True. Gradients will be None`, and the loss still has a grad_fn through lm_head, so
backward succeeds: training goes on while the adapters never change. The repro checks what a user
would check after one step (which trainable tensors have a gradient) and exits 1 when adapters have
none. Fix (the entry's): `model.enable_input_require_grads()`.
"""
from ._common import announce, args

ADAPTERS = ("q_proj", "v_proj")


def main() -> int:
    a = args(__doc__)
    import torch  # noqa: F401 - recorded by announce
    import transformers  # noqa: F401

    from . import _qwen2vl

    announce(a.device, trainable="q_proj, v_proj, lm_head", use_reentrant=True)
    model = _qwen2vl.model().to(a.device)
    for name, p in model.named_parameters():  # the LLM's adapters and the head; the vision tower stays frozen
        p.requires_grad_(name.startswith("lm_head") or ("visual" not in name and name.split(".")[-2] in ADAPTERS))
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
    if getattr(model, "_require_grads_hook", None) is not None:
        model.disable_input_require_grads()  # transformers 5 enabled input grads itself; 4.x never does
    if a.mode == "after":
        model.enable_input_require_grads()
    model.train()
    for step in range(2):
        loss = model(**_qwen2vl.text_batch(a.device, seed=step)).loss
        loss.backward()
        print(f"step {step}: loss {loss.item():.4f}", flush=True)
    adapters = [(n, p) for n, p in model.named_parameters() if p.requires_grad and not n.startswith("lm_head")]
    idle = [n for n, p in adapters if p.grad is None or not p.grad.any()]
    print(f"adapters with a gradient: {len(adapters) - len(idle)} of {len(adapters)}", flush=True)
    for name in idle:
        print(f"  no gradient: {name}", flush=True)
    return 1 if idle or not adapters else 0


if __name__ == "__main__":
    raise SystemExit(main())
