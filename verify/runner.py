"""Run a repro's "before" and "after" in subprocesses with a timeout, keep their logs, and judge:
reproduced (before failed and `vlkb diagnose` on its log names the entry's family above the
threshold) and fixed (after exited 0 and its log no longer names that family)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .catalog import REPROS, Repro
from .repros._common import ENV_PREFIX


@dataclass
class Run:
    mode: str
    exit_code: int | None  # None: timed out
    seconds: float
    log: Path
    env: dict = field(default_factory=dict)
    diagnosis: str | None = None  # the family vlkb names above threshold, if any
    confidence: float = 0.0


@dataclass
class Verdict:
    entry: str
    family: str
    repro: Repro
    device: str
    before: Run
    after: Run

    @property
    def closed_loop(self) -> bool | None:
        """vlkb diagnoses its own before log as this entry; None where that cannot apply."""
        return self.before.diagnosis == self.family if self.repro.diagnosable else None

    @property
    def reproduced(self) -> bool:
        return self.before.exit_code not in (0, None) and self.closed_loop is not False

    @property
    def fixed(self) -> bool:
        return self.after.exit_code == 0 and self.after.diagnosis != self.family

    @property
    def ok(self) -> bool:
        return self.reproduced and self.fixed


def missing_modules(repro: Repro) -> list[str]:
    from importlib.util import find_spec

    return [m for m in repro.needs if find_spec(m) is None]


def resolve_device(device: str) -> str:
    if device != "auto":
        return device
    import torch  # only here: `vlkb verify` needs the extra anyway

    return "cuda" if torch.cuda.is_available() else "cpu"


def run_once(repro: Repro, mode: str, device: str, timeout: float, outdir: Path) -> Run:
    outdir.mkdir(parents=True, exist_ok=True)
    log = outdir / f"{mode}.log"
    env = {**os.environ, "DS_ACCELERATOR": "cpu" if device == "cpu" else os.environ.get("DS_ACCELERATOR", "cuda"),
           "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", f"vlkb.verify.repros.{repro.module}", "--mode", mode, "--device", device]
    t = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)  # the repro and every worker it spawned
            proc.wait()
            code = None
    return Run(mode, code, round(time.perf_counter() - t, 2), log, _env(log))


def _env(log: Path) -> dict:
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(ENV_PREFIX):
                return json.loads(line[len(ENV_PREFIX):])
    return {}


def verify(entry, engine, device: str, timeout: float, outdir: Path) -> Verdict:
    repro = REPROS[entry.verify["repro"]]
    runs = []
    for mode in ("before", "after"):
        run = run_once(repro, mode, device, timeout, outdir / entry.id)
        d = engine.diagnose([str(run.log)])
        if d.named:  # "known", or "suspicious" for a silent entry's repro (it warns, no step fails)
            run.diagnosis, run.confidence = d.named.entry.family, d.named.confidence
        runs.append(run)
    return Verdict(entry.id, entry.family, repro, device, *runs)
