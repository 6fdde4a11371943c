"""A diagnosis's output formats, by name: one module each with `render(diagnosis, ctx) -> str`, one
line in FORMATS to add one (ARCHITECTURE.md)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Context:
    """What a format may need beyond the diagnosis."""

    entries: tuple = ()  # the KB the diagnosis was made against (SARIF describes its rules)
    color: bool = False  # terminal colour (text)


PLAIN = Context()

# name -> its module under vlkb.analyzer.report
FORMATS = {"text": "text", "json": "json_", "markdown": "markdown", "github": "github", "sarif": "sarif"}


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


def render(fmt: str, diagnosis, ctx: Context = PLAIN) -> str:
    """The diagnosis in format `fmt` (a FORMATS name); each format's module is imported when used."""
    return importlib.import_module(f"{__name__}.{FORMATS[fmt]}").render(diagnosis, ctx)
