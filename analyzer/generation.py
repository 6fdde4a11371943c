"""Generated text that degenerated: a fine-tuned model that repeats itself instead of answering.

A run can finish cleanly and still leave a model that loops: the same sentence line after line
("1. Alpacas are from South America." / "2. Alpacas are from South America." ...), a question and
answer block again and again, end-of-turn tokens emitted without end (`<|im_start|><|im_end|>` on
every line), or one word over and over on a line. Users paste that output when they ask why, and
it is the only trace of the failure: vlkb reads it from the end of the log (the last TAIL_LINES
lines of each input, as progress.py does) and states what repeats, for a silent entry to name.

Log output repeats too (a warning from every rank, a progress bar, a table rule, a tensor of nans),
so only lines that read as generated text count: prose or special tokens, never a line with a log's
marks (a timestamp, a level, a path, a key=value, a step counter). Every check is linear in the line.
"""
from __future__ import annotations

from . import rx
from .model import Line
from .progress import last_lines
from .textnorm import clean

REPEAT_LINES = 10  # one generated line this many times running (a warning from each of 8 ranks is 8)
REPEAT_BLOCKS = 4  # a block of 2..MAX_PERIOD lines this many times running
MAX_PERIOD = 8
REPEAT_UNITS = 10  # one unit (a word, a token, a few characters) this many times running on one line
MAX_UNIT = 8  # characters of a unit repeated without spaces
REPEAT_CHARS = 40  # one character this many times running, a word of its own
SCAN_CHARS = 4096  # of a line, the head that is read
GENERATED = "the generated text repeats"  # how every statement begins

# the marks of a log line, never of a model's answer (a warning printed per generated sample,
# "Setting `pad_token_id` to `eos_token_id`:2 for open-end generation.", repeats as often as a loop, and
# one printed by every rank, "You are using a model of type llava to instantiate a model of type
# llava_llama. ...", as often as there are ranks)
_HEADER = (r"\d{1,2}:\d{2}:\d{2}|\b(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL|FATAL)\b|[Ww]arn(?:ing|\()|Error\b"
           # a native library's message with its status ("!!!! kernel execution error. (m: 768, n: 1, k: 256,
           # error: 13)", DeepSpeed's cuBLAS wrapper once per GEMM of every layer)
           r"|\berror: ?\d|Exception\b|Traceback|File \"|it/s\b|s/it\b|%\||\[rank")
# a whole line of repeats needs all the marks; a word repeated ten times along a line (an API's JSON
# answer whose text loops) only the marks of a logger's line, a trace or a bar
_LOG_HEADER = rx.compile(_HEADER)
_LOGLIKE = rx.compile(
    _HEADER + r"|\bline \d|\brank\s?\d|(?:^|[\s'\"(])(?:~|\.{1,2})?/[\w.-]{1,80}/"
    r"|[A-Za-z]:\\|\w=|\bstep\b|\b[Ee]poch\b|\bloss\b|\d{1,12}/\d{1,12}|\[[\d:, -]{4,}\]|^\s*[\[{(]?\s*$"
    r"|\b[A-Za-z]{1,40}_\w{1,40}")  # a library's message naming an argument or a type: "`pad_token_id`", "llava_llama"
_SPECIAL = rx.compile(r"<\|[\w-]{1,30}\|>|</?s>|<(?:unk|pad|eos|bos|mask|sep|cls)>|\[(?:PAD|UNK|SEP|CLS|MASK)\]")
_WORD = rx.compile(r"[^\W\d_]{2,}")
_CJK = rx.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_LIST_MARK = rx.compile(r"^\s*(?:\d{1,4}[.)]|[-*\u2022]|\\item)\s+")
# words a number dump is made of: "nan, nan", "tensor(0.)", "None None", "0x7f 0x7f"
_DUMP_WORDS = rx.compile(r"(?i)^(?:nan|inf|none|null|true|false|tensor|dtype|float\d*|int\d*|e|x|0x[0-9a-f]+)$")


def _key(text: str) -> str:
    return " ".join(_LIST_MARK.sub("", text).split())


def _quoted(text: str, most: int) -> str:
    """Log text for a statement's quotes: double quotes become single, so the quotes stay the statement's."""
    return text[:most].replace('"', "'")


def _loglike(text: str) -> bool:
    """Whether the line has a mark of a log; special tokens (`<|im_end|>`) are not marks."""
    rest = _SPECIAL.sub(" ", text)
    return bool(rest.strip()) and _LOGLIKE.search(rest) is not None


def _generated(text: str) -> bool:
    """Whether a line reads as a model's output: prose or special tokens, with no mark of a log."""
    if _loglike(text):
        return False
    if _SPECIAL.search(text) and not _SPECIAL.sub("", text).strip(" \t|.,"):
        return True  # special tokens alone: an end-of-turn the model never stops at
    return len(_WORD.findall(text)) >= 3 or len(_CJK.findall(text)) >= 4


# the characters of rules, bars, arrows and empty containers: a unit made of these alone is layout
_RULE_CHARS = set("-=_*#.~+|/\\^<>()[]{}'\"`,; \t") | {chr(c) for c in range(0x2500, 0x25a0)}


