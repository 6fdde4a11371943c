"""What a search for similar public reports returns: a report, how it resembles the failure, and the
report found similar as every format shows it (its resolution, what it shares with the failure).

Plain records: vlkb/report_records.py reads reports into `Report`, analyzer/similar.compare scores one into a
`Likeness`, and the output formats read `Found`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import rx


@dataclass(frozen=True)
class Likeness:
    """How one report resembles a failure: the score and what it rests on."""

    score: float
    parts: dict  # signal -> score in [0, 1]
    shared_words: tuple[str, ...]  # the message's informative words the report also states
    shared_frames: tuple[str, ...]


_FIX_WORDS = {"fix": "fixed by", "workaround": "worked around by", "no-fix": "closed without a fix"}  # fixed-in: its release
_REPO = rx.compile(r"^https://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/\d+$")


@dataclass(frozen=True)
class Report:
    """One public report: a record of data/reports, the user's, or a KB fixture (vlkb/report_records.py reads them)."""

    url: str
    error: str  # the error as the report printed it (a fixture: its whole log window)
    title: str | None = None
    frames: tuple[str, ...] = ()
    framework: str | None = None
    model: str | None = None
    versions: dict = field(default_factory=dict)
    fix_kind: str = "unknown"
    fix_text: str = ""
    fix_version: str | None = None
    entry: str | None = None  # the KB entry a fixture proves
    origin: str = "public"  # "public" (data/reports), "kb" (a fixture), "user" ($VLKB_HOME/reports)

    @property
    def repo(self) -> str | None:
        m = _REPO.match(self.url)
        return m.group(1) if m else None

    def excerpt(self) -> str:
        """The text the parser reads: the frames under a traceback header, then the error."""
        if not self.frames:
            return self.error
        return "\n".join(["Traceback (most recent call last):", *(f"  {f.strip()}" for f in self.frames), self.error])


@dataclass(frozen=True)
class Found:
    """A public report found similar to the failure, as every format shows it."""

    report: Report
    quoted: str  # the report's error line, as its root was read
    likeness: Likeness

    @property
    def url(self) -> str:
        return self.report.url

    @property
    def entry(self) -> str | None:
        """The KB entry whose fixture this report is: vlkb files it under that entry."""
        return self.report.entry

    @property
    def resolution(self) -> str:
        """What resolved it, in one line, or "" when the report does not say; a report an entry's
        fixture proves says which."""
        said = self._said()
        if self.entry:
            return (f"{said}; " if said else "") + f"vlkb entry {self.entry} (`vlkb kb show {self.entry}`)"
        return said

    def _said(self) -> str:
        r = self.report
        words = _FIX_WORDS.get(r.fix_kind, "")
        version = f" {r.fix_version}" if r.fix_version else ""
        if r.fix_kind == "no-fix":
            return words + (f": {r.fix_text}" if r.fix_text else "")
        if r.fix_kind == "fixed-in":
            return f"fixed in{version or ' the project'}" + (f": {r.fix_text}" if r.fix_text else "")
        return f"{words} {r.fix_text}".strip() if r.fix_text else ""

    @property
    def why(self) -> str:
        """What it shares with the failure: the message's telling words, the frames."""
        parts = []
        if self.likeness.shared_words:
            parts.append("message: " + " ".join(self.likeness.shared_words))
        if self.likeness.shared_frames:
            parts.append("frames: " + ", ".join(self.likeness.shared_frames))
        return "; ".join(parts)

    @property
    def stated_versions(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(self.report.versions.items()))

    def to_json(self) -> dict:
        r = self.report
        return {"url": r.url, "title": r.title, "repo": r.repo, "quoted": self.quoted,
                "score": self.likeness.score, "signals": self.likeness.parts,
                "shared_words": list(self.likeness.shared_words), "shared_frames": list(self.likeness.shared_frames),
                "framework": r.framework, "model": r.model, "versions": r.versions,
                "resolution": {"kind": r.fix_kind, "text": r.fix_text or None, "version": r.fix_version, "entry": r.entry},
                "origin": r.origin}
