"""The scan cleans a line once per layout (analyzer/layout.py): a line that differs from one seen before
only in its digits is cut at the first one's offsets instead of being cleaned in full. That shortcut
must give exactly what a full clean gives, on every real line the KB's fixtures hold."""
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vlkb.analyzer.layout import Cleaner, _cleaned
from vlkb.analyzer.model import who_label
from vlkb.analyzer.textnorm import clean
from vlkb.kb.fixtures import parse

KB = Path(__file__).resolve().parent.parent / "kb" / "entries"
# other digits in the same places: each rank's and each step's copy of a line
SHIFT = bytes.maketrans(b"0123456789", b"3456789012")


def _fixture_lines() -> list[bytes]:
    lines = []
    for path in sorted(KB.glob("*/*.log")):
        lines += parse(path).text.encode("utf-8", "replace").splitlines()
    return lines


LINES = _fixture_lines()


def test_every_fixture_line_cleans_alike_through_its_layout():
    cleaner = Cleaner()
    taken = 0
    for raw in LINES:
        first = cleaner(raw)  # learns the layout (or that the line has none to reuse)
        assert first == _cleaned(raw.decode("utf-8", "replace")), raw
        shifted = raw.translate(SHIFT)
        taken += cleaner._by_layout(shifted) is not None
        assert cleaner(shifted) == _cleaned(shifted.decode("utf-8", "replace")), raw
        whole = clean(shifted.decode("utf-8", "replace"))  # the rank of a skipped line: the whole line's
        assert cleaner.who(shifted) == who_label(whole.rank, whole.host), raw
    assert taken > len(LINES) // 2  # the shortcut is taken for most lines, not bypassed


@pytest.mark.parametrize("seen, raw, expected", [
    (b"[rank3]: Traceback (most recent call last):", b"[rank7]: Traceback (most recent call last):",
     ("Traceback (most recent call last):", "7", None, None)),
    (b'[pod/train-worker-0/pytorch] [1,3]<stderr>:File "/x.py", line 4, in f',
     b'[pod/train-worker-7/pytorch] [2,5]<stderr>:File "/x.py", line 9, in f',
     ('File "/x.py", line 9, in f', "5", "train-worker-7", None)),
    (b"2024-05-01 10:00:00,123 - ERROR - RuntimeError: boom", b"2025-06-02 11:20:30,456 - ERROR - RuntimeError: boom",
     ("RuntimeError: boom", None, None, "2025-06-02 11:20:30,456")),
])
def test_a_layout_cuts_text_rank_host_and_time_at_the_offsets_it_learned(seen, raw, expected):
    cleaner = Cleaner()
    cleaner(seen)
    (line,) = cleaner._by_layout(raw)
    assert (line.text, line.rank, line.host, line.timestamp) == expected


@settings(max_examples=300, deadline=None)
@given(prefix=st.sampled_from([b"", b"[rank1]:", b"[default3]: ", b"2: ", b"[1,2]<stderr>:", b"node-1: ",
                               b"2024-01-01T00:00:00.0000000Z ", b"2024-01-01T00:00:00.000000000Z stdout F ", b"> ", b"  12 | ", b"(WorkerDict pid=23, ip=10.0.0.3) "]),
       body=st.binary(max_size=60), digits=st.lists(st.integers(0, 9), min_size=1, max_size=8))
def test_any_line_with_new_digits_cleans_as_in_full(prefix, body, digits):
    raw = prefix + body.replace(b"\n", b" ")
    cleaner = Cleaner()
    cleaner(raw)
    table = bytes.maketrans(b"0123456789", bytes(48 + (d + digits[d % len(digits)]) % 10 for d in range(10)))
    other = raw.translate(table)
    assert cleaner(other) == _cleaned(other.decode("utf-8", "replace"))
