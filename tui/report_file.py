"""Saving the diagnosis on screen as a file, through the report formats' registry
(vlkb.analyzer.report.FORMATS): the same Markdown a CI comment carries, the JSON or SARIF a script
reads, the text report, each written as `vlkb-report.<suffix>` in the working directory."""
from __future__ import annotations

from pathlib import Path

from vlkb.analyzer.report import FORMATS, Context, render

NAME = "vlkb-report"
DEFAULT = "markdown"  # what Enter alone saves: the comment a user pastes into an issue


def choices() -> dict[str, str]:
    """format -> file suffix, for the formats that make a file of their own, in the registry's order."""
    return {name: f.suffix for name, f in FORMATS.items() if f.suffix}


def prompt() -> str:
    return f"save the report as: {', '.join(choices())} (Enter: {DEFAULT})"


def save(diagnosis, entries, fmt: str, directory: Path = Path(".")) -> Path:
    """Write `diagnosis` in `fmt` (DEFAULT when empty) to `directory`/vlkb-report<suffix>; ValueError for a
    format that makes no file, OSError when it cannot be written."""
    fmt = fmt or DEFAULT
    suffix = choices().get(fmt)
    if suffix is None:
        raise ValueError(f"not a report format to save: {fmt!r} (one of {', '.join(choices())})")
    path = directory / (NAME + suffix)
    path.write_text(render(fmt, diagnosis, Context(tuple(entries))), encoding="utf-8")
    return path
