"""The time a log line states, and the last time stated before a position in raw bytes (the scan skips
the timestamped lines before a traceback, and the election orders ranks' failures by time)."""
from __future__ import annotations

from . import rx
from .model import Line


# "2024-11-29 16:19:03,123" (logging, DeepSpeed, LLaMA-Factory), "2024-11-29T16:19:03.123Z"
_TIME = rx.compile(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:[.,](\d{1,9}))?")


def line_time(line: Line) -> str | None:
    """The time a line states near its start, ISO 8601 with microseconds, or None."""
    if line.ts:
        text = line.ts
    else:
        text = line.text[:80]
        if "-" not in text:
            return None
    m = _TIME.search(text)
    return _iso(m.group(1), m.group(2), m.group(3)) if m else None


_TIME_BYTES = rx.compile(_TIME.pattern.encode())
LOOKBACK = 64 << 10


def time_before(chunk: bytes, pos: int) -> str | None:
    """The last time stated in the bytes before `pos` (at most LOOKBACK back): the scan skips
    the timestamped INFO lines that precede a traceback, and this reads the nearest one back."""
    for back in (512, 4 << 10, LOOKBACK):  # most lines of a timestamped log state one: look near first
        last = None
        for last in _TIME_BYTES.finditer(chunk, max(0, pos - back), pos):
            pass
        if last is not None:
            return _iso(*(g.decode() if g else None for g in last.groups()))
    return None


def _iso(day: str, clock: str, fraction: str | None) -> str:
    return f"{day}T{clock}.{(fraction or '')[:6]:0<6}"
