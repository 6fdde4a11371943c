"""Start-up work kept between runs in the user's cache folder ($VLKB_HOME/cache): derived files only,
each named by a hash of everything it was derived from, so a stale one is never read, and at most
KEEP of each kind. A copy that cannot be written costs the next run its head start, never its answer."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
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


def kept(cache_dir: Path | None, name: str, suffix: str, key: list[bytes], build: Callable, dump: Callable,
         load: Callable, refused: tuple[type[BaseException], ...]):
    """`build()`, or the copy of it kept in `cache_dir` as `<name>-<hash of key><suffix>` (`key`: everything
    the result is derived from). `load(bytes)` reads a copy back, raising one of `refused` (or
    OSError) for one it will not take, which is then built over; `dump(result)` gives the bytes kept.
    Without `cache_dir`, nothing is read or written."""
    if cache_dir is None:
        return build()
    digest = hashlib.sha256(b"\0".join(key)).hexdigest()[:32]
    path = Path(cache_dir) / f"{name}-{digest}{suffix}"
    try:
        return load(path.read_bytes())
    except (OSError, *refused):
        pass
    result = build()
    if write_atomic(path, dump(result)):
        _prune(path.parent, name, suffix)
    return result


KEEP = 4  # copies of one kind kept (a KB refit, a user's --kb set each make another): the newest


def _prune(folder: Path, name: str, suffix: str) -> None:
    """Remove all but the KEEP newest copies of one kind, so the folder stays bounded whatever changes."""
    try:
        copies = sorted(folder.glob(f"{name}-*{suffix}"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in copies[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
