"""The log pane's line index: every line found from its sparse marks, in files that cross many index
chunks, with CRLF, no final newline, empty lines, over-long lines; search both ways with wrap-around."""
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vlkb.tui import lineindex
from vlkb.tui.lineindex import LineIndex


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(lineindex, "CHUNK", 97)  # many chunks, marks falling anywhere in them


def expected(data: bytes) -> list[str]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [ln[:lineindex.MAX_LINE].decode("utf-8", "replace").rstrip("\r") for ln in lines]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([b"", b"a", b"traceback line", b"x" * 300, b"crlf\r", "\u00e9t\u00e9".encode()]),
                max_size=400), st.booleans())
def test_every_line_is_found(tmp_path_factory, parts, final_newline):
    lineindex.CHUNK = 97
    try:
        data = b"\n".join(parts) + (b"\n" if final_newline and parts else b"")
        path = tmp_path_factory.mktemp("ix") / "log"
        path.write_bytes(data)
        ix = LineIndex(path).build_all()
        want = expected(data)
        assert ix.count == len(want)
        assert [ix.line(n) for n in range(ix.count)] == want
        assert ix.line(len(want)) == "" and ix.line(-1) == ""
    finally:
        lineindex.CHUNK = 8 << 20


def test_build_reports_progress_and_lines_are_readable_before_the_end(tmp_path, small_chunks):
    path = tmp_path / "log"
    path.write_text("".join(f"line {n}\n" for n in range(1000)))
    ix = LineIndex(path)
    steps = ix.build()
    first = next(steps)
    assert 0 < first < 1 and not ix.done and 0 < ix.count < 1000
    assert ix.line(ix.count - 1) == f"line {ix.count - 1}"
    assert list(steps)[-1] == 1.0 and ix.done and ix.count == 1000


def test_an_over_long_line_is_cut_for_display(tmp_path):
    path = tmp_path / "log"
    path.write_bytes(b"short\n" + b"y" * (lineindex.MAX_LINE * 3) + b"\nend\n")
    ix = LineIndex(path).build_all()
    assert ix.count == 3 and len(ix.line(1)) == lineindex.MAX_LINE and ix.line(2) == "end"


def test_search_forward_backward_and_wrapping(tmp_path, small_chunks):
    path = tmp_path / "log"
    path.write_text("".join(("NCCL timeout\n" if n in (120, 700) else f"step {n}\n") for n in range(1000)))
    ix = LineIndex(path).build_all()
    nccl = re.compile(rb"NCCL")
    assert ix.find(nccl, 0) == 120 and ix.find(nccl, 120) == 700 and ix.find(nccl, 700) == 120  # wraps
    assert ix.find(nccl, 500, backwards=True) == 120 and ix.find(nccl, 100, backwards=True) == 700
    assert ix.find(re.compile(rb"absent"), 10) is None
    assert ix.line_at(ix._line_start(700)) == 700


def test_the_rank_filter_process_numbers_lines_as_the_index_does(tmp_path):
    import io
    import subprocess
    import sys

    import numpy as np

    from vlkb.analyzer.textnorm import who
    from vlkb.tui.rank_filter import select

    path = tmp_path / "log"
    lines = [f"[rank{n % 4}]: step {n}" if n % 7 else f"node-1: [rank{n % 4}]: x \x1b[31mred\x1b[0m" for n in range(9000)]
    path.write_text("\n".join(lines) + "\n[rank3]: the last line, without a newline")
    ix = LineIndex(path).build_all()
    for rank in ("3", "node-1/2"):
        out = io.BytesIO()
        select(str(path), rank, out)
        rows = np.frombuffer(out.getvalue(), dtype=np.int64).tolist()
        assert rows == [n for n in range(ix.count) if who(ix.line(n)) == rank] and rows
    cp = subprocess.run([sys.executable, "-m", "vlkb.tui.rank_filter", str(path), "3"], capture_output=True, check=True)
    assert np.frombuffer(cp.stdout, dtype=np.int64)[-1] == ix.count - 1  # the last line, without its newline


def test_empty_file(tmp_path):
    path = tmp_path / "log"
    path.write_bytes(b"")
    ix = LineIndex(path).build_all()
    assert ix.count == 0 and ix.done and ix.line(0) == "" and ix.find(re.compile(b"x"), 0) is None
