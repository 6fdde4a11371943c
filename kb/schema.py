"""Validate a KB entry against `kb/schema.json`, with messages that name the file, the key and the fix
(STYLE.md 8).

The schema file is the contract (a test checks that jsonschema agrees with this validator on every
shipped entry). This module implements the part of JSON Schema the file uses, so loading the KB needs
no jsonschema at run time, and adds what a schema cannot say: regexes must compile, patterns must
be anchored; `todos` lists the TODO markers a scaffold still holds.
"""
from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from vlkb.analyzer.regexinfo import backtracks

_TYPES = {"object": dict, "array": list, "string": str, "number": (int, float), "boolean": bool}
TODO = "TODO"


class EntryError(ValueError):
    """A KB entry that cannot be used; str() is the message for the user."""


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return (Path(__file__).resolve().parent / "schema.json").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(_schema_text())


@lru_cache(maxsize=1)
def schema_hash() -> str:
    """What a stored, validated entry was validated under: the schema file and this validator's code.
    An entry `kb fit` validated under another is validated again when loaded."""
    h = hashlib.sha256(_schema_text().encode())
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()[:16]


def problems(doc: Any, compile_check: bool = True) -> list[tuple[str, str, str]]:
    """Every (key, problem, what to write) in `doc`; empty when the entry is valid. Without
    `compile_check` the regexes are not compiled here (they are when first used)."""
    s = schema()
    if not isinstance(doc, dict):
        return [("", f"the file must hold one mapping (key: value), found {type(doc).__name__}", "")]
    out: list[tuple[str, str, str]] = []
    props = s["properties"]
    for key in doc:
        if key not in props:
            out.append((key, "unknown key", "remove it, or use one of: " + ", ".join(props)))
    for key in s["required"]:
        if key not in doc:
            out.append((key, "missing", props[key]["hint"]))
    for key, value in doc.items():
        if key in props:
            out += [(key, p, props[key]["hint"]) for p in _check(value, props[key], key)]
    out += _extra(doc, props, compile_check) + _ranges(doc, props)
    return out


def validate(doc: Any, path: str, compile_check: bool = True) -> dict:
    found = problems(doc, compile_check)
    if found:
        key, problem, hint = found[0]
        where = f"key '{key}': " if key else ""
        raise EntryError(f"{path}: {where}{problem}" + (f"; expected {hint}" if hint else ""))
    return doc


def _check(value: Any, spec: dict, where: str) -> list[str]:
    kinds = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    kind = next((k for k in kinds if isinstance(value, _TYPES[k]) and (k == "boolean") == isinstance(value, bool)),
                None)
    if kind is None:
        return [f"{where} is a {type(value).__name__}, not a {' or '.join(kinds)}"]
    out = []
    if "enum" in spec and value not in spec["enum"]:
        out.append(f"{where} {value!r} is not one of {', '.join(map(str, spec['enum']))}")
    if kind == "string":
        if len(value.strip()) < spec.get("minLength", 0):
            out.append(f"{where} is empty")
        if "pattern" in spec and not re.search(spec["pattern"], value):
            out.append(f"{where} '{value}' does not match {spec['pattern']}")
    elif kind == "number":
        if "exclusiveMinimum" in spec and not value > spec["exclusiveMinimum"]:
            out.append(f"{where} {value!r} must be above {spec['exclusiveMinimum']}")
        if "maximum" in spec and value > spec["maximum"]:
            out.append(f"{where} {value!r} must be at most {spec['maximum']}")
    elif kind == "array":
        if len(value) < spec.get("minItems", 0):
            out.append(f"{where} is empty")
        for i, item in enumerate(value):
            out += _check(item, spec["items"], f"{where}[{i}]")
    elif kind == "object":
        for key in spec.get("required", []):
            if key not in value:
                out.append(f"{where} has no '{key}'")
        for key, item in value.items():
            if key not in spec.get("properties", {}):
                out.append(f"{where} has an unknown key '{key}'")
            else:
                out += _check(item, spec["properties"][key], f"{where}.{key}")
        if not spec.get("minProperties", 0) <= len(value) <= spec.get("maxProperties", len(value)):
            out.append(f"{where} must hold exactly one of: {', '.join(spec['properties'])}")
    return out


def _extra(doc: dict, props: dict, compile_check: bool = True) -> list[tuple[str, str, str]]:
    out = []
    for key in ("patterns", "context"):
        for i, rule in enumerate(doc.get(key) or []):
            if not isinstance(rule, dict) or not isinstance(rule.get("regex"), str):
                continue
            try:
                if compile_check:
                    re.compile(rule["regex"])
                    why = backtracks(rule["regex"])
                    if why:
                        out.append((key, f"{key}[{i}] regex can take exponential time on a hostile line ({why})",
                                    "bound the inner repetition ({1,100}) or make the repeated part start with a literal"))
            except re.error as err:
                out.append((key, f"{key}[{i}] regex does not compile ({err})", props[key]["hint"]))
            if key == "patterns" and not rule["regex"].startswith("^"):
                out.append((key, f"{key}[{i}] regex is not anchored with ^", props[key]["hint"]))
    return out


def _ranges(doc: dict, props: dict) -> list[tuple[str, str, str]]:
    """`in` conditions hold a version range that must parse: ">=4.45,<4.47"."""
    from vlkb.analyzer.conditions import parse_range

    conds = [(key, c) for key in ("conditions", "unless") for c in doc.get(key) or []]
    conds += [("advice", c) for a in doc.get("advice") or [] if isinstance(a, dict) for c in a.get("when") or []]
    out = []
    for key, c in conds:
        if isinstance(c, dict) and c.get("op") == "in":
            try:
                parse_range(str(c.get("value")))
            except ValueError as err:
                out.append((key, f"{key}: {err}", props[key]["hint"]))
    return out


def todos(doc: Any) -> list[tuple[str, str, str]]:
    """Keys still holding a TODO from `vlkb kb new` (lint reports them; loading does not refuse)."""
    props = schema()["properties"]

    def has_todo(value: Any) -> bool:
        if isinstance(value, str):
            return TODO in value
        if isinstance(value, dict):
            return any(has_todo(v) for v in value.values())
        if isinstance(value, list):
            return any(has_todo(v) for v in value)
        return False

    if not isinstance(doc, dict):
        return []
    return [(k, "still holds a TODO from `vlkb kb new`", props.get(k, {}).get("hint", ""))
            for k, v in doc.items() if has_todo(v)]
