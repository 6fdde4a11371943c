"""loss-nan: an attention mask filled with float32's minimum turns into -inf in bf16.

`torch.finfo(torch.float32).min` rounds past bf16's largest magnitude to -inf; a row whose keys are
all padding then softmaxes -inf against -inf, and the loss and every gradient become NaN. (The
entry's two-stage text-then-image case is documented in prose; this is the deterministic bf16
mechanism behind one family of such NaNs.) Fix: fill the mask with `torch.finfo(dtype).min`.
"""
import math

from ._common import announce, args


def main() -> int:
    a = args(__doc__)
    import torch
    import torch.nn.functional as F

    announce(a.device, dtype="bfloat16")
    torch.manual_seed(0)
    dtype = torch.bfloat16
    q = torch.randn(2, 4, 8, device=a.device, dtype=dtype, requires_grad=True)
    k = torch.randn(2, 4, 8, device=a.device, dtype=dtype)
    keep = torch.tensor([[True, True, True, False], [False, False, False, False]], device=a.device)  # row 2: all padding
    fill = torch.finfo(torch.float32).min if a.mode == "before" else torch.finfo(dtype).min
    mask = torch.zeros(2, 1, 4, device=a.device).masked_fill(~keep[:, None, :], fill).to(dtype)
    loss = F.softmax(q @ k.transpose(1, 2) + mask, -1).sum()
    loss.backward()
    grad_norm = q.grad.float().norm().item()
    print({"loss": loss.float().item(), "grad_norm": grad_norm}, flush=True)
    if not (math.isfinite(loss.float().item()) and math.isfinite(grad_norm)):
        print(f"mask fill {fill} is {torch.tensor(fill).to(dtype).item()} in {dtype}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
