"""Find a large file's candidate lines in other processes while this one parses them (issue 14).

The scan has two halves: finding the lines the trigger matches in each chunk (hyperscan over the
bytes, then one Python call per hit) and parsing those lines. The first half depends on nothing but
the chunk, so SCANNERS forked children run it over the file ahead of the parent, each over every
SCANNERS-th chunk, and send each chunk's offset, length and candidate line starts through a pipe;
the parent takes the chunks from the children in turn, reads each again from the page cache and
parses. On a quiet log finding is nearly all the work, and two children do it in about half the time
one takes. Each child walks the file with the same reader (reader.chunks) as the serial scan, so the
chunks, the line numbers they lead to and everything parsed from them are the serial scan's; a chunk
that is not the file's own bytes (the kept head of an over-long line) travels whole, and so do the
chunks of a .gz file, which each child inflates. The pipes' buffers hold the children back when they
run too far ahead: memory stays bounded by a few chunks in each process.

Used only where it pays and is safe: a regular file of PARALLEL_MIN bytes or more, Linux's fork, two
usable cores, and no other thread in the process (the TUI diagnoses in a worker thread; forking a
threaded process can copy a lock that some thread holds). Pipes take the serial path.
"""
from __future__ import annotations

import itertools
import os
import stat
import sys
import threading
from array import array
from collections.abc import Iterator

from .reader import InputError, ReadStats, Source, chunks
from .trigger import Trigger

PARALLEL_MIN = 64 << 20  # below this, forking costs about what it saves
SCANNERS = 2  # children finding candidate lines, each in every SCANNERS-th chunk


def usable(source: Source, jobs: int | None) -> bool:
    """Whether `source` is scanned with pre-scan children: `jobs` 1 says never, 2 for any regular file,
    None for one of PARALLEL_MIN bytes or more when two cores are free."""
    if jobs == 1 or source.path is None or not sys.platform.startswith("linux") or threading.active_count() > 1:
        return False
    if jobs is None and len(os.sched_getaffinity(0)) < 2:
        return False
    try:
        st = os.stat(source.path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and (jobs == 2 or st.st_size >= PARALLEL_MIN)


def prescanned(source: Source, stats: ReadStats, trigger: Trigger) -> Iterator[tuple]:
    """(data, end, starts, before, total) for each chunk of `source`, as reader.chunks and
    trigger.numbered_starts give them serially; the first child's read notes and byte count are added
    to `stats` at the end."""
    import multiprocessing  # here: a tenth of start-up, and only a large regular file is read in parallel

    ctx = multiprocessing.get_context("fork")
    children, receivers = [], []
    for k in range(SCANNERS):
        receiver, sender = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_produce, args=(source, trigger, sender, k), daemon=True, name=f"vlkb-prescan-{k}")
        child.start()
        sender.close()
        children.append(child)
        receivers.append(receiver)
    try:
        fd = os.open(source.path, os.O_RDONLY)
    except OSError as err:
        _stop(children)
        raise InputError(f"{source.label}: {err.strerror or err}") from None
    try:
        for i in itertools.count():
            msg = _next(receivers[i % SCANNERS], children[i % SCANNERS], source)
            kind = msg[0]
            if kind in ("chunk", "data"):
                _, data, end, starts, before, total = msg
                if kind == "chunk":  # the file's own bytes, sent as their offset: read them here again
                    data = os.pread(fd, end, data)
                    if len(data) != end:
                        raise InputError(f"{source.label}: the file shrank while it was read")
                # "data": a chunk the reader made (an over-long line's kept head), sent whole
                yield data, end, array("q", starts).tolist(), array("q", before).tolist(), total
            elif kind == "error":
                raise InputError(msg[1])
            else:  # "done": the file has i chunks; every child walked all of it
                done = msg if i % SCANNERS == 0 else _next(receivers[0], children[0], source)
                stats.bytes += done[1]
                stats.notes.extend(done[2])
                return
    finally:
        os.close(fd)
        for receiver in receivers:
            receiver.close()
        _stop(children)


def _next(receiver, child, source: Source) -> tuple:
    """The next message of one child; skips nothing, so the chunks come in the file's order."""
    try:
        return receiver.recv()
    except EOFError:
        raise InputError(f"{source.label}: a pre-scan process ended early (exit code "
                         f"{child.exitcode}); `--jobs 1` reads without it") from None


def _stop(children) -> None:
    for child in children:
        if child.is_alive():
            child.terminate()
    for child in children:
        child.join()


def _produce(source: Source, trigger: Trigger, conn, k: int) -> None:
    """Child `k`: walk the file as the serial scan does, and send what the parent needs for every
    SCANNERS-th chunk from the k-th; then "done" with what the walk read."""
    stats = ReadStats()
    try:
        for i, (data, end, offset) in enumerate(chunks(source, stats)):
            if i % SCANNERS != k:
                continue
            starts, before, total = trigger.numbered_starts(data, end)
            found = (array("q", starts).tobytes(), array("q", before).tobytes(), total)
            if offset is None:
                conn.send(("data", data[:end], end, *found))
            else:
                conn.send(("chunk", offset, end, *found))
        conn.send(("done", stats.bytes, stats.notes))
    except InputError as err:
        conn.send(("error", str(err)))
    except (BrokenPipeError, KeyboardInterrupt):  # the parent stopped reading
        pass
    finally:
        conn.close()
