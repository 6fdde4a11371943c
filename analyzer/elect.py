"""Elect the root failure over its cascade (fold.py has folded identical incidents across ranks).

When one rank dies the others follow: NCCL watchdogs, SIGTERM notices, the launcher's
ChildFailedError, teardown tracebacks. The root is the earliest real exception; an NCCL timeout or a
killed worker is the answer only when no real exception explains the run.
"""
from __future__ import annotations

from . import defining, rx
from .errorshapes import BUILD_ERROR, GLIBC_HEAP, HYDRA_JOB, STATED_FAILED
from .model import Incident
from .patterns import CPP_FRAME, FAULT_FRAME, LIBCXXABI
from .standaloneshapes import NCCL

# Exceptions and messages that follow another failure rather than cause one (torch.multiprocessing.spawn's
# ProcessRaisedException only announces the child's traceback printed after it).
CASCADE = rx.compile(
    r"ChildFailedError|ProcessRaisedException|SignalException|CalledProcessError|KeyboardInterrupt|BrokenPipeError"
    r"|ConnectionResetError|Connection reset by peer|Connection closed by peer|RendezvousClosedError"
    r"|DistNetworkError|DistStoreError|Received SIG(?:TERM|INT)|closing signal SIGTERM"
    r"|exits with return code|returned non-zero exit status|exited with non-zero status|process group has NOT been destroyed"
    r"|Watchdog caught collective operation timeout|NCCL operations have failed or timed out"
    r"|NCCL communicator was aborted|ProcessGroupNCCL|DistBackendError"
)
# A rank stopped by its launcher because another one failed: SIGTERM (15) or SIGINT (2). Any other
# signal is a death of its own (-9 host OOM, -7 SIGBUS, -11 SIGSEGV, ...).
STOPPED = frozenset({2, 15})
# SIGABRT is how the NCCL watchdog ends a process after a timeout or a communicator error (c10 throws
# from the watchdog thread and std::terminate aborts): after an NCCL failure it is its cascade.
ABORT = 6

# An NCCL error of the rank's own (a CUDA or system error inside NCCL, invalid usage), as opposed to
# a timeout or a peer that went away: it competes with a traceback cut before its exception by position.
NCCL_OWN = rx.compile(r"(?:nccl\w*Error|NCCL error)(?!.{0,200}(?:remote process exited|Connection reset|Connection closed))")

# A CUDA error the NCCL watchdog found on its own rank ("[PG 0 Rank 1] Process group watchdog thread
# terminated with exception: CUDA error: unspecified launch failure", c10's what() of the same): the
# rank's kernel faulted; the watchdog only noticed it. Its own failure, never another rank's cascade.
WATCHDOG_CUDA = rx.compile(r"watchdog thread terminated with exception: (?:\[[^\]]{0,80}\] )?CUDA error: ")

# Lower is elected first.
_CLASS = {"traceback": 0, "error": 0, "signal": 2, "metric": 3, "nccl": 4, "logged": 4, "launcher": 5, "warning": 6}


def _detail_follows(text: str) -> bool:
    """A failure that says where or that, not what: a C++ backtrace cut before its message, a compiler's
    error, Hydra's notice, glibc's heap check, a job's sentence that it failed. A signal, a metric or the
    exception after it, if the log has one, says more."""
    return bool(CPP_FRAME.match(text) or BUILD_ERROR.search(text) or HYDRA_JOB.match(text) or GLIBC_HEAP.match(text)
                or STATED_FAILED.match(text))


# Frames of the launchers themselves: a traceback that never leaves them is the launcher reporting
# a child's death (torchrun's ChildFailedError, deepspeed/accelerate re-raising the exit status).
LAUNCHER_FRAME = rx.compile(
    r"(?:bin[\\/](?:torchrun|deepspeed|accelerate)|torch[\\/]distributed[\\/](?:run|launch)\.py"
    r"|elastic[\\/]|launcher[\\/]api\.py|deepspeed[\\/]launcher[\\/]|accelerate[\\/]commands[\\/]"
    r"|subprocess\.py"
    r"|[\\/]runpy\.py$)"  # `python -m torch.distributed.run` enters through runpy
)


def is_cascade(inc: Incident) -> bool:
    if WATCHDOG_CUDA.search(inc.first.text[:2000]):
        return False
    if inc.kind in ("nccl", "launcher"):
        return True
    if inc.kind == "signal":
        return any((sig := defining.signals(line.text)) and sig <= STOPPED for line in inc.lines[:4])
    # the exception and its first two message lines: what a message goes on to quote (a warning the
    # rank printed next, a config dump) says nothing about whether this failure is a consequence
    text = " ".join(filter(None, [inc.exception, *inc.message[:2000].split("\n", 2)[:2], inc.first.text]))
    if CASCADE.search(text):
        return True
    # Frames of the launcher alone: it reports a child's exit with the kinds CASCADE caught above, or
    # exits (SystemExit) or was cut before its exception; another exception there (accelerate's launch
    # reading a config it was never given: AttributeError) is its own failure. runpy alone is the
    # entry of any `python -m` run (a traceback cut right after it), not a launcher.
    return (bool(inc.frames) and all(LAUNCHER_FRAME.search(f.file) for f in inc.frames)
            and not all(f.file.endswith("runpy.py") for f in inc.frames)
            and (inc.exception is None or inc.exception.endswith("SystemExit")))


