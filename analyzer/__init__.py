"""The headless core: parse training logs, elect the root failure, match it against the KB.

Never imports torch, transformers, deepspeed, textual or scikit-learn (a test checks this).
"""
from .diagnose import Diagnosis, Engine
from .reader import InputError

__all__ = ["Diagnosis", "Engine", "InputError"]
