"""A log line shortened for a report around what matters: a path loses its leading folders (the part
under site-packages, or the last three parts, says whose code it is), a long line loses its middle."""
from __future__ import annotations

import re

# a path of four or more parts; only its tail names the code
_PATH = re.compile(r"(?:[A-Za-z]:)?[\\/]?(?:[^\s\\/\"'|│]{1,200}[\\/]){3,60}[^\s\\/\"'|│:,)]{1,200}")
_LIBROOT = re.compile(r"(?:^|[\\/])(?:site|dist)-packages[\\/]")


def _tail(m: re.Match) -> str:
    path = m.group(0)
    root = _LIBROOT.search(path)
    if root:
        return "…/" + path[root.end():]
    parts = re.split(r"[\\/]", path)
    return path if len(parts) <= 4 else "…/" + "/".join(parts[-3:])


def shorten(text: str, width: int) -> str:
    """`text` in at most `width` characters: paths elided to their tails first, then the middle."""
    text = text.rstrip()
    if len(text) <= width:
        return text
    text = _PATH.sub(_tail, " ".join(text.split()))
    if len(text) <= width:
        return text
    keep = max(width - 3, 8)
    head = keep * 2 // 3
    return text[:head] + " … " + text[len(text) - (keep - head):]
