"""ddp-unused-parameters: a tiny Qwen2-VL under DDP (2 processes) fed text only, with
`find_unused_parameters=False`.

A text-only batch never runs the vision tower, so its 31 parameters get no gradient and DDP's
reducer waits for them: the next step raises `Expected to have finished reduction in the prior
iteration before starting a new one` and lists their indices. Fix: a zero-weighted pass through the
vision tower on text-only batches, so every parameter takes part (the entry's dummy-image fix).
"""
from ._common import announce, args, free_port, init_worker, run_worker, spawn


def _train(rank: int, world: int, mode: str, device: str) -> None:
    from torch.nn.parallel import DistributedDataParallel as DDP

    from . import _qwen2vl

    model = _qwen2vl.model().to(device)
    model.train()
    ddp = DDP(model, find_unused_parameters=False)
    for step in range(3):
        loss = ddp(**_qwen2vl.text_batch(device, seed=step)).loss
        if mode == "after":
            loss = loss + _qwen2vl.dummy_vision_loss(ddp.module, device)
        loss.backward()
        if rank == 0:
            print(f"step {step}: loss {loss.item():.4f}", flush=True)


def _worker(rank: int, world: int, port: int, mode: str, device: str) -> None:
    init_worker(rank, world, port, device)
    run_worker(_train, rank, world, mode, device)


def main() -> int:
    a = args(__doc__)
    import torch  # noqa: F401 - recorded by announce
    import transformers  # noqa: F401

    announce(a.device, world_size=2, find_unused_parameters=False, batch="text only")
    return spawn(_worker, 2, free_port(), a.mode, a.device)


if __name__ == "__main__":
    raise SystemExit(main())
