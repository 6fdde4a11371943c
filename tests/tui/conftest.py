"""Shared helpers of the TUI tests: real logs, a settled app, the fake verify command."""
import sys
from pathlib import Path

import pytest

from vlkb.kb import fixtures as fx

ROOT = Path(__file__).resolve().parents[2]
FAKE_VERIFY = Path(__file__).with_name("fake_verify.py")
LOGS = {
    "known-ranks": ROOT / "data/samples/llamafactory-minicpmv-zero2-ranks.log",
    "known": ROOT / "data/samples/ms-swift-minicpmv-dpo-zero2.log",
    "unknown": ROOT / "kb/unknown/transformers-too-old-qwen2vl.log",
}


@pytest.fixture
def logs(tmp_path, monkeypatch):
    """The real logs copied into the working directory (fixture headers removed), so the paths the
    screens show are the same on every machine: `known-ranks.log`, `known.log`, `unknown.log`."""
    for name, src in LOGS.items():
        text = src.read_text(encoding="utf-8")
        if text.startswith(fx.SOURCE):
            text = fx.parse(src).text
        (tmp_path / f"{name}.log").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return {name: f"{name}.log" for name in LOGS}


@pytest.fixture
def fake_verify(tmp_path):
    """(command factory, gate file): the command streams a line, waits for the gate, then reports."""
    gate = tmp_path / "gate"
    return (lambda entry_id: [sys.executable, str(FAKE_VERIFY), entry_id, str(gate)]), gate


async def settle(app, pilot, rounds: int = 3) -> None:
    """Let workers (diagnosis, index, search) finish and the screen repaint."""
    for _ in range(rounds):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()
