"""Random access to the lines of a log file of any size, for the log pane: never the whole file in memory.

The file is memory-mapped; a sparse index keeps the byte offset of every STEP-th line and is built in
chunks (`build`, run in a worker, the pane showing what is indexed so far). A line is found from its
nearest mark; blocks of decoded lines are cached. Lines longer than MAX_LINE bytes are cut for display.
"""
from __future__ import annotations

import mmap
import re
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path

import numpy as np

STEP = 64  # lines between two marks
CHUNK = 8 << 20  # bytes indexed or searched at a time
MAX_LINE = 16 << 10  # bytes of a line shown
BLOCKS = 256  # decoded blocks of STEP lines kept


class LineIndex:
    def __init__(self, path: str | Path):
        self.path = str(path)
        with open(self.path, "rb") as f:
            self.size = f.seek(0, 2)
            self._mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if self.size else b""
        self._marks = [np.zeros(1, dtype=np.int64)]  # start offsets of lines 0, STEP, 2*STEP, ...
        self._offsets = self._marks[0]
        self._newlines = 0  # newlines found so far
        self._scanned = 0  # bytes indexed so far
        self._blocks: OrderedDict[int, list[str]] = OrderedDict()

    @property
    def done(self) -> bool:
        return self._scanned >= self.size

    @property
    def progress(self) -> float:
        return 1.0 if not self.size else self._scanned / self.size

    @property
    def count(self) -> int:
        """Lines known so far (all of them once `done`); a last line without a newline counts."""
        tail = self.done and self.size and self._mm[self.size - 1:self.size] != b"\n"
        return self._newlines + (1 if tail else 0)

    def build(self) -> Iterator[float]:
        """Index the next chunk at each step; yields the fraction of the file indexed."""
        while not self.done:
            start = self._scanned
            data = np.frombuffer(self._mm, dtype=np.uint8, count=min(CHUNK, self.size - start), offset=start)
            ends = np.flatnonzero(data == 10) + start  # offsets of the newlines in this chunk
            first = (-self._newlines - 1) % STEP  # the newline that ends line STEP*k - 1
            marks = ends[first::STEP] + 1
            if marks.size:
                self._marks.append(marks.astype(np.int64))
                self._offsets = np.concatenate(self._marks)
                self._marks = [self._offsets]
            self._newlines += int(ends.size)
            self._scanned = start + int(data.size)
            yield self.progress

    def build_all(self) -> "LineIndex":
        for _ in self.build():
            pass
        return self

    def line(self, n: int) -> str:
        """Line `n` (0-based) decoded, without its newline; "" past the end."""
        if n < 0 or n >= self.count:
            return ""
        block = self._block(n // STEP)
        return block[n % STEP] if n % STEP < len(block) else ""

    def _block(self, k: int) -> list[str]:
        cached = self._blocks.get(k)
        if cached is not None:
            self._blocks.move_to_end(k)
            return cached
        pos, lines = int(self._offsets[k]), []
        while len(lines) < STEP and pos < self.size:
            end = self._mm.find(b"\n", pos)
            end = self.size if end < 0 else end
            lines.append(bytes(self._mm[pos:min(end, pos + MAX_LINE)]).decode("utf-8", "replace").rstrip("\r"))
            pos = end + 1
        self._blocks[k] = lines
        if len(self._blocks) > BLOCKS:
            self._blocks.popitem(last=False)
        return lines

    def line_at(self, offset: int) -> int:
        """The 0-based line holding byte `offset` (within the indexed part)."""
        k = int(np.searchsorted(self._offsets, offset, side="right")) - 1
        start = int(self._offsets[k])
        return k * STEP + self._mm[start:offset].count(b"\n")

    def find(self, pattern: re.Pattern, after: int, backwards: bool = False) -> int | None:
        """The first line after line `after` (or the last before it) where `pattern` (bytes) matches,
        searching the indexed part of the file, in chunks, and wrapping around once."""
        if backwards:
            return self._find_back(pattern, after)
        start = self._line_end(after)
        for lo, hi in ((start, self._scanned), (0, start)):
            m = pattern.search(self._mm, lo, hi) if hi > lo else None
            if m:
                return self.line_at(m.start())
        return None

    def _find_back(self, pattern: re.Pattern, before: int) -> int | None:
        end = self._line_start(before)
        for lo, hi in ((0, end), (end, self._scanned)):
            while hi > lo:
                a = max(lo, hi - CHUNK)
                a = self._line_start(self.line_at(a))  # start the window on a line boundary
                last = None
                for last in pattern.finditer(self._mm, a, hi):
                    pass
                if last is not None:
                    return self.line_at(last.start())
                if a <= lo:
                    break
                hi = a
        return None

    def _line_start(self, n: int) -> int:
        n = max(0, min(n, self.count - 1)) if self.count else 0
        k = n // STEP
        pos = int(self._offsets[min(k, len(self._offsets) - 1)])
        for _ in range(n - k * STEP):
            pos = self._mm.find(b"\n", pos) + 1
        return pos

    def _line_end(self, n: int) -> int:
        end = self._mm.find(b"\n", self._line_start(n)) if self.size else -1
        return self.size if end < 0 else end + 1

    def close(self) -> None:
        if isinstance(self._mm, mmap.mmap):
            self._mm.close()
