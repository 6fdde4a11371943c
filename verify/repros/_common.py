"""What every repro shares: arguments, the environment line, devices and distributed workers."""
from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from datetime import timedelta

ENV_PREFIX = "vlkb-verify-env "  # the runner reads this line back to record the environment


def args(description: str) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--mode", choices=["before", "after"], required=True)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    return ap.parse_args()


def versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for name in ("torch", "transformers", "deepspeed"):
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = getattr(mod, "__version__", "?")
    return out


def announce(device: str, world_size: int = 1, **extra) -> None:
    """One line for the runner: library versions, device and world size."""
    info = {**versions(), "device": device, "world_size": world_size, **extra}
    if device == "cuda":
        import torch

        info["gpu"] = torch.cuda.get_device_name(0)
    print(ENV_PREFIX + json.dumps(info), flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def init_worker(rank: int, world: int, port: int, device: str) -> None:
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      LOCAL_RANK=str(rank), WORLD_SIZE=str(world))
    if device == "cuda":
        import torch

        torch.cuda.set_device(rank % torch.cuda.device_count())
    dist.init_process_group("nccl" if device == "cuda" else "gloo", rank=rank, world_size=world,
                            timeout=timedelta(seconds=60))


def end_worker(failed: bool) -> None:
    """Leave without the gloo teardown hang (shared/notes/cpu-repros.md section 4): flush, destroy the
    process group, exit hard with the worker's status."""
    import torch.distributed as dist

    sys.stdout.flush()
    sys.stderr.flush()
    try:
        if dist.is_initialized():
            dist.destroy_process_group()
    finally:
        os._exit(1 if failed else 0)


def run_worker(body, rank: int, *rest) -> None:
    """Run `body(rank, *rest)`; an exception prints its traceback as Python would, then the worker
    exits 1 (torch.multiprocessing.spawn then reports the failure)."""
    import traceback

    try:
        body(rank, *rest)
    except BaseException:
        traceback.print_exc()
        end_worker(failed=True)
    end_worker(failed=False)


def ddp_worker(rank: int, world: int, port: int, train, mode: str, device: str) -> None:
    """A worker for `spawn`: join the process group, run `train(rank, world, mode, device)`, leave."""
    init_worker(rank, world, port, device)
    run_worker(train, rank, world, mode, device)


def spawn(worker, world: int, *rest) -> int:
    """Start `world` workers; return 0 when all of them exited 0."""
    import torch.multiprocessing as mp

    ctx = mp.start_processes(worker, args=(world, *rest), nprocs=world, join=False, start_method="spawn")
    codes = []
    for p in ctx.processes:
        p.join()
        codes.append(p.exitcode)
    return 0 if all(c == 0 for c in codes) else 1
