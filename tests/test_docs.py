"""Docs cannot go stale: the README's commands are the ones CI and users run."""
from conftest import ROOT


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    command = next(l for l in ci.splitlines() if l.startswith("python3 -m venv"))
    assert command in readme


def test_readme_sample_command_uses_a_shipped_sample():
    readme = (ROOT / "README.md").read_text()
    line = next(l for l in readme.splitlines() if l.startswith("python3 -m venv .venv && .venv/bin/pip install -e ."))
    sample = line.rsplit(" ", 1)[1]
    assert (ROOT / sample).is_file()
