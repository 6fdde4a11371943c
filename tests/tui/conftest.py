"""Fixtures of the TUI tests (helpers.py holds the rest)."""
import sys

import pytest

from vlkb.kb import fixtures as fx

from .helpers import FAKE_VERIFY, LOGS


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
