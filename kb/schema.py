"""Validate a KB entry's YAML with messages that name the file, the key and the fix (STYLE.md 8)."""
from __future__ import annotations

import re
from typing import Any

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
URL_RE = re.compile(r"^https://\S+$")

# key -> (required, type, what to write)
FIELDS: dict[str, tuple[bool, type | tuple, str]] = {
    "id": (True, str, "a kebab-case name of the failure, e.g. zero-grad-reduced-twice"),
    "family": (False, str, "the family id this entry refines (defaults to id)"),
    "title": (True, str, "one line naming the failure"),
    "symptom": (True, str, "what the user sees in the log"),
    "root_cause": (True, str, "why it happens"),
    "fix": (True, str, "Markdown: the exact config key or code line to change"),
    "patterns": (True, list, "a list of {regex, weight, note}; regexes anchored with ^"),
    "messages": (True, list, "canonical error texts, verbatim from real logs"),
    "triggers": (False, list, "plain phrases that make a line an incident on their own"),
    "frames": (False, list, "telling frames: 'file.py:function' or 'function'"),
    "context": (False, list, "a list of {regex, weight, note} hints found elsewhere in the log"),
    "frameworks": (True, list, "frameworks where it is seen: deepspeed, ms-swift, ..."),
    "sources": (True, list, "a list of {url, title}: public reports of this failure"),
    "verify": (True, dict, "{repro: name} or {none: reason}"),
}


class EntryError(ValueError):
    """A KB entry that cannot be used; str() is the message for the user."""


def validate(doc: Any, path: str) -> dict:
    def fail(key: str, problem: str) -> None:
        hint = FIELDS[key][2] if key in FIELDS else "remove it"
        raise EntryError(f"{path}: key '{key}': {problem}; expected {hint}")

    if not isinstance(doc, dict):
        raise EntryError(f"{path}: the file must hold one mapping (key: value), found {type(doc).__name__}")
    for key in doc:
        if key not in FIELDS:
            fail(key, "unknown key")
    for key, (required, typ, _) in FIELDS.items():
        if key not in doc:
            if required:
                fail(key, "missing")
            continue
        if not isinstance(doc[key], typ):
            fail(key, f"is a {type(doc[key]).__name__}")
    if not ID_RE.match(doc["id"]):
        fail("id", f"'{doc['id']}' is not kebab-case")
    if "family" in doc and not ID_RE.match(doc["family"]):
        fail("family", f"'{doc['family']}' is not kebab-case")
    for key in ("patterns", "context"):
        for i, item in enumerate(doc.get(key, [])):
            _check_rule(item, f"{key}[{i}]", fail, anchored=key == "patterns")
    if not doc["patterns"]:
        fail("patterns", "is empty")
    if not doc["sources"]:
        fail("sources", "is empty")
    for i, src in enumerate(doc["sources"]):
        if not isinstance(src, dict) or not URL_RE.match(str(src.get("url", ""))):
            fail("sources", f"item {i} has no https url")
    for key in ("messages", "triggers", "frames", "frameworks"):
        if any(not isinstance(x, str) or not x.strip() for x in doc.get(key, [])):
            fail(key, "holds an empty or non-text item")
    v = doc["verify"]
    if not (isinstance(v.get("repro"), str) or isinstance(v.get("none"), str)):
        fail("verify", "has neither 'repro' nor 'none'")
    return doc


def _check_rule(item: Any, where: str, fail, anchored: bool) -> None:
    key = where.split("[")[0]
    if not isinstance(item, dict) or "regex" not in item:
        fail(key, f"{where} is not a mapping with a 'regex'")
    try:
        re.compile(item["regex"])
    except re.error as err:
        fail(key, f"{where} regex does not compile ({err})")
    if anchored and not item["regex"].startswith("^"):
        fail(key, f"{where} regex is not anchored with ^")
    w = item.get("weight", 1.0)
    if not isinstance(w, (int, float)) or not 0 < w <= 1:
        fail(key, f"{where} weight {w!r} is not in (0, 1]")
