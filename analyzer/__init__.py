"""The headless core: parse training logs, elect the root failure, match it against the KB.

Never imports torch, transformers, deepspeed, textual or scikit-learn (a test checks this).
"""
from .diagnose import Diagnosis, Engine
from .reader import InputError

__all__ = ["Diagnosis", "Engine", "InputError", "diagnose"]


def diagnose(inputs: list[str], extra_kb: list[str] = (), top: int = 3) -> Diagnosis:
    """Diagnose log files ("-" for stdin, directories, .gz) against the shipped KB."""
    return Engine.load(extra_kb).diagnose(inputs, top=top)