def elect(incidents: list[Incident]) -> list[Incident]:
    """Order incidents root first; mark the root and the cascade."""
    root_rank = next((i.root_rank for i in incidents if i.root_rank is not None), None)
    files: dict[str, int] = {}
    # an NCCL failure on a line of its own, or stated inside a rank's exception ("RuntimeError: NCCL
    # communicator was aborted ... Watchdog caught collective operation timeout", NVIDIA/nccl#1437)
    nccl = _first_lines(inc for inc in incidents if inc.kind == "nccl" or (
        inc.kind in ("traceback", "error") and NCCL.search(inc.message[:2000])))
    for inc in incidents:
        inc.ranks.sort(key=_rank_order)
        # SIGABRT ends a rank after an NCCL failure logged before it (or in another file, where order
        # says nothing); a SIGABRT logged first is a failure of its own
        inc.cascade = is_cascade(inc) or (inc.kind == "signal" and _aborted(inc) and (
            _after(nccl, inc) or bool(nccl.keys() - {inc.first.path})))
        files.setdefault(inc.first.path, len(files))  # files are scanned in order
    # a launcher's notice or traceback that a child died, a rank dead of a signal: a rank failed already
    died = _first_lines(inc for inc in incidents
                        if inc.kind in ("launcher", "signal") or (inc.kind == "traceback" and inc.cascade))

    def key(pair):
        _, inc = pair
        index = (files[inc.first.path], inc.first.lineno)  # where it starts, not when it closed
        klass = _CLASS[inc.kind]
        if klass in (0, 2) and inc.cascade:
            klass = 5
        elif inc.kind == "nccl" and NCCL_OWN.search(inc.first.text):
            klass = 1
        elif inc.kind == "nccl" and _after(died, inc):
            # a timeout or abort logged after a launcher reaped a child or a rank died of a signal: the
            # ranks left waiting for the dead one, not the failure; the earlier notice leads
            klass = 5
        elif klass == 0 and inc.truncated:
            # a header alone, or cut in its first frame after a rank died (torchrun logs the exit line, then
            # raises ChildFailedError), says only that something raised: what the log states elsewhere says more;
            # so do faulthandler's frames (a dump whose header was cut, or put under a traceback's header by a
            # report's excerpt), which a fatal signal's notice may state
            after_death = not inc.frames and _after(died, inc)
            dumped = any(FAULT_FRAME.match(line.text) for line in inc.lines[:3])
            klass = 3 if inc.header_only or after_death or dumped else 1
        elif (klass == 0 and inc.exception is None and _detail_follows(inc.first.text)) or (
                inc.kind == "signal" and LIBCXXABI.match(inc.first.text)):
            klass = 3  # says where or that; a libc++abi terminate's abort notice after it names the same failure
        # on the rank the launcher names as the first to fail, or on no rank the log tells: a line
        # without a rank prefix may be any rank's, and is not put behind the named rank's cascade
        named = 0 if root_rank is not None and (_has_rank(inc, root_rank) or not inc.ranks) else 1
        return (klass, named, index)

    ordered = [inc for _, inc in sorted(enumerate(incidents), key=key)]
    ordered = _earliest_across_files(ordered, lambda inc: key((0, inc))[:2])
    for inc in ordered:
        inc.root = False
    if ordered and ordered[0].kind != "warning":
        ordered[0].root = True
    return ordered


def _earliest_across_files(ordered: list[Incident], rank) -> list[Incident]:
    """Files are read one after another (rank0.log, then rank1.log), so file order says nothing
    about which rank failed first. Among the best-ranked incidents, the first of each file, when
    every one of them states its time, the earliest leads."""
    if not ordered:
        return ordered
    best = rank(ordered[0])
    firsts: dict[str, Incident] = {}
    for inc in ordered:
        if rank(inc) != best:
            break
        firsts.setdefault(inc.first.path, inc)
    if len(firsts) < 2 or any(inc.when is None for inc in firsts.values()):
        return ordered
    lead = min(firsts.values(), key=lambda inc: inc.when)
    return [lead] + [inc for inc in ordered if inc is not lead]


def _first_lines(incidents) -> dict[str, int]:
    """The first line of any of `incidents` in each file."""
    first: dict[str, int] = {}
    for inc in incidents:
        first[inc.first.path] = min(first.get(inc.first.path, inc.first.lineno), inc.first.lineno)
    return first


def _after(first: dict[str, int], inc: Incident) -> bool:
    """Whether `inc` starts after the first line `first` holds for its file."""
    return first.get(inc.first.path, inc.first.lineno) < inc.first.lineno


def _aborted(inc: Incident) -> bool:
    return any(ABORT in defining.signals(line.text) for line in inc.lines[:4])


def _rank_order(who: str) -> tuple:
    """"node-1/3" and "3" sort by host, then by rank as a number."""
    host, _, rank = who.rpartition("/")
    return (host, int(rank)) if rank.isdigit() else (host or who, -1)


def _has_rank(inc: Incident, rank: str) -> bool:
    return any(r == rank or r.endswith(f"/{rank}") for r in inc.ranks)
