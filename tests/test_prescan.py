"""The pre-scan child (analyzer/prescan.py) changes how fast a large file is read, never what is read:
with reader.CHUNK made small, so that small logs span many chunks and hold over-long lines, the
diagnosis with a second process is the serial one, line numbers, ranks, incidents and notes alike."""
import gzip
import os
import random
import sys
from pathlib import Path

import pytest

from vlkb.analyzer import prescan, reader
from vlkb.analyzer.reader import expand
from vlkb.analyzer.report import render
from vlkb.kb import fixtures as fx
from vlkb.kb.loader import shipped_dir

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import mixes  # noqa: E402  (the benchmark's generators: real line shapes with varying values)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pre-scan child needs fork")


def _everything(d) -> tuple:
    """All a diagnosis says, down to each incident's lines with their numbers and ranks."""
    return (render("json", d), d.stats.bytes, d.stats.lines, list(d.stats.notes),
            [(i.kind, i.count, list(i.ranks), [(l.path, l.lineno, l.rank, l.host, l.text) for l in i.lines])
             for i in d.incidents])


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 64 KiB and over-long lines cut to 4 KiB: the forked child inherits both."""
    monkeypatch.setattr(reader, "CHUNK", 64 << 10)
    monkeypatch.setattr(reader, "MAX_LINE", 4 << 10)


def _same(engine, path):
    serial = engine.diagnose([str(path)], jobs=1)
    assert prescan.usable(expand([str(path)])[0], 2)
    assert _everything(engine.diagnose([str(path)], jobs=2)) == _everything(serial)
    return serial


@pytest.mark.parametrize("mix", ["quiet", "noisy", "error-dense", "long-lines"])
def test_each_benchmark_mix_reads_the_same_with_a_prescan_child(engine, tmp_path, small_chunks, mix):
    path = tmp_path / f"{mix}.log"
    mixes.MIXES[mix](path, 1, ranks=16)
    _same(engine, path)


def test_over_long_lines_and_a_last_line_without_newline_read_the_same(engine, tmp_path, small_chunks):
    """Lines longer than a chunk (cut to their head by the reader, sent whole by the child) between
    a real traceback's lines, and a file that ends without a newline."""
    rng = random.Random(7)
    failure = fx.parse(shipped_dir() / "cuda-oom" / "cuda-oom.pos-fastchat-qlora-wrapped.log").text.splitlines()
    lines = []
    for i in range(400):
        lines.append(f"{{'loss': {rng.uniform(0.5, 2):.4f}, 'epoch': {i / 400:.2f}}}")
        if i % 97 == 0:
            lines.append("tensor([" + ", ".join(f"{rng.random():.4f}" for _ in range(30000)) + "])")
    path = tmp_path / "long.log"
    path.write_text("\n".join(lines[:200] + failure + lines[200:]))  # no final newline
    d = _same(engine, path)
    assert d.named.entry.id == "cuda-oom" and any("was cut" in note for note in d.stats.notes)


@pytest.mark.parametrize("name", sorted(p.name for p in shipped_dir().glob("*/*.pos-*.log"))[::40])
def test_fixture_logs_read_the_same_with_a_prescan_child(engine, tmp_path, small_chunks, name):
    """Every 40th positive fixture (real logs), repeated to span several chunks."""
    text = fx.parse(next(shipped_dir().glob(f"*/{name}"))).text
    path = tmp_path / name
    path.write_text(text * max(1, (200 << 10) // max(1, len(text))))
    _same(engine, path)


def test_a_gzip_file_is_inflated_by_the_child_and_reads_the_same(engine, tmp_path, small_chunks):
    text = fx.parse(shipped_dir() / "cuda-oom" / "cuda-oom.pos-fastchat-qlora-wrapped.log").text
    path = tmp_path / "train.log.gz"
    path.write_bytes(gzip.compress(text.encode() * 40))
    _same(engine, path)


def test_pipes_and_small_files_are_read_in_one_process(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("x\n")
    packed = tmp_path / "train.log.gz"
    packed.write_bytes(gzip.compress(b"x\n"))
    assert not prescan.usable(expand([str(log)])[0], None)  # under PARALLEL_MIN
    assert not prescan.usable(expand([str(log)])[0], 1)
    assert prescan.usable(expand([str(log)])[0], 2)
    assert not prescan.usable(expand(["-"])[0], 2)
    fifo = tmp_path / "live.log"
    os.mkfifo(fifo)  # a named pipe has a path, but it can be read once only
    assert not prescan.usable(expand([str(fifo)])[0], 2)
    # a .gz file's chunks are not its bytes: the child sends them whole
    assert next(reader.chunks(expand([str(packed)])[0], reader.ReadStats()))[2] is None
