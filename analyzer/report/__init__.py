"""A diagnosis's output formats, by name: one module each with `render(diagnosis, ctx) -> str`, one
line in FORMATS to add one (ARCHITECTURE.md). `vlkb diagnose --format` offers them all; the TUI saves
a diagnosis in those that make a file of their own."""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Context:
    """What a format may need beyond the diagnosis."""

    entries: tuple = ()  # the KB the diagnosis was made against (SARIF describes its rules)
    color: bool = False  # terminal colour (text)


PLAIN = Context()

@dataclass(frozen=True)
class Format:
    module: str  # under vlkb.analyzer.report, imported when the format is first used
    suffix: str = ""  # a file of this format's own (the TUI saves one); "" where the output is no file:
    # GitHub's workflow commands mean something only on a runner's stdout


FORMATS = {"text": Format("text", ".txt"), "json": Format("json_", ".json"), "markdown": Format("markdown", ".md"),
           "github": Format("github"), "sarif": Format("sarif", ".sarif")}


# how sure a named diagnosis is, in the words every format puts beside its number: a confidence
# from the calibrated threshold up to LIKELY is a possibility, from LIKELY a likely cause, from
# MATCHES a match (the fixtures' positives sit at 0.9 and above nearly all)
LIKELY, MATCHES = 0.75, 0.9


def strength(confidence: float) -> str:
    """"matches", "likely" or "possibly": the word for a named entry's confidence."""
    return "matches" if confidence >= MATCHES else "likely" if confidence >= LIKELY else "possibly"


def how_sure(confidence: float) -> str:
    """"likely: confidence 0.82": the word and the number, as text, GitHub and the TUI print them."""
    return f"{strength(confidence)}: confidence {confidence:.2f}"


# the public reports a human-read format cites for a named entry: its first ones (the entries list
# their sources best first); a KB entry gathers dozens, and the rest are one command away
MAX_SOURCES = 3


def cited(entry) -> tuple[list[str], int]:
    """The URLs a report cites for `entry`, and how many more it has (`vlkb kb show` lists them)."""
    urls = [src["url"] for src in entry.sources]
    if len(urls) <= MAX_SOURCES + 1:  # "and 1 more" would take the room of the one it names
        return urls, 0
    return urls[:MAX_SOURCES], len(urls) - MAX_SOURCES


def render(fmt: str, diagnosis, ctx: Context = PLAIN) -> str:
    """The diagnosis in format `fmt` (a FORMATS name); each format's module is imported when used."""
    return importlib.import_module(f"{__name__}.{FORMATS[fmt].module}").render(diagnosis, ctx)
