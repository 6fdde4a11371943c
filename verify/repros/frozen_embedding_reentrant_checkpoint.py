"""tensor-does-not-require-grad: a frozen embedding feeds a reentrant checkpoint segment.

Reentrant `torch.utils.checkpoint` runs the segment under no_grad and re-runs it in backward only
for inputs that require grad; with a frozen embedding (LoRA or freeze tuning) none does, the
segment's output has no grad_fn, and backward raises
`element 0 of tensors does not require grad and does not have a grad_fn`.
Fix (the entry's): make the checkpointed input require grad, as `model.enable_input_require_grads()`
does.
"""
from ._common import announce, args


def main() -> int:
    a = args(__doc__)
    import torch
    from torch import nn
    from torch.utils.checkpoint import checkpoint

    announce(a.device)
    torch.manual_seed(0)
    emb, layer = nn.Embedding(100, 16).to(a.device), nn.Linear(16, 16).to(a.device)
    emb.weight.requires_grad_(False)  # the frozen base
    for step in range(2):
        hidden = emb(torch.randint(0, 100, (2, 5), device=a.device))
        if a.mode == "after":
            hidden.requires_grad_(True)  # enable_input_require_grads()
        loss = checkpoint(layer, hidden, use_reentrant=True).pow(2).mean()
        loss.backward()
        print(f"step {step}: loss {loss.item():.4f}, layer grad norm {layer.weight.grad.norm().item():.4f}", flush=True)
        layer.zero_grad()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
