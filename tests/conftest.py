import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"


@pytest.fixture(scope="session")
def engine():
    from vlkb.analyzer import Engine

    return Engine.load()


@pytest.fixture
def run_vlkb():
    """Run the CLI in a subprocess: (returncode, stdout, stderr)."""
    import subprocess

    def run(*args, stdin=None, env=None):
        cp = subprocess.run([sys.executable, "-m", "vlkb", *args], input=stdin, capture_output=True,
                            env={**os.environ, "COLUMNS": "120", **(env or {})}, timeout=120)
        return cp.returncode, cp.stdout.decode("utf-8", "replace"), cp.stderr.decode("utf-8", "replace")

    return run
