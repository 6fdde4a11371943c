"""The headless core: parse training logs, elect the root failure, match it against the KB.

Never imports torch, transformers, deepspeed, textual or scikit-learn (a test checks this).

The package itself imports nothing: `Engine`, `Diagnosis` and `InputError` load their modules when
first asked for, so a light corner of the core (the output formats' registry that `vlkb diagnose
--help` lists) is read without the parser and matcher behind it.
"""
from __future__ import annotations

import importlib

# public name -> the module that defines it
_PUBLIC = {"Diagnosis": "diagnose", "Engine": "diagnose", "InputError": "reader"}

__all__ = list(_PUBLIC)


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])
