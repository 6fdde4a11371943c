"""`vlkb tui -` spools stdin to a temporary folder: never more than --spool-max, and never left behind,
even when the process is ended by a signal while it reads an endless pipe."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vlkb.tui.inputs import Budget


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_spooling_removes_the_spool(tmp_path, sig):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "vlkb", "tui", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        proc.stdin.write(b"step 1 loss 0.5\n" * 4096)  # and the pipe stays open: an endless producer
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob("vlkb-tui-*/stdin.log")):
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the spool never started"
            time.sleep(0.05)
        proc.send_signal(sig)
        assert proc.wait(timeout=60) == -sig
    finally:
        proc.kill()
        proc.wait()
    assert list(tmp_path.iterdir()) == []


class _Endless:
    def __init__(self):
        self.served = 0

    def read(self, n):
        self.served += n
        return b"x" * n


def test_the_budget_is_shared_by_every_copy_and_stops_an_endless_source(tmp_path):
    budget = Budget(3 << 20)
    source = _Endless()
    with open(tmp_path / "a", "wb") as out:
        budget.copy(source, out, "-: only the first {kept} of stdin were read")
    with open(tmp_path / "b", "wb") as out:
        budget.copy(_Endless(), out, "b.gz: the log pane shows its first {kept} unpacked")
    assert (tmp_path / "a").stat().st_size == 3 << 20 and (tmp_path / "b").stat().st_size == 0
    assert source.served <= (3 << 20) + 1
    assert budget.notes == ["-: only the first 3 MiB of stdin were read", "b.gz: the log pane shows its first 0 bytes unpacked"]
