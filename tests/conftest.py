import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"

# Property tests draw the same examples on every run and in every order (derandomize: the seed is a
# hash of the test), and keep no example database between runs: a suite that passed passes again.
# HYPOTHESIS_PROFILE=explore draws new examples each run (each test keeps its own count), for hunting;
# an example it finds that fails is then written into the test as an @example.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite tests/golden/ from the current output (review the diff)")


@pytest.fixture
def update_goldens(request):
    return request.config.getoption("--update-goldens")


# The tests run shuffled (pytest-randomly), which shows a test that leans on another's leftovers; in
# the order this seed gives unless told otherwise, so a run is reproducible and CI is the same run as
# here. Another order: `python -m pytest --randomly-seed=N`; the files' order: `-p no:randomly`.
SHUFFLE_SEED = 20261124


@pytest.hookimpl(tryfirst=True)  # before pytest-randomly draws a seed of its own
def pytest_configure(config):
    """The suite never writes the user's own ~/.vlkb (history, KB index, verify logs)."""
    import tempfile

    os.environ["VLKB_HOME"] = tempfile.mkdtemp(prefix="vlkb-test-home-")
    if getattr(config.option, "randomly_seed", None) == "default":
        config.option.randomly_seed = SHUFFLE_SEED


@pytest.fixture(scope="session")
def _derived_home(tmp_path_factory):
    """A home holding only what vlkb derives from the KB and the shipped records (the KB search
    database, the reports index, the compiled-regex and trigger caches), built once per session."""
    import subprocess

    seed = tmp_path_factory.mktemp("derived-home")
    env = {**os.environ, "VLKB_HOME": str(seed)}
    for args in (["diagnose", "--no-history", str(SAMPLES / "ms-swift-minicpmv-dpo-zero2.log")],
                 ["kb", "search", "image tokens"], ["reports", "build"]):
        subprocess.run([sys.executable, "-m", "vlkb", *args], env=env, capture_output=True, timeout=300)
    return seed


@pytest.fixture(autouse=True)
def _own_home(tmp_path_factory, monkeypatch, _derived_home):
    """Every test has a VLKB_HOME of its own (history, verify logs, your reports: nothing another test
    left), with the derived stores linked in from _derived_home: each is replaced by renaming a new
    file into place, never written where it lies, so a test that rebuilds one changes only its own."""
    home = tmp_path_factory.mktemp("home")
    for path in _derived_home.rglob("*"):
        if path.is_file() and path.name != "history.db":
            (home / path.relative_to(_derived_home)).parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, home / path.relative_to(_derived_home))
            except OSError:  # another file system: the test builds what it needs
                pass
    monkeypatch.setenv("VLKB_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def engine():
    from vlkb.kb import load_engine

    return load_engine()


@pytest.fixture(scope="session")
def diagnosed(engine, tmp_path_factory):
    """A KB fixture's diagnosis as kb/accuracy.py makes it (every entry scored), computed once per
    session for every test that reads it: the fixture harness, the shortlist's checks and the
    generated accuracy table all diagnose the same 2,000 logs."""
    from vlkb.kb.accuracy import diagnose_fixture

    where = tmp_path_factory.mktemp("kb-fixtures")
    done = {}

    def get(fixture):
        if fixture.name not in done:
            done[fixture.name] = diagnose_fixture(engine, fixture, where)
        return done[fixture.name]

    return get


@pytest.fixture
def run_vlkb():
    """Run the CLI in a subprocess: (returncode, stdout, stderr)."""
    import subprocess

    def run(*args, stdin=None, env=None):
        cp = subprocess.run([sys.executable, "-m", "vlkb", *args], input=stdin, capture_output=True,
                            env={**os.environ, "COLUMNS": "120", **(env or {})}, timeout=120)
        return cp.returncode, cp.stdout.decode("utf-8", "replace"), cp.stderr.decode("utf-8", "replace")

    return run


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The cross-check harness writes the confusion matrix of every entry against every fixture."""
    if exitstatus not in (0, 1) or config.getoption("collectonly") or getattr(config, "cache", None) is None:
        return  # (-p no:cacheprovider: no .pytest_cache to write it to)
    try:
        from vlkb.kb import load_engine
        from vlkb.kb import load
        from vlkb.kb import accuracy as report
    except ImportError:
        return
    entries = load()
    outcomes = report.evaluate(load_engine(), entries)
    families = sorted({e.family for e in entries})
    out = Path(config.cache.mkdir("vlkb")) / "confusion.md"
    out.write_text(report.markdown_table(outcomes, families) + "\n\n" + report.confusion(outcomes, families) + "\n")
    terminalreporter.write_line(f"vlkb cross-check: confusion matrix written to {out}")
