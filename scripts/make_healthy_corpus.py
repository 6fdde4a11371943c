#!/usr/bin/env python3
"""Record real logs of training runs that succeed, for data/corpus/healthy/ (no KB entry may fire).

  python scripts/make_healthy_corpus.py OUT_DIR        # needs the `verify` extra (torch, transformers, deepspeed) and accelerate

Each run trains a tiny random-init model on the CPU and its whole stdout+stderr (tqdm redraws,
warnings, INFO lines, metric dicts) is captured verbatim:
  hf-trainer-qwen2-gc.log      HF Trainer, tiny Qwen2, gradient checkpointing (non-reentrant), 1500 steps
  deepspeed-zero2-cpu.log      DeepSpeed ZeRO-2 on CPU (gloo), 2 ranks, 1000 steps, DeepSpeed's own logging
  torchrun-ddp-tee.log         torchrun --tee 3 with 2 gloo DDP ranks: "[default0]:" prefixes, 1500 steps
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

HF_TRAINER = r'''
import torch, transformers
from torch.utils.data import Dataset
from transformers import Qwen2Config, Qwen2ForCausalLM, Trainer, TrainingArguments
transformers.logging.set_verbosity_info()
torch.manual_seed(0)
cfg = Qwen2Config(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
model = Qwen2ForCausalLM(cfg)
class Toy(Dataset):
    def __len__(self): return 6000
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        ids = torch.randint(3, 256, (32,), generator=g)
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, max_steps=1500, logging_steps=5,
                         learning_rate=5e-4, gradient_checkpointing=True,
                         gradient_checkpointing_kwargs={"use_reentrant": False}, max_grad_norm=1.0,
                         report_to=[], save_strategy="no", use_cpu=True, disable_tqdm=False)
Trainer(model=model, args=args, train_dataset=Toy()).train()
print("training finished")
'''

DEEPSPEED = r'''
import importlib, os, sys, torch, torch.multiprocessing as mp
def worker(rank, world, port):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), DS_ACCELERATOR="cpu")
    import logging
    import deepspeed
    deepspeed.utils.logger.setLevel(logging.INFO)  # config dump and "step=..., skipped=..." lines
    importlib.import_module("deepspeed.comm.torch").build_shm_op = lambda: None
    deepspeed.init_distributed(dist_backend="gloo")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    cfg = {"train_micro_batch_size_per_gpu": 8, "steps_per_print": 25,
           "optimizer": {"type": "AdamW", "params": {"lr": 1e-3, "torch_adam": True}},
           "zero_optimization": {"stage": 2, "contiguous_gradients": True, "overlap_comm": False,
                                 "reduce_bucket_size": 200000000, "allgather_bucket_size": 200000000},
           "gradient_clipping": 1.0, "bf16": {"enabled": False}}
    engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=cfg)
    g = torch.Generator().manual_seed(rank)
    for step in range(1000):
        x = torch.randn(8, 16, generator=g)
        loss = ((engine(x) - x.sum(1, keepdim=True)) ** 2).mean()
        engine.backward(loss)
        engine.step()
        if rank == 0 and step % 10 == 0:
            print({"step": step, "loss": round(loss.item(), 4)}, flush=True)
    if rank == 0:
        print("training finished", flush=True)
    torch.distributed.destroy_process_group()
    os._exit(0)
if __name__ == "__main__":
    mp.spawn(worker, args=(2, int(sys.argv[1])), nprocs=2)
'''

DDP = r'''
import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
net = DDP(torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)))
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
g = torch.Generator().manual_seed(rank)
for step in range(1500):
    x = torch.randn(8, 16, generator=g)
    loss = ((net(x) - x.sum(1, keepdim=True)) ** 2).mean()
    opt.zero_grad(); loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    opt.step()
    if step % 5 == 0:
        print(f"rank {rank} step {step} loss={loss.item():.4f} grad_norm={norm.item():.4f}", flush=True)
print(f"rank {rank} done", flush=True)
dist.destroy_process_group()
'''


def run(cmd: list[str], out: Path, cwd: Path, env: dict) -> None:
    with open(out, "wb") as f:
        cp = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=900)
    print(f"{out.name}: exit {cp.returncode}, {out.stat().st_size} bytes")
    if cp.returncode != 0:
        raise SystemExit(f"{out} failed; a healthy corpus log must come from a run that succeeded")


def main() -> None:
    out_dir = Path(sys.argv[1]).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    work = out_dir / ".work"
    work.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    scripts = {"hf.py": HF_TRAINER, "ds.py": DEEPSPEED, "ddp.py": DDP}
    for name, body in scripts.items():
        (work / name).write_text(textwrap.dedent(body))
    run([sys.executable, "hf.py"], out_dir / "hf-trainer-qwen2-gc.log", work, env)
    run([sys.executable, "ds.py", "29617"], out_dir / "deepspeed-zero2-cpu.log", work, env)
    run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--tee", "3",
         "--master_port", "29618", "ddp.py"], out_dir / "torchrun-ddp-tee.log", work, env)
    for p in work.iterdir():
        if p.is_file():
            p.unlink()
    for p in sorted(work.rglob("*"), reverse=True):
        p.unlink() if p.is_file() else p.rmdir()
    work.rmdir()


if __name__ == "__main__":
    main()
