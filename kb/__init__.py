"""The knowledge base: one YAML entry per failure, with its real-log fixtures beside it."""
from .loader import Entry, Rule, load, load_engine, load_entry
from .schema import EntryError

__all__ = ["Entry", "EntryError", "Rule", "load", "load_engine", "load_entry"]
