"""ddp-unused-parameters: a tiny Qwen2-VL under DDP (2 processes) fed text only, with
`find_unused_parameters=False`.

A text-only batch never runs the vision tower, so its 31 parameters get no gradient and DDP's
reducer waits for them: the next step raises `Expected to have finished reduction in the prior
iteration before starting a new one` and lists their indices. Fix: a zero-weighted pass through the
vision tower on text-only batches, so every parameter takes part (the entry's dummy-image fix).
"""
from ._common import announce, args, ddp_worker, free_port, spawn


def _train(rank: int, world: int, mode: str, device: str) -> None:
    from torch.nn.parallel import DistributedDataParallel as DDP

    from . import _qwen2vl

    model = _qwen2vl.model().to(device)
    model.train()
    fix = (lambda m: _qwen2vl.dummy_vision_loss(m, device)) if mode == "after" else None
    _qwen2vl.train_steps(DDP(model, find_unused_parameters=False), rank, device, steps=3, extra_loss=fix)


def main() -> int:
    a = args(__doc__)
    import torch  # noqa: F401 - recorded by announce
    import transformers  # noqa: F401

    announce(a.device, world_size=2, find_unused_parameters=False, batch="text only")
    return spawn(ddp_worker, 2, free_port(), _train, a.mode, a.device)


if __name__ == "__main__":
    raise SystemExit(main())
