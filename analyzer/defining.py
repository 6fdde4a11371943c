"""The token that decides which failure a message is, whatever else it shares with another.

`failed (exitcode: -8)` and `failed (exitcode: -9)` are the same line to fuzzy similarity and TF-IDF
(numbers are masked), but SIGFPE and a host OOM kill are different failures. Likewise a state dict
whose tensors are ZeRO-3's empty placeholders (`torch.Size([0])`) and one of another vocabulary size,
or `ImportError` and `KeyError` under similar words, or a type check between a GPU tensor and a CPU one
(devices) and one between two GPU tensors (dtypes). Each kind of token is read from the incident and
from an entry's canonical messages; where both state tokens of a kind and none agree, similarity
alone must not name the entry: only its regex can (analyzer/match.py).
"""
from __future__ import annotations

from . import rx

SIGNALS = {"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "IOT": 6, "BUS": 7, "FPE": 8,
           "KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15}
# what a shell, libc or the kernel prints for a signal, without its number
_ZSH = r"^(?:zsh: |\[\d{1,4}\] {1,8}[+-]? {0,8}\d{1,9} {1,8})"  # zsh's foreground notice, or its job table
_SIGNAL_WORDS = [(rx.compile(r"Segmentation fault"), 11), (rx.compile(r"Bus error"), 7),
                 # torch's DataLoader names a dead worker's signal by strsignal(): "killed by signal: Terminated"
                 (rx.compile(r"killed by signal: Terminated"), 15), (rx.compile(r"killed by signal: Killed"), 9),
                 (rx.compile(r"Floating point exception"), 8), (rx.compile(r"\bKilled\s*$"), 9),
                 # bash's and glibc's notices in a zh_CN locale
                 (rx.compile(r"段错误"), 11), (rx.compile(r"已放弃"), 6), (rx.compile(r"总线错误"), 7),
                 (rx.compile(r"非法指令"), 4), (rx.compile(r"浮点数例外"), 8), (rx.compile(r"已终止"), 15),
                 (rx.compile(r"已杀死"), 9),
                 # zsh's job notices, macOS's "Killed: 9", SLURM's memory-limit kill
                 (rx.compile(_ZSH + r"killed |^Killed: 9\s*$|exceeded memory limit .{0,120}being killed"
                             r"|killed due to memory pressure \(OOM\)"), 9),
                 # in the foreground ("zsh: bus error  python3 x.py") or in its job table ("[1]    15017 bus error
                 # python3 train_gpt2.py"); IOT is SIGABRT's other name, trace trap SIGTRAP's
                 (rx.compile(_ZSH + r"(?:abort|IOT instruction) "), 6), (rx.compile(_ZSH + r"segmentation fault "), 11),
                 (rx.compile(_ZSH + r"bus error "), 7), (rx.compile(_ZSH + r"illegal hardware instruction "), 4),
                 (rx.compile(_ZSH + r"floating point exception "), 8), (rx.compile(_ZSH + r"trace trap "), 5),
                 # bash's job notices ("./run.sh: line 171: 14815 Terminated  python3 ...", "[1]+  Terminated  ...")
                 (rx.compile(r"^(?:\S+: line \d+: +\d+ +|\[\d+\][+-]? +)Terminated\b"), 15),
                 # the shell's notice, glibc's, and std::terminate, which aborts (the NCCL watchdog's way out)
                 (rx.compile(r"^(?:\S+: line \d+: +\d+ +)?Aborted\b|\bAborted \(core dumped\)|^Fatal Python error: Aborted"
                             r"|terminate called after throwing"), 6),
                 # CPython's fatal_error() aborts, unless faulthandler is naming the signal that killed it
                 (rx.compile(r"Fatal Python error: (?!Segmentation fault|Bus error|Floating point exception"
                             r"|Illegal instruction|Aborted)\w"), 6)]
_SIGNAL_NUM = rx.compile(r"(?:exitcode\s*:\s*|return code = |exit status |exit code )-(\d{1,2})\b|Signal (\d{1,2}) \(SIG"
                         r"|got signal: (\d{1,2})\b")  # torchrun's SignalException
_SIGNAL_NAME = rx.compile(r"\bSIG([A-Z]{3,4})\b")
_SHAPE = rx.compile(r"torch\.Size\(\[([\d, ]{0,80})\]\)")
# the two tensor types a type check compares ("Input type (torch.cuda.HalfTensor) and weight type
# (torch.FloatTensor)", torch 1.x "but type CUDAFloatType does not equal torch.cuda.HalfTensor"): both
# on the GPU or both off it, their dtypes differ; one on it, their devices do
_TYPE_PAIR = rx.compile(r"Input type \(([\w.:]{1,60})\) and (?:weight|bias) type \(([\w.:]{1,60})\)"
                        r"|but type ([\w.:]{1,60}) does not equal ([\w.:]{1,60})")
# Python's own exception types, grouped where one is a subclass the other is printed for; a library's
# type (torch.OutOfMemoryError, a RuntimeError wrapper) is never a reason to disagree
_BUILTIN = {"TypeError": "TypeError", "AttributeError": "AttributeError", "ImportError": "ImportError",
            "ModuleNotFoundError": "ImportError", "KeyError": "KeyError", "IndexError": "IndexError",
            "ValueError": "ValueError", "AssertionError": "AssertionError", "FileNotFoundError": "OSError",
            "OSError": "OSError", "NotImplementedError": "NotImplementedError", "NameError": "NameError",
            "ZeroDivisionError": "ZeroDivisionError", "RecursionError": "RecursionError",
            "UnicodeDecodeError": "UnicodeError", "JSONDecodeError": "ValueError"}
_EXC = rx.compile(r"^(?:[A-Za-z_]\w*\.)*([A-Z]\w*): ")


def tokens(text: str, exception: str | None = None) -> dict[str, frozenset]:
    """Kind -> the defining tokens `text` states: `signal` (numbers), `shape` (empty | sized),
    `placement` (same device | two devices), `exception` (a builtin type's group)."""
    out: dict[str, frozenset] = {}
    sig = signals(text)
    if sig:
        out["signal"] = frozenset(sig)
    shapes = _SHAPE.findall(text)
    if shapes:
        out["shape"] = frozenset({"empty" if any(s.strip() == "0" for s in shapes) else "sized"})
    placement = set()
    for m in _TYPE_PAIR.finditer(text):
        a, b = m.group(1, 2) if m.group(1) else m.group(3, 4)
        placement.add("same device" if ("cuda" in a.lower()) == ("cuda" in b.lower()) else "two devices")
    if placement:
        out["placement"] = frozenset(placement)
    if exception is None:
        m = _EXC.match(text)
        exception = m.group(1) if m else None
    group = _BUILTIN.get((exception or "").rsplit(".", 1)[-1])
    if group:
        out["exception"] = frozenset({group})
    return out


def signals(text: str) -> frozenset[int]:
    """The signal numbers `text` says a process died of: `exitcode: -7`, `SIGBUS`, `Bus error`, ..."""
    sig = {int(next(filter(None, groups))) for groups in _SIGNAL_NUM.findall(text)}
    sig |= {SIGNALS[n] for n in _SIGNAL_NAME.findall(text) if n in SIGNALS}
    sig |= {num for pattern, num in _SIGNAL_WORDS if pattern.search(text)}
    return frozenset(sig)


def union(many: list[dict[str, frozenset]]) -> dict[str, frozenset]:
    out: dict[str, set] = {}
    for toks in many:
        for kind, values in toks.items():
            out.setdefault(kind, set()).update(values)
    return {k: frozenset(v) for k, v in out.items()}


def conflict(incident: dict[str, frozenset], entry: dict[str, frozenset]) -> str | None:
    """The first kind on which both state tokens and none agree, e.g. "signal 8 vs 9", else None."""
    for kind, mine in incident.items():
        theirs = entry.get(kind)
        if theirs and not mine & theirs:
            return f"{kind} {','.join(map(str, sorted(mine)))} vs {','.join(map(str, sorted(theirs)))}"
    return None
