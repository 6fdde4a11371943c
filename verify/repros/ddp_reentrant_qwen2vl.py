"""ddp-mark-variable-ready-twice: a tiny Qwen2-VL under DDP (2 processes) with HF gradient
checkpointing, `use_reentrant=True` and `find_unused_parameters=True`.

Reentrant checkpointing re-runs each checkpointed layer in a nested backward; with
find_unused_parameters DDP marks the layer's parameters ready in both passes and raises
`Expected to mark a variable ready only once`. Fix (the entry's): `use_reentrant=False`.
"""
from ._common import announce, args, ddp_worker, free_port, spawn


def _train(rank: int, world: int, mode: str, device: str) -> None:
    from torch.nn.parallel import DistributedDataParallel as DDP

    from . import _qwen2vl

    model = _qwen2vl.model().to(device)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": mode == "before"})
    model.train()
    _qwen2vl.train_steps(DDP(model, find_unused_parameters=True), rank, device, steps=2)


def main() -> int:
    a = args(__doc__)
    import torch  # noqa: F401 - recorded by announce
    import transformers  # noqa: F401

    announce(a.device, world_size=2, find_unused_parameters=True, use_reentrant=a.mode == "before")
    return spawn(ddp_worker, 2, free_port(), _train, a.mode, a.device)


if __name__ == "__main__":
    raise SystemExit(main())
