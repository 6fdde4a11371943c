"""The records the parser produces and the diagnosis is built from."""
from __future__ import annotations

from dataclasses import dataclass, field


def who_label(rank: str | None, host: str | None) -> str | None:
    """The rank label shown to users: ``3``, ``node-1``, ``node-1/3``."""
    if host and rank is not None:
        return f"{host}/{rank}"
    return host or rank


@dataclass(frozen=True, slots=True)
class Line:
    """One normalized log line with where it came from (1-based line number in its file)."""

    path: str
    lineno: int
    text: str
    rank: str | None = None
    host: str | None = None
    ts: str | None = None  # the CI runner's timestamp on the line, ISO 8601

    @property
    def stream(self) -> tuple[str, str | None, str | None]:
        return (self.path, self.host, self.rank)

    @property
    def who(self) -> str | None:
        return who_label(self.rank, self.host)


@dataclass(frozen=True, slots=True)
class Frame:
    file: str
    lineno: int
    func: str

    @property
    def basename(self) -> str:
        return self.file.replace("\\", "/").rsplit("/", 1)[-1]

    @property
    def where(self) -> str:
        """The frame as the reports quote it: `file:line in function`."""
        return f"{self.file}:{self.lineno} in {self.func}"


@dataclass(slots=True)
class Exc:
    """One exception of a (possibly chained) traceback."""

    type: str | None  # None when the excerpt stops before the exception line
    message: str
    line: Line | None  # the `Type: message` line


# Incident kinds. "traceback" and "error" are real failures; the others are evidence or cascade.
KINDS = ("traceback", "error", "signal", "metric", "nccl", "logged", "launcher", "warning")


@dataclass(slots=True)
class Incident:
    kind: str
    lines: list[Line]  # every line of the record, in order (bounded by the parser)
    frames: list[Frame] = field(default_factory=list)
    chain: list[Exc] = field(default_factory=list)
    ranks: list[str] = field(default_factory=list)
    count: int = 1  # occurrences folded into this one
    root_rank: str | None = None  # torchrun's "Root Cause (first observed failure)" rank
    cascade: bool = False
    root: bool = False
    when: str | None = None  # sortable time it started ("2024-11-29T16:19:03.123000"), when the log says


    @property
    def first(self) -> Line:
        return self.lines[0]

    @property
    def last(self) -> Line:
        return self.lines[-1]

    @property
    def headline(self) -> Exc | None:
        """The exception a user would quote: the last complete one of the chain."""
        for exc in reversed(self.chain):
            if exc.type:
                return exc
        return self.chain[-1] if self.chain else None

    @property
    def exception(self) -> str | None:
        h = self.headline
        return h.type if h else None

    @property
    def message(self) -> str:
        h = self.headline
        if h is not None:
            return h.message
        return self.first.text.strip()

    @property
    def quoted(self) -> Line:
        """The line a user would quote: the headline exception's line, else the record's first."""
        h = self.headline
        return h.line if h is not None and h.line is not None else self.first

    @property
    def header_only(self) -> bool:
        """Nothing after the record's first line but blank ones (a traceback header the paste stopped at)."""
        return not any(line.text.strip() for line in self.lines[1:])

    @property
    def where(self) -> str:
        """`path:line` of the line a user would quote (the exception's, not the traceback's first), then
        the ranks (eight at most) and how many times it folded."""
        ranks = f" rank {','.join(self.ranks[:8])}{'...' if len(self.ranks) > 8 else ''}" if self.ranks else ""
        times = f" (x{self.count})" if self.count > 1 else ""
        q = self.quoted
        return f"{q.path}:{q.lineno}{ranks}{times}"

    @property
    def truncated(self) -> bool:
        """A traceback whose excerpt ends before any exception line."""
        return self.kind == "traceback" and not any(e.type for e in self.chain)

    @property
    def last_lineno(self) -> int:
        """The last line of the record in the file it starts in (interleaved ranks may add others)."""
        return max(l.lineno for l in self.lines if l.path == self.first.path)

    @property
    def summary(self) -> str:
        """One line a user would quote: `Type: first line of the message`, whitespace collapsed."""
        if self.truncated:
            last = self.frames[-1] if self.frames else None
            if last:
                return f"traceback cut before its exception (last frame {last.basename}:{last.func})"
            return "traceback cut right after its header" if self.header_only else "traceback cut inside its first frame"
        head = (self.message.splitlines() or [""])[0]
        if self.exception:  # a bare `AssertionError` is quoted as its type alone
            return " ".join((f"{self.exception}: {head}" if head else self.exception).split())
        return " ".join((head if self.message else self.first.text).split())
