"""ddp-mark-variable-ready-twice: a tiny Qwen2-VL under DDP (2 processes) with HF gradient
checkpointing, `use_reentrant=True` and `find_unused_parameters=True`.

Reentrant checkpointing re-runs each checkpointed layer in a nested backward; with
find_unused_parameters DDP marks the layer's parameters ready in both passes and raises
`Expected to mark a variable ready only once`. Fix (the entry's): `use_reentrant=False`.
"""
from ._common import announce, args, free_port, init_worker, run_worker, spawn


def _train(rank: int, world: int, mode: str, device: str) -> None:
    from torch.nn.parallel import DistributedDataParallel as DDP

    from . import _qwen2vl

    model = _qwen2vl.model().to(device)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": mode == "before"})
    model.train()
    ddp = DDP(model, find_unused_parameters=True)
    for step in range(2):
        loss = ddp(**_qwen2vl.text_batch(device, seed=step)).loss
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

    announce(a.device, world_size=2, find_unused_parameters=True, use_reentrant=a.mode == "before")
    return spawn(_worker, 2, free_port(), a.mode, a.device)


if __name__ == "__main__":
    raise SystemExit(main())
