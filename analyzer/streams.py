"""File-like adapters the reader stacks on a raw stream: bytes already sniffed replayed first, gzip
decoded member by member, a wide encoding transcoded to UTF-8. Each reads in bounded pieces, so a
bomb or an endless pipe costs time, never memory."""
from __future__ import annotations

import codecs
import zlib
from collections.abc import Callable
from typing import BinaryIO

CHUNK = 8 << 20  # bytes read at a time


class Prepend:
    """A file-like object that replays bytes already read, then the rest of the stream."""

    def __init__(self, head: bytes, rest: BinaryIO):
        self._head, self._rest = head, rest

    def read(self, size: int = -1) -> bytes:
        if self._head:
            out, self._head = self._head[:size] if size >= 0 else self._head, \
                self._head[size:] if size >= 0 else b""
            return out
        return self._rest.read(size)


class Gunzip:
    """gzip decoded incrementally, every member in turn, at most `size` bytes per read (a bomb costs
    time, never memory). A stream cut short or corrupt keeps what was decoded before the damage and
    says so in a note: gzip.GzipFile raised and lost the whole read it happened in."""

    def __init__(self, raw, damaged: Callable[[str], None]):
        """`damaged(why)` is told once when the stream turns out truncated or corrupt."""
        self._raw, self._damaged = raw, damaged
        self._d = zlib.decompressobj(31)
        self._pending, self._done = b"", False

    def read(self, size: int = -1) -> bytes:
        want = CHUNK if size < 0 else size
        out = []
        have = 0
        while have < want and not self._done:
            data = self._pending or self._raw.read(1 << 16)
            self._pending = b""
            if not data:
                if not self._d.eof:
                    self._damaged("truncated")
                self._done = True
                break
            try:
                piece = self._d.decompress(data, want - have)
            except zlib.error as err:
                self._damaged(f"corrupt ({err})")
                self._done = True
                break
            self._pending = self._d.unconsumed_tail
            if self._d.eof:  # the member ended: another may follow (gzip -c a b > ab.gz)
                rest = self._d.unused_data + self._pending
                self._d, self._pending = zlib.decompressobj(31), rest
                if not rest.strip(b"\0"):
                    self._pending = b""
                    more = self._raw.read(1 << 16)
                    if not more:
                        self._done = True
                    else:
                        self._pending = more
            out.append(piece)
            have += len(piece)
        return b"".join(out)


class Transcode:
    """A file-like object that decodes a wide encoding incrementally and hands out UTF-8: a UTF-16
    log is read in bounded pieces like any other stream. Undecodable units become U+FFFD."""

    def __init__(self, stream, encoding: str):
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._pending = b""

    def read(self, size: int = -1) -> bytes:
        while size < 0 or len(self._pending) < size:
            raw = self._stream.read(CHUNK if size < 0 else max(size, 4096))
            self._pending += self._decoder.decode(raw, final=not raw).encode("utf-8")
            if not raw:
                break
        if size < 0:
            out, self._pending = self._pending, b""
        else:
            out, self._pending = self._pending[:size], self._pending[size:]
        return out
