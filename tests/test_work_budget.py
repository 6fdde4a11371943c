"""Cost linear in the input, shown by a count, not a clock (issue 15): with VLKB_COUNT_WORK set, the
core counts the characters its regexes are handed (analyzer/rx.work). For every shape here, at two
sizes four times apart, the count grows at most in proportion (a pattern run again over a growing
buffer, or a record re-read on every new line, would grow it with the square) and stays under a
fixed multiple of the input's bytes. The regexes' own linearity on one long line is the other half:
tests/test_parser.py's hostile megabyte lines hang if one backtracks."""
import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import mixes  # noqa: E402  (the benchmark's generators)

PER_BYTE = 32  # characters handed to regexes per byte read, at most (measured: 0.1-22 over these shapes)
GROWTH = 4.4  # for an input four times longer: linear, with room for a fixed start-up share

_COUNT = """
import json, os, sys
from vlkb.analyzer import rx
from vlkb.kb import load_engine
engine = load_engine()
out = {}
for path in sys.argv[1:]:
    before = rx.work()
    d = engine.diagnose([path])
    out[path] = [rx.work() - before, d.verdict]
print(json.dumps(out))
"""


SHAPES = {  # name -> the log of that shape at about n characters
    **{f"line:{name}": partial(mixes.hostile_log, name) for name in mixes.HOSTILE_LINES},
    **{name: partial(mixes.hostile_log, name) for name in mixes.HOSTILE_STRUCTURES},
}
MIXES = ["quiet", "noisy", "error-dense", "long-lines"]


@pytest.fixture(scope="module")
def counted(tmp_path_factory):
    """{name: ((bytes, work) at the small size, (bytes, work) at four times it)} in one process."""
    folder = tmp_path_factory.mktemp("work")
    paths = {}
    for name, make in SHAPES.items():
        for scale in (1, 4):
            path = folder / f"{name.replace(':', '-')}-{scale}.log"
            path.write_text(make(scale * (1 << 18)), encoding="utf-8")
            paths[name, scale] = path
    for name in MIXES:
        for scale in (1, 4):
            path = folder / f"mix-{name}-{scale}.log"
            mixes.MIXES[name](path, scale)
            paths[name, scale] = path
    cp = subprocess.run([sys.executable, "-c", _COUNT, *map(str, paths.values())], capture_output=True, text=True,
                        env={**os.environ, "VLKB_COUNT_WORK": "1"}, timeout=600)
    assert cp.returncode == 0, cp.stderr[-2000:]
    work = json.loads(cp.stdout)
    return {key: (path.stat().st_size, *work[str(path)]) for key, path in paths.items()}


@pytest.mark.parametrize("name", [*SHAPES, *MIXES])
def test_regex_work_grows_linearly_and_stays_under_a_multiple_of_the_input(counted, name):
    (small, w_small, _), (large, w_large, verdict) = counted[name, 1], counted[name, 4]
    assert w_small > 0, "the count is on: every log is read by some pattern"
    assert w_large <= PER_BYTE * large, f"{w_large / large:.1f} characters per byte"
    assert w_large <= GROWTH * (large / small / 4) * w_small, f"{w_small} -> {w_large} for {small} -> {large} bytes"
    assert verdict in ("known", "unknown")


def test_the_count_is_off_unless_asked(engine, tmp_path):
    from vlkb.analyzer import rx

    log = tmp_path / "t.log"
    log.write_text(mixes.hostile_log("distinct-errors", 5000))
    before = rx.work()
    engine.diagnose([str(log)])
    assert rx.work() == before == 0 and "VLKB_COUNT_WORK" not in os.environ