def _unit_ok(unit: str) -> bool:
    """A repeated unit that is text, not a rule (`=====`), a bar or a number dump; or punctuation that
    is not layout (`{: {: {:`, a policy collapsed to one token pair)."""
    if _SPECIAL.search(unit) and not _SPECIAL.sub("", unit).strip():
        return True
    words = _WORD.findall(unit) or _CJK.findall(unit)
    if not words:
        return not any(ch.isalnum() for ch in unit) and bool(set(unit) - _RULE_CHARS) and len(set(unit.strip())) > 1
    return not all(_DUMP_WORDS.match(w) for w in words)


# one word or a pair of words, then the same again at least REPEAT_UNITS - 1 times (on a line whose
# spaces are normalised); a unit of 2-8 characters repeated with nothing between (`<unk><unk>`, `好的好的`)
_WORDS_RUN = rx.compile(r"(?<!\S)(\S{1,40}(?: \S{1,40})?)(?: \1(?!\S)){%d,}" % (REPEAT_UNITS - 1))
_CHARS_RUN = rx.compile(r"(\S{2,%d}?)\1{%d,}" % (MAX_UNIT, REPEAT_UNITS - 1))
# one character REPEAT_CHARS times and more, a word of its own: a letter of any script, or the marks a
# collapsed model emits (`<think>!!!!!!...`, `,,,,,,...`, `MMMMMM...`, `好好好...`). Digits (`0.99999`),
# rule characters and `?` (what a console that cannot encode the text prints for each character) are
# not text; a letter inside a longer word (`AAAA` in base64) is not its own word.
_CHAR_RUN = rx.compile(r"(?<![^\W_])([^\W\d_]|[!,;，。！、])\1{%d,}(?![^\W_])" % (REPEAT_CHARS - 1))


def _repeated(text: str) -> tuple[str, int] | None:
    """The longest run on the line of one unit repeated (`_WORDS_RUN`, `_CHARS_RUN`) whose words are
    text (`_unit_ok`), with its count. Python's regex engine tries at most a few dozen unit lengths at
    each position, each failing at its first differing character: linear in the line."""
    best: tuple[str, int] | None = None
    spaced = " ".join(text.split())
    for m in _WORDS_RUN.finditer(spaced):
        unit = m.group(1)
        count = (len(m.group(0)) + 1) // (len(unit) + 1)
        if (best is None or count > best[1]) and _unit_ok(unit):
            best = (unit, count)
    for m in _CHARS_RUN.finditer(text):
        unit = m.group(1)
        count = len(m.group(0)) // len(unit)
        if (best is None or count > best[1]) and len(set(unit)) > 1 and _unit_ok(unit):
            best = (unit, count)
    run = _char_run(text)
    return run if run and (best is None or run[1] > best[1]) else best


def _char_run(text: str) -> tuple[str, int] | None:
    """The longest run on the line of one character (`_CHAR_RUN`), with its count."""
    runs = [(m.group(1), len(m.group(0))) for m in _CHAR_RUN.finditer(text)]
    return max(runs, key=lambda r: r[1]) if runs else None


def degenerate(tail: bytes, path: str, last_lineno: int) -> tuple[Line, str] | None:
    """The last place where the end of one input (`tail`, whose last line is `last_lineno`) shows
    generated text looping, with a statement of what repeats; None when it shows none."""
    cleaned = [clean(raw) for raw in last_lines(tail)]
    first = last_lineno - len(cleaned) + 1
    rows = [(first + i, c) for i, c in enumerate(cleaned) if c.text.strip()]
    keys = [_key(c.text[:SCAN_CHARS]) for _, c in rows]
    # a line a rank or a host prefixed is a process's log line, whatever it says
    bare = [c.rank is None and c.host is None for _, c in rows]
    gen = [b and _generated(c.text[:SCAN_CHARS]) for b, (_, c) in zip(bare, rows)]
    found = None
    for period in range(1, MAX_PERIOD + 1):
        need = REPEAT_LINES if period == 1 else REPEAT_BLOCKS
        run = 0
        for i in range(period, len(keys)):
            run = run + 1 if keys[i] == keys[i - period] else 0
            repeats = run // period + 1
            block = range(i - period + 1, i + 1)
            if repeats >= need and sum(gen[j] for j in block) >= min(period, 2) \
                    and all(gen[j] or (bare[j] and not _loglike(keys[j])) for j in block):
                if period > 1 and len({keys[j] for j in block}) < period:
                    continue  # a block that is one line repeated is the line rule's
                if found is None or rows[i][0] > found[0].lineno:
                    what = f"the line \"{_quoted(keys[i], 80)}\"" if period == 1 else f"a block of {period} lines"
                    found = (Line(path, rows[i][0], rows[i][1].text, rows[i][1].rank, rows[i][1].host),
                             f"{GENERATED} {what} {repeats} times running")
    for (lineno, c), is_bare in zip(rows, bare):
        head = c.text[:SCAN_CHARS]
        if c.rank is not None or _LOG_HEADER.search(head):
            continue
        # a Ray actor prefixes what it prints, generated samples too (verl's "(main_task pid=9648) <think>!!!!"):
        # there only a run of one character, text no log line is made of, is read
        hit = _repeated(head) if is_bare else _char_run(head)
        if hit and (found is None or lineno > found[0].lineno):
            found = (Line(path, lineno, c.text, c.rank, c.host),
                     f"{GENERATED} \"{_quoted(hit[0], 40)}\" {hit[1]} times running on one line")
    return found
