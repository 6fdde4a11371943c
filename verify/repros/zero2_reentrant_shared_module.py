"""zero-grad-reduced-twice: DeepSpeed ZeRO stage 2 with one module run in two reentrant checkpoint
segments (shared weights), 2 processes.

ZeRO-2 reduces each parameter's gradient from a hook, once per backward; reentrant checkpointing
runs a nested backward per segment, so the shared module's hook fires twice and ZeRO asserts
`The parameter ... has already been reduced. Gradient computed twice for this partition`.
Fix (the entry's): `use_reentrant=False`.
"""
from ._common import announce, args, free_port, init_worker, run_worker, spawn


def _net(reentrant: bool):
    from torch import nn
    from torch.utils.checkpoint import checkpoint

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp, self.a, self.out = nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 1)

        def forward(self, x):
            x = checkpoint(self.a, self.inp(x), use_reentrant=reentrant)
            return self.out(checkpoint(self.a, x, use_reentrant=reentrant))  # the same module, twice

    return Net()


def _train(rank: int, world: int, mode: str, device: str) -> None:
    import importlib

    import deepspeed
    import torch

    # the CPU backend's shared-memory op is compiled on first use (~20 s); gloo does not need it
    importlib.import_module("deepspeed.comm.torch").build_shm_op = lambda: None
    deepspeed.init_distributed(dist_backend="nccl" if device == "cuda" else "gloo")
    torch.manual_seed(0)
    net = _net(reentrant=mode == "before")
    cfg = {"train_micro_batch_size_per_gpu": 4,
           "optimizer": {"type": "AdamW", "params": {"lr": 1e-3, "torch_adam": True}},
           "zero_optimization": {"stage": 2, "contiguous_gradients": True, "overlap_comm": False},
           "gradient_clipping": 1.0}
    engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=cfg)
    for step in range(2):
        loss = engine(torch.randn(4, 8, device=engine.device)).sum()
        engine.backward(loss)
        engine.step()
        if rank == 0:
            print(f"step {step}: loss {loss.item():.4f}", flush=True)


def _worker(rank: int, world: int, port: int, mode: str, device: str) -> None:
    import os

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), LOCAL_RANK=str(rank),
                      WORLD_SIZE=str(world))
    run_worker(_train, rank, world, mode, device)


def main() -> int:
    a = args(__doc__)
    import deepspeed  # noqa: F401 - recorded by announce
    import torch  # noqa: F401

    announce(a.device, world_size=2, zero_stage=2, use_reentrant=a.mode == "before")
    return spawn(_worker, 2, free_port(), a.mode, a.device)


if __name__ == "__main__":
    raise SystemExit(main())
