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
