"""KB conditions on run facts, and advice made concrete with the run's own values.

An entry states what its failure needs (`zero_stage >= 2`, `gradient_checkpointing == true`,
`version.transformers in ">=4.45,<4.47"`). A condition the log confirms adds its weight to the
match's context signal; one the log contradicts subtracts it; an unknown fact leaves it alone.
"""
from __future__ import annotations

import operator
import re
import string
from dataclasses import dataclass, field

from . import rx
from .facts import Fact

_OPS = {"==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
_RANGE = rx.compile(r"^\s*(==|!=|>=|<=|>|<)\s*(\S+)\s*$")


@dataclass(frozen=True)
class Condition:
    fact: str
    op: str  # one of _OPS, or "in" with a version range such as ">=4.45,<4.47"
    value: object
    weight: float = 0.5
    note: str = ""

    def holds(self, facts: dict[str, Fact]) -> bool | None:
        """True or False when the log states the fact, None when it does not."""
        fact = facts.get(self.fact)
        if fact is None:
            return None
        if self.op == "in":
            return all(_compare(fact.value, op, want) for op, want in parse_range(str(self.value)))
        return _compare(fact.value, self.op, self.value)

    def describe(self) -> str:
        value = str(self.value).lower() if isinstance(self.value, bool) else self.value
        return f"{self.fact} {self.op} {value}"


@dataclass(frozen=True)
class Advice:
    when: list[Condition] = field(default_factory=list)
    text: str = ""

    def render(self, facts: dict[str, Fact], captures: dict[str, str] | None = None) -> str | None:
        """The advice with `{key}` filled from the facts (`{version_torch}` for `version.torch`) and
        from the named groups of the entry's pattern that matched (`{module}`), when every condition
        holds and the log gives a value for every placeholder."""
        if not all(c.holds(facts) for c in self.when):
            return None
        values = {k.replace(".", "_"): _show(f.value) for k, f in facts.items()}  # {version_torch}
        values.update(captures or {})
        fields = {name for _, name, _, _ in string.Formatter().parse(self.text) if name}
        if not fields <= values.keys():
            return None
        return self.text.strip().format_map(values)


def _show(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def parse_range(spec: str) -> list[tuple[str, str]]:
    out = []
    for part in spec.split(","):
        m = _RANGE.match(part)
        if not m:
            raise ValueError(f"not a version constraint: {part!r}")
        out.append((m.group(1), m.group(2)))
    return out


def version_key(text: str) -> tuple:
    """"2.4.0+cu124" -> (2, 4, 0); "0.9.1.dev0" -> (0, 9, 1): the release numbers only."""
    nums = []
    for piece in re.split(r"[.+-]", str(text)):
        if not (piece.isascii() and piece.isdigit()):  # "¹" is a digit to str.isdigit, not to int()
            break
        nums.append(int(piece))
    return tuple(nums)


def _compare(actual, op: str, want) -> bool:
    if isinstance(actual, str) and re.match(r"\d", actual):
        a, w = version_key(actual), version_key(want)
        width = max(len(a), len(w))  # 4.45 == 4.45.0
        a, w = a + (0,) * (width - len(a)), w + (0,) * (width - len(w))
        return _OPS[op](a, w)
    if isinstance(actual, bool) or isinstance(want, bool):
        return _OPS[op](bool(actual), bool(want)) if op in ("==", "!=") else False
    if isinstance(actual, str) or isinstance(want, str):
        return _OPS[op](str(actual).lower(), str(want).lower()) if op in ("==", "!=") else False
    return _OPS[op](actual, want)


def settle(conditions: list[Condition], facts: dict[str, Fact]) -> tuple[list, list]:
    """(confirmed, contradicted) among `conditions`; the rest the log does not decide."""
    known = [(c, c.holds(facts)) for c in conditions]
    return [c for c, ok in known if ok is True], [c for c, ok in known if ok is False]
