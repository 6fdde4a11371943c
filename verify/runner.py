"""Run a repro's "before" and "after" in subprocesses with a timeout, keep their logs, and judge:
reproduced (before failed and `vlkb diagnose` on its log names the entry's family above the
threshold) and fixed (after exited 0 and its log no longer names that family)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vlkb.subproc import module_command

from .catalog import REPROS, Repro
from .repros._common import ENV_PREFIX

_LIVE: set[subprocess.Popen] = set()  # the repros running now, in whichever thread started them
_LIVE_LOCK = threading.Lock()
_STOPPED = threading.Event()  # the command was interrupted: no repro starts any more
_DIAGNOSE = threading.Lock()  # repros run side by side (vlkb verify --jobs); their logs are diagnosed in turn


@dataclass
class Run:
    mode: str
    exit_code: int | None  # None: timed out
    seconds: float
    log: Path
    env: dict = field(default_factory=dict)
    diagnosis: str | None = None  # the family vlkb names above threshold, if any
    confidence: float = 0.0

    @property
    def ended(self) -> str:
        return "timed out" if self.exit_code is None else f"exit {self.exit_code}"


@dataclass
class Replay:
    """One entry's replay: its repro run before and after the fix, and what that showed (a diagnosis's
    verdict is another thing: Diagnosis.verdict)."""

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


def run_once(repro: Repro, mode: str, device: str, timeout: float, outdir: Path,
             on_line: Callable[[str], None] | None = None) -> Run:
    """Run one side of a repro; its output goes to `<outdir>/<mode>.log` and, line by line as it comes,
    to `on_line`. On timeout, or when this process is asked to stop, the repro's whole process group
    (it and every worker it spawned) is killed."""
    outdir.mkdir(parents=True, exist_ok=True)
    log = outdir / f"{mode}.log"
    env = {**os.environ, "DS_ACCELERATOR": "cpu" if device == "cpu" else os.environ.get("DS_ACCELERATOR", "cuda"),
           "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    cmd = module_command(f"vlkb.verify.repros.{repro.module}", "--mode", mode, "--device", device)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, start_new_session=True)
    with _LIVE_LOCK:
        _LIVE.add(proc)
        if _STOPPED.is_set():  # stopped while this one was starting
            _kill_group(proc)
    expired = threading.Event()
    timer = threading.Timer(timeout, lambda: (expired.set(), _kill_group(proc)))
    timer.start()
    try:
        with open(log, "wb") as out:
            for raw in proc.stdout:  # ends when the repro and its workers have all closed the pipe
                out.write(raw)
                if on_line is not None:
                    on_line(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        code = proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:  # stopped from outside (SIGTERM, Ctrl-C): take the repro down too
            _kill_group(proc)
            proc.wait()
        with _LIVE_LOCK:
            _LIVE.discard(proc)
    return Run(mode, None if expired.is_set() else code, round(time.perf_counter() - t, 2), log, _env(log))


def allow_runs() -> None:
    """A new command: repros may start (after an earlier one in this process was stopped)."""
    _STOPPED.clear()


def stop_all() -> None:
    """The command was interrupted: kill every repro still running, with all its workers (the threads
    reading them then end), and start none after."""
    with _LIVE_LOCK:
        _STOPPED.set()
        for proc in _LIVE:
            _kill_group(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _env(log: Path) -> dict:
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(ENV_PREFIX):
                return json.loads(line[len(ENV_PREFIX):])
    return {}


def verify(entry, engine, device: str, timeout: float, outdir: Path,
           on_line: Callable[[str], None] | None = None) -> Replay:
    """Both sides of an entry's repro, each diagnosed. `on_line` receives their output live, each line
    prefixed by its side (`[before] ...`), and a line when each side starts and ends."""
    repro = REPROS[entry.verify["repro"]]
    runs = []
    for mode in ("before", "after"):
        if _STOPPED.is_set():
            raise RuntimeError("vlkb verify was stopped")
        tell = (lambda text, m=mode: on_line(f"[{m}] {text}")) if on_line else None
        if on_line:
            on_line(f"== {entry.id}: {mode} ({repro.before if mode == 'before' else repro.after}) on {device}")
        run = run_once(repro, mode, device, timeout, outdir / entry.id, tell)
        with _DIAGNOSE:
            d = engine.diagnose([str(run.log)])
        if d.named:  # "known", or "suspicious" for a silent entry's repro (it warns, no step fails)
            run.diagnosis, run.confidence = d.named.entry.family, d.named.confidence
        if on_line:
            named = f"vlkb names {run.diagnosis} ({run.confidence:.2f})" if run.diagnosis else "vlkb names no entry"
            on_line(f"== {entry.id}: {mode} {run.ended} in {run.seconds:.1f} s; {named}")
        runs.append(run)
    return Replay(entry.id, entry.family, repro, device, *runs)
