"""Logs behind a URL (`s3://bucket/run/`, `gs://...`, `hf://...`, `file://...`), read through fsspec when
the user has it and the file system's own package (s3fs, gcsfs, ...): never needed, never imported
otherwise. A URL is read as a path is: one file, or a directory walked (hidden entries skipped,
names sorted), each file streamed in chunks, never fetched whole.
"""
from __future__ import annotations

import io
from pathlib import Path

from . import rx
from .reader import InputError, Source, safe_label

URL = rx.compile(r"^[A-Za-z][A-Za-z0-9+.-]{0,30}://")


def is_remote(item: str) -> bool:
    """A URL fsspec reads (s3://, gs://, https://), unless a local path has that name: a file or
    directory called "s3:" is read as what it is."""
    return bool(URL.match(item)) and not Path(item).exists()


def _filesystem(url: str):
    try:
        import fsspec
    except ImportError:
        raise InputError(f"{safe_label(url)}: reading a URL needs fsspec and its file system's package "
                         "(pip install fsspec s3fs, or gcsfs, ...)") from None
    try:
        return fsspec.core.url_to_fs(url)
    except ImportError as err:  # fsspec knows the protocol, its package is missing
        raise InputError(f"{safe_label(url)}: {err}") from None
    except Exception as err:  # noqa: BLE001 - an unknown protocol, bad options: the user's to fix
        raise InputError(f"{safe_label(url)}: {type(err).__name__}: {err}") from None


def _call(url: str, what, *args, **kw):
    """A file system call whose failure (a missing object, no credentials, no network) is the user's
    to read as one line, whatever the file system raises."""
    try:
        return what(*args, **kw)
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(f"{safe_label(url)}: no such file") from None
    except Exception as err:  # noqa: BLE001
        raise InputError(f"{safe_label(url)}: {type(err).__name__}: {err}") from None


def _hidden(relative: str) -> bool:
    return any(part.startswith(".") for part in relative.split("/") if part)


def sources(url: str) -> list[Source]:
    """The files behind `url`, as reader.expand gives a path's."""
    fs, root = _filesystem(url)
    if _call(url, fs.isdir, root):
        found = _call(url, fs.find, root, detail=True)
        base = root.rstrip("/") + "/"
        files = sorted(p for p, info in found.items()
                       if info.get("type") == "file" and not _hidden(p[len(base):] if p.startswith(base) else p))
        if not files:
            return [Source(f"{safe_label(url)} (a directory that holds no files)", lambda: io.BytesIO(b""))]
        return [Source(safe_label(fs.unstrip_protocol(p)), _opener(fs, p), optional=True) for p in files]
    if not _call(url, fs.isfile, root):
        raise InputError(f"{safe_label(url)}: no such file")
    return [Source(safe_label(url), _opener(fs, root))]


def children(url: str) -> list[tuple[str, str, int]]:
    """(name, url, bytes) of each immediate child of the directory at `url`, hidden ones skipped,
    sorted by name; a directory's bytes are those of the files under it."""
    fs, root = _filesystem(url)
    if not _call(url, fs.isdir, root):
        if _call(url, fs.isfile, root):
            return [(safe_label(root.rstrip("/").rsplit("/", 1)[-1]), url, _call(url, fs.size, root) or 0)]
        raise InputError(f"{safe_label(url)}: no such file or directory")
    out = []
    for info in _call(url, fs.ls, root, detail=True):
        path = info["name"].rstrip("/")
        name = path.rsplit("/", 1)[-1]
        if name.startswith(".") or path == root.rstrip("/"):
            continue
        size = (info.get("size") or 0) if info.get("type") == "file" else _call(url, fs.du, path)
        out.append((name, fs.unstrip_protocol(path), int(size or 0)))
    return sorted(out)


def _opener(fs, path: str):
    def open_():
        try:
            return _Guarded(fs.open(path, "rb"))
        except OSError:
            raise
        except Exception as err:  # noqa: BLE001 - credentials, network: an unreadable input, not a crash
            raise OSError(f"{type(err).__name__}: {err}") from None
    return open_


class _Guarded:
    """A remote file whose failures all read as OSError (reader.py turns those into InputError)."""

    def __init__(self, f):
        self.f = f

    def _do(self, what, *args):
        try:
            return what(*args)
        except OSError:
            raise
        except Exception as err:  # noqa: BLE001
            raise OSError(f"{type(err).__name__}: {err}") from None

    def read(self, size: int = -1) -> bytes:
        return self._do(self.f.read, size)

    def seekable(self) -> bool:
        return bool(self._do(self.f.seekable))

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._do(self.f.seek, offset, whence)

    def tell(self) -> int:
        return self._do(self.f.tell)

    def close(self) -> None:
        try:
            self.f.close()
        except Exception:  # noqa: BLE001 - nothing left to read
            pass
