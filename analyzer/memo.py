"""A bounded cache for results computed per log line.

Warnings, metric lines and launcher notices repeat on every rank and step, so the parser remembers
what it found for a line's text. At most MAX_ENTRIES keys of at most MAX_KEY_LEN characters (or bytes)
each are kept, about 10 MB whatever the log; when full, the cache starts over.
"""
from __future__ import annotations

MAX_ENTRIES = 20_000
MAX_KEY_LEN = 512


class Memo(dict):
    def remember(self, key: str | bytes, value) -> None:
        if len(key) > MAX_KEY_LEN:
            return
        if len(self) >= MAX_ENTRIES:
            self.clear()
        self[key] = value
