"""Which training framework ran, and a fix told in its terms first.

The framework is read from what the log shows of its code: the files of the frames in its tracebacks
(`.../llamafactory/train/sft/workflow.py`, `.../swift/llm/train/sft.py`, `.../trl/trainer/sft_trainer.py`)
and, failing those, the framework's own version line (`llamafactory-cli env`). The framework the user
launched is the most specific one on the stack: LLaMA-Factory runs transformers' Trainer, which runs
accelerate and DeepSpeed, so LLaMA-Factory's frames decide.

A KB fix lists the change per framework as bullets labelled with the framework's name
(`- LLaMA-Factory (YAML): ...`, `- HF Trainer / TRL: ...`). `split_fix` puts the run's bullets first and
folds the bullets of the other frameworks, so a user reads their own config key first.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import rx
from .model import Incident, Line


@dataclass(frozen=True)
class Framework:
    id: str  # the run fact's value
    frame: re.Pattern  # a frame file of its own code
    label: re.Pattern  # a fix bullet's label naming it


def _fw(id_: str, frame: str, label: str) -> Framework:
    return Framework(id_, rx.compile(frame), rx.compile(label, re.I))


# the most specific first: a framework higher in the list runs the ones below it
FRAMEWORKS = [
    _fw("llamafactory", r"[/\\](?:llamafactory|llmtuner)[/\\]", r"llama-?factory|llmtuner"),
    _fw("ms-swift", r"[/\\]swift[/\\](?:llm|trainers|megatron|cli|plugin|tuners)[/\\]", r"\bms-swift\b|\bswift\b"),
    _fw("axolotl", r"[/\\]axolotl[/\\]", r"\baxolotl\b"),
    _fw("unsloth", r"[/\\]unsloth(?:_zoo|_compiled_cache)?[/\\]", r"\bunsloth\b"),
    _fw("verl", r"[/\\]verl[/\\]", r"\bverl\b"),
    _fw("openrlhf", r"[/\\]openrlhf[/\\]", r"\bOpenRLHF\b"),
    _fw("llava", r"[/\\]llava[/\\]", r"\bLLaVA\b"),
    _fw("colossalai", r"[/\\]colossalai[/\\]", r"\bColossal-?AI\b"),
    _fw("lightning", r"[/\\](?:pytorch_)?lightning[/\\]", r"\bLightning\b"),
    _fw("trl", r"[/\\]trl[/\\]", r"\bTRL\b"),
    _fw("hf-trainer", r"[/\\]transformers[/\\]trainer(?:_\w+)?\.py$", r"\bHF Trainer\b|\bTrainingArguments\b|\btransformers Trainer\b"),
    _fw("accelerate", r"[/\\]accelerate[/\\]", r"\baccelerate\b"),
    _fw("deepspeed", r"[/\\]deepspeed[/\\]", r"\bDeepSpeed\b"),
]
BY_ID = {f.id: f for f in FRAMEWORKS}
# the command that started the run (facts.py "launcher": its CLI or the module run with -m)
_BY_LAUNCHER = {"swift": "ms-swift", "llamafactory-cli": "llamafactory", "llamafactory": "llamafactory",
                "axolotl": "axolotl", "verl": "verl", "openrlhf": "openrlhf"}
# a framework's own version line names it when no frame does ("- LLaMA-Factory version: 0.9.1")
_BY_VERSION = {"version.llamafactory": "llamafactory", "version.ms_swift": "ms-swift", "version.axolotl": "axolotl",
               "version.verl": "verl", "version.openrlhf": "openrlhf"}


def detect(incidents: list[Incident], run: dict) -> list[tuple[str, Line]]:
    """The frameworks the log shows running, the most specific first, each with a line that shows it:
    those among the frames of every incident and the one whose command started the run; else a
    framework's own version line."""
    found: dict[str, Line] = {}
    for inc in incidents:
        for frame in inc.frames:
            for fw in FRAMEWORKS:
                if fw.id not in found and fw.frame.search(frame.file):
                    found[fw.id] = inc.first
    launched = run.get("launcher")
    if launched is not None and launched.value in _BY_LAUNCHER:
        found.setdefault(_BY_LAUNCHER[launched.value], launched.line)
    if not found:
        for key, fid in _BY_VERSION.items():
            fact = run.get(key)
            if fact is not None:
                found.setdefault(fid, fact.line)
    return [(fw.id, found[fw.id]) for fw in FRAMEWORKS if fw.id in found]


