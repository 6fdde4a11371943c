"""What a log says about its run: library versions, the model, and the training config.

FactSheet reads them from the lines the scan hands over, through the shapes in factshapes.py;
describe() and ordered() show them.

The first value a log states for a key wins (a config is printed before training starts).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .factshapes import (ANY_MODEL, CONFIG, CONFIG_LINE, DATA_LINE, METRICS_LINE, MODELS, STEP_VALUES, VERSIONS,
                         gated, version_fact)
from .memo import Memo
from .model import Line
from .textnorm import template

MAX_KEYS = 64
MAX_CONFIG_LINES = 200


@dataclass(frozen=True, slots=True)
class Fact:
    key: str  # "zero_stage", "version.transformers", "model", ...
    value: object  # bool, int or str
    line: Line


def _number(text: str) -> int | None:
    value = _real(text)
    return None if value is None else int(value)


def _real(text: str) -> float | int | None:
    """A float as the log wrote it; a whole number stays an int (`max_grad_norm: 1` reads 1)."""
    try:
        value = float(text.replace(",", "").replace("_", ""))
    except ValueError:
        return None
    return int(value) if value.is_integer() and abs(value) < 1e15 else value


def _truth(text: str) -> bool:
    return text.lower() in ("true", "1", "yes")


class FactSheet:
    """Collects, from the lines the scan hands over, the facts and the lines that state the run's
    config (KB `context` hints are matched against those); each distinct text is read once."""

    def __init__(self):
        self.facts: dict[str, Fact] = {}
        self.lines: dict[str, Line] = {}  # text -> first line matching CONFIG_LINE
        self._seen = Memo()
        self._shapes = Memo()  # templates of the gated lines read

    def observe(self, line: Line) -> None:
        text = line.text
        if text in self._seen:
            return
        self._seen.remember(text, True)
        if not gated(text):
            return
        key = template(text)  # a line that differs from one read before only in its numbers adds nothing
        if key in self._shapes:
            return
        self._shapes.remember(key, True)
        if len(self.lines) < MAX_CONFIG_LINES and CONFIG_LINE.search(text[:4000]):
            self.lines[text] = line
        if len(self.facts) >= MAX_KEYS or len(text) > 4000:
            return
        for pattern in VERSIONS:
            m = pattern.search(text)
            if m:
                self._add(version_fact(m.group('name')), m.group("v").rstrip("."), line)
        metrics = METRICS_LINE.search(text) is not None
        for key, pattern, kind in CONFIG:
            if key not in self.facts and not (metrics and key in STEP_VALUES):
                m = pattern.search(text)
                if m:
                    self._read(key, kind, m, line)
        if "model" not in self.facts and not DATA_LINE.search(text):
            m = ANY_MODEL.search(text)
            if m:
                self._add("model", MODELS[int(m.lastgroup[1:])][0], line)

    def _read(self, key: str, kind: str, m: re.Match, line: Line) -> None:
        groups = m.groupdict()
        raw = groups.get("v") or groups.get("v2")
        if groups.get("neg"):  # disable_gradient_checkpointing: true
            self._add(key, False, line)
        elif groups.get("lora"):  # --lora_enable True
            self._add(key, "lora", line)
        elif kind == "word" and raw:
            self._add(key, raw.lower(), line)
        elif raw is None:
            if groups.get("flag") is not None:
                self._add(key, True, line)
        elif kind == "int":
            value = _number(raw)
            if value is not None:
                self._add(key, value, line)
        elif kind == "float":
            value = _real(raw)
            if value is not None:
                self._add(key, value, line)
        else:
            self._add(key, _truth(raw), line)

    def _add(self, key: str, value, line: Line) -> None:
        self.facts.setdefault(key, Fact(key, value, line))

    def get(self, key: str):
        fact = self.facts.get(key)
        return fact.value if fact else None


def describe(fact: Fact) -> str:
    """`key value` as a user would write it."""
    value = fact.value
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"{fact.key.removeprefix('version.')} {value}" if fact.key.startswith("version.") else f"{fact.key}: {value}"


_ORDER = ["framework", "model", "zero_stage", "reduce_bucket_size", "allgather_bucket_size", "bf16", "fp16", "dtype",
          "gradient_checkpointing", "use_reentrant", "freeze_vision_tower", "finetuning_type",
          "batch_size", "gradient_accumulation_steps", "learning_rate", "max_grad_norm", "max_length", "max_pixels",
          "world_size", "nproc_per_node"]


def ordered(facts: dict[str, Fact]) -> list[Fact]:
    """Model and config first (in a fixed order), then library versions by name; the launching
    command's framework only through the `framework` fact."""
    rank = {k: i for i, k in enumerate(_ORDER)}
    shown = [f for f in facts.values() if f.key != "launcher"]  # "framework" states it (framework.detect)
    return sorted(shown, key=lambda f: (rank.get(f.key, len(rank)), f.key))
