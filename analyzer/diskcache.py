"""Start-up work kept between runs in the user's cache folder ($VLKB_HOME/cache): derived files only,
each named by a hash of everything it was derived from, so a stale one is never read. A copy that
cannot be written costs the next run its head start, never its answer."""
from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> bool:
    """Write `data` to `path` through a temporary file renamed over it: a concurrent run reads the
    old file or the whole new one, never a part. False (and nothing left behind) when it cannot."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        return False