# a top-level bullet's label: "- LLaMA-Factory (YAML): ...", "- **ms-swift**: ...", "* HF Trainer / TRL: ..."
# a bullet's label: its bold part (which may hold a colon: "**plain PyTorch (`env://`)**:"), or the
# text before its first colon
_BULLET = rx.compile(r"^[-*] +(?:\*\*(?P<label>[^*\n]{1,120}?)\*\*:|(?:\*\*)?(?P<plain>[^:*\n]{1,80}?)(?:\*\*)?:)")


def _label(m: re.Match) -> str:
    """The label, without a code span the colon cut open ("unsloth `Error: More than 1 GPUs ...`")."""
    label = m.group("label") or m.group("plain")
    return label[:label.index("`")].rstrip() if label.count("`") % 2 else label


@dataclass
class SplitFix:
    text: str  # the fix, the run's framework's bullets first, the other frameworks' bullets taken out
    others: list[str]  # the bullets taken out, each whole (Markdown)
    other_names: list[str]  # their labels, for a one-line fold


def split_fix(fix: str, frameworks: list[str]) -> SplitFix:
    """Reorder each bullet list of `fix` for the first of `frameworks` (most specific first) that a bullet
    names. Unchanged when none does: a fix never loses the line for the user's framework."""
    blocks = _blocks(fix)
    fw = next((BY_ID[f] for f in frameworks if f in BY_ID
               and any(kind == "bullet" and _names(text, BY_ID[f]) for kind, text in blocks)), None)
    if fw is None:
        return SplitFix(fix, [], [])
    out: list[str] = []
    others: list[str] = []
    names: list[str] = []
    mine: list[str] = []  # the current list's bullets for the run's framework
    generic: list[str] = []  # and those naming no framework, in order
    loose = False  # the list's items are separated by blank lines

    def flush():
        items = mine + generic
        out.append(("\n" if loose else "").join(items))
        mine.clear()
        generic.clear()

    for kind, text in blocks:
        if kind == "text" and not text.strip() and (mine or generic or others):
            loose = True  # a blank line between two items of one list
            continue
        if kind != "bullet":
            flush()
            loose = False
            out.append(text)
            continue
        label = _BULLET.match(text)
        if _names(text, fw):
            mine.append(text)
        elif label and (any(_about(_label(label), f) for f in FRAMEWORKS)
                        or re.match(r"plain PyTorch\b", _label(label), re.I)):
            others.append(text)
            names.append(_label(label).strip())
        else:
            generic.append(text)
    flush()
    return SplitFix("".join(out), others, names)


def _subjects(label: str) -> list[str]:
    """The names a bullet's label is about: "HF Trainer / TRL" -> both; "The module is the project's own
    package (e.g. `llava.model`)" -> none that starts with a framework's name."""
    return [part.strip("*` ") for part in re.split(r"\s*(?:/|,|\band\b)\s*", label)]


def _about(label: str, fw: Framework) -> bool:
    return any(fw.label.match(part) for part in _subjects(label))


def _names(bullet: str, fw: Framework) -> bool:
    m = _BULLET.match(bullet)
    return bool(m and _about(_label(m), fw))


def _blocks(fix: str) -> list[tuple[str, str]]:
    """("bullet" | "text", the lines with their newlines): a bullet runs until the next line that starts
    at column 0 and is not blank."""
    blocks: list[tuple[str, str]] = []
    for line in fix.splitlines(keepends=True):
        starts = line[:1] not in (" ", "\t", "\n", "\r", "")
        if re.match(r"[-*] ", line):
            blocks.append(("bullet", line))
        elif blocks and blocks[-1][0] == "bullet" and not starts:
            blocks[-1] = ("bullet", blocks[-1][1] + line)
        elif blocks and blocks[-1][0] == "text":
            blocks[-1] = ("text", blocks[-1][1] + line)
        else:
            blocks.append(("text", line))
    return _trailing_blank_lines_out(blocks)


def _trailing_blank_lines_out(blocks: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A bullet swallows the blank line after it; give it back to what follows, so moving the bullet
    keeps the paragraph breaks where they were."""
    out: list[tuple[str, str]] = []
    for kind, text in blocks:
        if kind == "bullet":
            body = text.rstrip("\n")
            tail = text[len(body):]
            out.append((kind, body + "\n"))
            if len(tail) > 1:
                out.append(("text", tail[1:]))
        else:
            out.append((kind, text))
    merged: list[tuple[str, str]] = []
    for kind, text in out:
        if merged and kind == "text" and merged[-1][0] == "text":
            merged[-1] = ("text", merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return merged
