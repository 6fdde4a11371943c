"""Open log inputs as streams of byte chunks: files, directories, stdin, gzip; never all in memory.

Bad input is reported, not raised from deep inside: `InputError` carries a one-line message for the
user, and recoverable trouble (a truncated gzip, an over-long line) becomes a note on the result.
"""
from __future__ import annotations

import codecs
import io
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .streams import CHUNK, Gunzip, Prepend, Transcode

MAX_LINE = 64 << 10  # bytes kept of a line longer than a whole chunk
SNIFF = 64 << 10
GZIP_MAGIC = b"\x1f\x8b"
# Byte-order marks of the wide encodings (PowerShell's `>` writes UTF-16 LE); UTF-32 first, since its LE
# mark begins with UTF-16 LE's.
BOMS = [(codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
        (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")]


class InputError(Exception):
    """An input vlkb cannot read at all; the message is shown to the user as is."""


@dataclass
class Source:
    label: str  # the path as the user gave it (controls escaped: it is shown in every report), or "<stdin>"
    open: callable  # () -> BinaryIO
    optional: bool = False  # found by walking a directory: skipped with a note when unreadable
    path: str | None = None  # the file itself, for a reader that opens it again (the TUI's log pane)


def safe_label(name: str) -> str:
    """A file name as reports show it: characters that are not printable (controls, C1, a newline in
    the name) are written as Python escapes, so a name cannot reach a terminal or a CI annotation raw."""
    return name if name.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)


@dataclass
class ReadStats:
    bytes: int = 0
    lines: int = 0
    notes: list[str] = field(default_factory=list)
    tails: list[tuple[str, bytes, int]] = field(default_factory=list)  # (input, its last bytes, last line no.)


def expand(inputs: list[str]) -> list[Source]:
    """Paths, directories (walked, sorted, hidden entries skipped), "-" for stdin, and URLs read
    through fsspec (analyzer/remote.py)."""
    from . import remote  # it reads this module's Source

    sources: list[Source] = []
    for item in inputs:
        if item == "-":
            sources.append(Source("<stdin>", lambda: sys.stdin.buffer))
            continue
        path = Path(item)
        if remote.is_remote(item):
            sources.extend(remote.sources(item))
        elif path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file()
                           and not any(part.startswith(".") for part in p.relative_to(path).parts))
            if not files:  # empty input, as an empty file or an empty pipe is: a note, no failure found
                sources.append(Source(f"{safe_label(item)} (a directory that holds no files)", lambda: io.BytesIO(b"")))
            sources.extend(Source(safe_label(str(p)), _opener(p), optional=True, path=str(p)) for p in files)
        elif path.exists():
            if not os.access(path, os.R_OK):
                raise InputError(f"{safe_label(item)}: permission denied")
            sources.append(Source(safe_label(item), _opener(path), path=item))
        else:
            raise InputError(f"{safe_label(item)}: no such file")
    return sources


def _opener(path: Path):
    return lambda: open(path, "rb")


def chunks(source: Source, stats: ReadStats) -> Iterator[tuple[bytes, int, int | None]]:
    """(data, end, offset) triples: `data[:end]` is the next run of whole lines (the last run may lack
    its newline); bytes past `end` belong to the next triple. Lines longer than a chunk are cut to
    MAX_LINE bytes, so memory stays bounded whatever the input. `offset`: where `data[:end]` lies in
    a regular file read as it is (analyzer/prescan.py reads it there again), else None."""
    try:
        raw = source.open()
    except OSError as err:
        raise InputError(f"{source.label}: {err.strerror or err}") from None
    try:
        head = _read(raw, SNIFF, source)
        stream: BinaryIO = raw
        if head.startswith(GZIP_MAGIC):
            stream = Gunzip(Prepend(head, raw), lambda why: stats.notes.append(
                f"{source.label}: compressed stream is {why}; diagnosed what was read before it"))
            head = _read(stream, SNIFF, source)
        wide = wide_encoding(head)
        if wide:
            bom, encoding = wide
            stream = Transcode(Prepend(head[len(bom):], stream), encoding)
            stats.notes.append(f"{source.label}: decoded from {encoding.upper()} (byte-order mark)")
            head = _read(stream, SNIFF, source)
        reason = binary_reason(head)
        if reason and head[:1] == b"\x00":  # a log truncated in place (logrotate's copytruncate) or
            head, skipped = _past_nuls(stream, head, source)  # a crashed writer's: NULs, then text
            reason = binary_reason(head) if head else "nothing but NUL bytes"
            if not reason:
                stats.notes.append(f"{source.label}: starts with {skipped:,} NUL bytes (a log truncated in "
                                   "place, or a writer that crashed); read from the text after them")
        if reason:
            raise InputError(f"{source.label}: not a text log ({reason})")
        if not head:
            stats.notes.append(f"{source.label}: empty input")
            return
        if stream is raw and _seekable(raw):
            raw.seek(0)  # a regular file: read it in place, no bytes carried between chunks
            yield from _split_seekable(raw, source, stats)
        else:
            yield from ((data, end, None) for data, end in _split(head, stream, source, stats))
    finally:
        if raw is not sys.stdin.buffer:
            raw.close()


def _seekable(stream: BinaryIO) -> bool:
    try:
        return stream.seekable()
    except OSError:
        return False


def _split_seekable(stream: BinaryIO, source: Source, stats: ReadStats) -> Iterator[tuple[bytes, int, int | None]]:
    """Read a chunk, hand over its whole lines and seek back to the start of the partial last one."""
    while True:
        offset = stream.tell()
        block = _read(stream, CHUNK, source)
        if not block:
            return
        cut = block.rfind(b"\n") + 1
        if len(block) < CHUNK or cut == len(block):
            cut = len(block)  # the end of the file, or a chunk that ends exactly at a newline
        elif cut == 0:  # one line longer than a chunk: keep its head, skip to its end
            stats.notes.append(f"{source.label}: a line over {CHUNK >> 20} MiB was cut to {MAX_LINE >> 10} KiB")
            stats.bytes += len(block)
            yield block[:MAX_LINE] + b"\n", MAX_LINE + 1, None
            _skip_line(stream, source, stats)
            continue
        else:
            stream.seek(cut - len(block), os.SEEK_CUR)
        stats.bytes += cut
        yield block, cut, offset


def _skip_line(stream: BinaryIO, source: Source, stats: ReadStats) -> None:
    """Read on to just past the next newline (the rest of an over-long line)."""
    while True:
        block = _read(stream, CHUNK, source)
        cut = block.find(b"\n")
        if not block or cut >= 0:
            if cut >= 0:
                stream.seek(cut + 1 - len(block), os.SEEK_CUR)
                stats.bytes += cut + 1
            else:
                stats.bytes += len(block)
            return
        stats.bytes += len(block)


def _split(head: bytes, stream: BinaryIO, source: Source, stats: ReadStats) -> Iterator[tuple[bytes, int]]:
    """The same for a stream that cannot seek (stdin, gzip): the partial last line is carried over."""
    carry, skipping, block = b"", False, head
    while block:
        stats.bytes += len(block)
        if skipping:  # discarding the tail of an over-long line
            cut = block.find(b"\n")
            if cut < 0:
                block = _read(stream, CHUNK, source)
                continue
            block, skipping = block[cut + 1:], False
        data = carry + block if carry else block
        cut = data.rfind(b"\n") + 1
        if cut:
            yield data, cut
            carry = data[cut:]
        else:
            carry = data
        if len(carry) > CHUNK:
            stats.notes.append(f"{source.label}: a line over {CHUNK >> 20} MiB was cut to {MAX_LINE >> 10} KiB")
            yield carry[:MAX_LINE] + b"\n", MAX_LINE + 1
            carry, skipping = b"", True
        block = _read(stream, CHUNK, source)
    if carry and not skipping:
        yield carry, len(carry)


def _past_nuls(stream: BinaryIO, head: bytes, source: Source) -> tuple[bytes, int]:
    """(the first SNIFF bytes after the run of NULs `head` starts with, its length), read on while the
    run lasts, one SNIFF in memory: it holds no newline, so the lines keep their numbers."""
    skipped = 0
    while head and not head.strip(b"\x00"):
        skipped += len(head)
        head = _read(stream, SNIFF, source)
    text = head.lstrip(b"\x00")
    return text + (_read(stream, SNIFF - len(text), source) if text else b""), skipped + len(head) - len(text)


def _read(stream: BinaryIO, size: int, source: Source) -> bytes:
    """Damage inside a compressed stream is streams.Gunzip's to note; a failing read is an error."""
    try:
        return stream.read(size)
    except OSError as err:
        raise InputError(f"{source.label}: read failed ({err.strerror or err})") from None


def wide_encoding(head: bytes) -> tuple[bytes, str] | None:
    """(byte-order mark, encoding) of a UTF-16/32 log, when the text after the mark reads as lines in
    that encoding (an invalid UTF-8 log may begin with the same bytes by chance)."""
    for bom, enc in BOMS:
        if head.startswith(bom):
            body = head[len(bom):len(bom) + SNIFF]
            text = body.decode(enc, errors="replace")
            aligned = any(m.start() % len(bom) == 0 for m in re.finditer(re.escape("\n".encode(enc)), body))
            return (bom, enc) if aligned and text.count("\ufffd") <= len(text) // 100 else None
    return None


def binary_reason(head: bytes) -> str | None:
    """Why the first bytes do not look like a text log, or None. NUL-padded logs (a crashed
    writer leaves runs of NULs) still count as text when the rest is readable."""
    if not head:
        return None
    sample = head.replace(b"\x00", b"")
    if len(sample) < len(head) * 0.5:
        return "mostly NUL bytes"
    controls = sum(1 for b in sample if b < 9 or 13 < b < 27 or 27 < b < 32)
    if controls > len(sample) * 0.1:
        return f"{controls * 100 // max(len(sample), 1)}% binary control bytes"
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as err:
        bad = sample[err.start:].decode("utf-8", "replace").count("\ufffd")
        if bad > len(sample) * 0.3 and err.start < len(sample) - 4:
            return "not UTF-8 text"
    return None
