"""`vlkb kb new`: scaffold an entry and its first fixture from a log vlkb could not explain.

The scaffold carries the root incident's real text (pattern, message, frames) and TODO markers where
a person must write (title, root cause, fix, source); `vlkb kb lint` reports every TODO left.
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from .loader import load_engine

from .fixtures import MATCH, NOTE, SOURCE
from .schema import EntryError

CONTEXT_LINES = 30  # lines kept around the root incident in the fixture


def _pattern(text: str) -> str:
    """An anchored regex for the exception line: literal text, numbers generalised, cut short."""
    head = text[:120]
    escaped = re.escape(head)
    return "^" + re.sub(r"\d+(?:\\\.\d+)*", r"\\d+(?:\\.\\d+)*", escaped)


def scaffold(entry_id: str, logs: list[str], dest: Path, source: str | None = None,
             family: str | None = None) -> list[Path]:
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", entry_id):
        raise EntryError(f"'{entry_id}' is not a kebab-case id (e.g. vision-tower-oom)")
    d = load_engine().diagnose(logs)
    root = d.root
    if root is None:
        raise EntryError(f"{', '.join(logs)}: no failure found to scaffold an entry from")
    line = root.quoted
    text = line.text.strip()
    folder = dest / entry_id
    if folder.exists():
        raise EntryError(f"{folder}: already exists; pick another id or remove it")
    doc = {
        "id": entry_id,
        **({"family": family} if family else {}),
        "title": f"TODO: name the failure ({root.exception or root.kind})",
        "symptom": f"TODO: what the user sees. The log shows:\n`{text}`\n",
        "root_cause": "TODO: why it happens\n",
        "fix": "TODO: the exact config key or code line to change (LLaMA-Factory, ms-swift, HF Trainer, PyTorch)\n",
        "patterns": [{"regex": _pattern(text), "weight": 1.0, "note": "TODO: which program prints this line"}],
        "messages": [text],
        "frames": [f"{f.basename}:{f.func}" for f in root.frames[-2:]],
        "frameworks": ["TODO"],
        "sources": [{"url": source or "https://TODO", "title": "TODO: the public report"}],
        "verify": {"none": "TODO: a repro name, or why there is none"},
    }
    folder.mkdir(parents=True)
    yaml_path = folder / f"{entry_id}.yaml"
    yaml_path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=110), encoding="utf-8")
    fixture = folder / f"{entry_id}.pos-{Path(line.path).stem.lower().replace('_', '-')[:40] or 'log'}.log"
    fixture.write_text(_fixture_text(line, source), encoding="utf-8")
    return [yaml_path, fixture]


def _fixture_text(line, source: str | None) -> str:
    """The log window around the root line, read again from the file (verbatim, noise kept)."""
    start = max(1, line.lineno - CONTEXT_LINES)
    out = [f"{SOURCE}{source or 'https://TODO'}\n", f"{NOTE}scaffolded by vlkb kb new from {line.path}\n"]
    if not Path(line.path).is_file():  # stdin: only the parsed root line survives
        return "".join(out) + MATCH + line.text + "\n"
    with open(line.path, encoding="utf-8", errors="replace") as f:
        for n, raw in enumerate(f, 1):
            if n < start:
                continue
            if n > line.lineno + CONTEXT_LINES:
                break
            out.append((MATCH if n == line.lineno else "") + raw)
    return "".join(out)
