"""The user's vlkb directory: $VLKB_HOME, default ~/.vlkb (the KB search database, the history,
verify's captured logs, the start-up cache)."""
from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    return Path(os.environ.get("VLKB_HOME") or Path.home() / ".vlkb")


def cache_dir() -> Path:
    """Where start-up work is kept between runs (the compiled trigger, the index's marshal copy)."""
    return home() / "cache"


def refused(err: OSError) -> str:
    """What the environment refused, as one line, with what to change when the path is in the home."""
    where = f": {err.filename}" if err.filename else ""
    hint = ""
    if err.filename and str(err.filename).startswith(str(home())):
        hint = f" (VLKB_HOME is {home()}: point it at a directory you can write)"
    return f"{err.strerror or err}{where}{hint}"
