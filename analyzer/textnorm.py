"""Turn one raw log line into clean text plus the rank that printed it.

Launchers decorate every line differently; the parser wants the text the Python process wrote.
Order matters: strip terminal noise (ANSI, carriage-return redraws), then the CI timestamp, then the
rank prefixes, which may nest (``node-1: [rank3]: ...`` from pdsh around torchrun).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import rx
from .memo import MAX_KEY_LEN
from .model import who_label

# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) and lone escapes.
_ANSI = rx.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]"
                   r"|#033\[[0-?]{0,20}[ -/]{0,4}[@-~]")  # syslog writes ESC as "#033" (journald/rsyslog exports)
# a colour code whose ESC byte a paste lost (GitHub shows "[1;36m(EngineCore_0 pid=399)[0;0m ERROR ..." for
# vLLM's and Ray's coloured process prefixes): read as one only on a line that begins with one
_SGR_REMNANT = rx.compile(r"\[(?:\d{1,3};){0,4}\d{1,3}m")
# Log text is untrusted and must not reach a terminal raw: C0 controls (tab and newline kept) and DEL,
# and C1 controls, U+0080-U+009F, which some terminals obey in UTF-8 too (U+009B is CSI, U+009D
# OSC): a log line must not move the cursor or set the window's title.
_C0 = r"\x00-\x08\x0b-\x1f\x7f"
CONTROL_C0 = f"[{_C0}]"
CONTROL = rx.compile(f"[{_C0}\\x80-\\x9f]")
# GitHub Actions prefixes every line with an ISO timestamp in UTC; cloud log exports put a tab after it or give
# an offset; Buildkite's web view brackets it ("[2024-08-09T08:48:57Z] ERROR 08-09 08:48:57 ..."); a Kubernetes
# node's container log file (CRI, the kubelet's kuberuntime/logs) puts "<stdout|stderr> <F|P>" after it.
_GHA_TS = rx.compile(r"^\[?(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))\]?"
                     r"(?: std(?:out|err) [FP](?= ))?[ \t]")
# What wraps a pasted or collected log line before the program's own text, stripped wherever it nests.
# A Markdown quote of the paste ("> ", "> > "):
_QUOTE = rx.compile(r"^(?:>[ \t]?)+")
# A logger's time stamp, kept as the line's time: Python logging's "2024-05-01 10:00:00,123 - ERROR - ",
# a bracketed "[2024-05-01 10:00:00] " (DeepSpeed, many scripts), transformers' example scripts'
# "08/01/2023 16:20:22 - INFO - __main__ - ":
_LOG_TS = rx.compile(r"^\[?(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?)\]?(?: - [A-Z]{4,8} -)? "
                     r"|^(\d\d/\d\d/\d{4} \d\d:\d\d:\d\d) - [A-Z]{4,8} - [\w.]{1,100} - ")
# A code viewer's line number ("  42 | "), and Kaggle's log export: the seconds since the kernel started and
# the line's number, tab-separated ("447.5s\t314\tGPU = Tesla P100-PCIE-16GB.", "_447.3s\t313\t"). An editor's
# gutter without a bar, or a bar without a number (Buildkite's web view: "  | File ..."), read off only before
# what a traceback prints (its header, a frame, an indented source line, an exception), so a number that starts
# a log line is never taken for one ("  3   File \"<frozen runpy>\", line 198, in ...", axolotl-ai-cloud/axolotl#1597).
_LINENO = rx.compile(r"^ {0,6}\d{1,7} \| |^_?\d{1,7}(?:\.\d{1,3})?s\t\d{1,7}\t"
                     r"|^ {0,6}(?:\d{1,6}|\|) (?= {0,5}File \"| {2,}\S| {0,3}Traceback \(most|[A-Za-z_][\w.]{0,100}(?:Error|Exception)\b)")
# A frame line as a job-log viewer escapes it CSV-style (lm-sys/FastChat#1100: '[INFO] [Driver] File
# ""/home/u/train.py"", line 13, in <module>"'): the quotes are doubled and a stray one ends the line.
_CSV_FRAME = rx.compile(r'File ""([^"]{1,4000})"", line (\d{1,7})([^"]{0,400})"?$')
# These name where the line came from, taken as the host: docker compose's service column
# ("trainer-1  | ", "trainer_1  | "), kubectl logs --prefix ("[pod/train-worker-0/pytorch] "), and
# Ray's per-process prefix on a worker's or actor's output (verl, OpenRLHF, ray.train):
# "(WorkerDict pid=2345, ip=10.0.0.3) ", "(TaskRunner pid=88) ", "(raylet) ", and SkyPilot's per-node
# prefix in the same shape ("(worker1, rank=1, pid=22249, ip=10.31.0.9) ", skypilot-org/skypilot#2355).
_COMPOSE = rx.compile(r"^([A-Za-z][\w.-]{0,63}[-_]\d{1,3}) {1,12}\| ")
_KUBECTL = rx.compile(r"^\[pod/([^/\]\s]{1,253})/[^\]\s]{1,253}\] ")
# vLLM's logger ("ERROR 09-11 06:29:59 [core.py:702] ", before 0.6 "INFO 12-08 08:57:50 llm_engine.py:73] "),
# behind which its engine core logs a traceback line by line: read off (its yearless time not kept), except
# on an error record outside a traceback, whose level alone says the run failed ("... fatal error.")
_VLLM_LOG = rx.compile(r"^(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})? "
                       r"\[?[\w.-]{1,100}:\d{1,6}\] ")
_TRACEBACK_PART = rx.compile(r"Traceback \(most recent call last\)|\s|[A-Za-z_][\w.]{0,100}(?:Error|Exception)\b")
_RAY = rx.compile(r"^\((?P<proc>[A-Za-z_][\w.:-]{0,80}(?:, rank=\d{1,6})?(?:,? pid=\d{1,9})?(?:, ip=[\d.:a-f]{3,45})?)\) ")

# Rank prefixes, tried in order at the start of the line. Each yields (host, rank).
#   torchrun --tee / log_line_prefix_template: "[rank3]:"; torchrun --role default: "[default3]:"
_RANK_TORCHRUN = rx.compile(r"\[(?:rank|default)(\d+)\]:[ ]?")
#   a template of the rank alone: "[0]:" (NVIDIA-NeMo/Speech#8460), at the line's start only: inside a line
#   the same shape is a message's own ("In[0]: [2,400]", "python3[40923]: segfault")
_RANK_BARE = rx.compile(r"^\[(\d{1,5})\]:[ ]?")
#   mpirun --tag-output: "[1,3]<stderr>:" (job, rank)
_RANK_MPI = rx.compile(r"^\[\d+,(\d+)\]<std(?:out|err)>:[ ]?")
#   srun --label: "3: " (right-aligned with spaces for wide jobs)
_RANK_SRUN = rx.compile(r"^ {0,3}(\d{1,4}): ")
#   Lightning's rank-prefixed messages: "[rank: 1] "
_RANK_LIGHTNING = rx.compile(r"^\[rank: (\d{1,5})\] ")
#   pdsh (DeepSpeed multi-node launcher): "node-1: ", "worker-0: ", "10.0.0.2: ", "localhost: ".
#   A host name carries a digit or is localhost; exception names ("RuntimeError: ") never do.
#   At most 253 characters (DNS), so that a long run of word characters ("a111...1 Error") costs one
#   bounded try, not a backtrack per character; the digit is checked on the match (_HOST_DIGIT).
_HOST_PDSH = rx.compile(r"^(localhost|\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z][\w.-]{0,252}): ")
_HOST_DIGIT = rx.compile(r"[A-Za-z][\w-]{0,252}?\d")
#   YAML keys that carry a digit are not hosts either ("bf16: true", "fp16: false"); host names
#   have no underscore (RFC 952), config keys usually do ("ds_z3: ...").
#   Ascend CANN error codes ("EH9999: Inner Error!") and gcc's collect2 are not hosts either (its digit read
#   as any digit, as every pattern here reads digits: lines that differ only in digits clean alike).
_NOT_HOSTS = rx.compile(r"(?:Error|Exception|Warning|rank|step|epoch|_|^(?:bf|fp|tf|int|uint)\d+$|^E[A-Z]\d{4}$"
                        r"|^collect\d$)", re.I)  # gcc's linker driver: "collect2: error: ld returned 1 exit status"


@dataclass(frozen=True, slots=True)
class CleanLine:
    text: str
    rank: str | None = None
    host: str | None = None
    timestamp: str | None = None


# bidirectional marks, embeddings, overrides and isolates (Trojan Source), as a character-class body
BIDI = "\u200e\u200f\u202a-\u202e\u2066-\u2069"
# what an output must never carry from a log or a record: control characters (terminal escapes, C1)
# and the bidi controls
UNSAFE = rx.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI + "]")


def strip_terminal(text: str) -> str:
    """Remove ANSI sequences and control characters; keep only the last redraw of a \\r line."""
    if "\x1b" in text or "#033[" in text:
        text = _ANSI.sub("", text)
    if text[:1] == "[" and _SGR_REMNANT.match(text):
        text = _SGR_REMNANT.sub("", text)
    if "\r" in text:
        parts = [p for p in text.split("\r") if p.strip()]
        text = parts[-1] if parts else ""
    # every control character is unprintable: a printable line (nearly all) is not read a second time
    return text if text.isprintable() else CONTROL.sub("", text)


# A traceback flattened into one line with its newlines escaped: a JSON log record ({"log": "..."},
# Kubernetes and cloud log exports), a Ray job's "last available logs", a Python repr of the text.
_FLAT_TRACEBACK = rx.compile(r'Traceback \(most recent call last\):\\n|\\n {1,4}File \\?"')
# a JSON log record whose text field holds several lines (docker's json-file driver, fluentd, Vector)
_JSON_RECORD = rx.compile(r'^\{\s?"(?:log|message|msg|text|textPayload)"\s?:\s?"')
# with three escaped newlines or more, any sign of a failure
_FLAT_ERROR = rx.compile(r"(?i)error|exception|killed|fault|abort|\bnan\b|SIG[A-Z]{3}")
_ESCAPE = rx.compile(r'\\(["\\nt]|u[0-9a-fA-F]{4})')
_UNESCAPE = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def unflatten(text: str) -> list[str]:
    """The lines of a traceback, a JSON log record, or an error report of three lines or more whose
    newlines were escaped into one line, else [text]."""
    if "\\n" not in text or not (_FLAT_TRACEBACK.search(text) or _JSON_RECORD.match(text)
                                  or (text.count("\\n") >= 3 and _FLAT_ERROR.search(text))):
        return [text]
    return _ESCAPE.sub(lambda m: _UNESCAPE.get(m.group(1)) or chr(int(m.group(1)[1:], 16)), text).split("\n")


def split_glued(text: str) -> tuple[str, str]:
    """A tqdm bar redrawn without a newline glues the next rank's line onto it:
    ``  0%|    | 0/930 [00:00<?, ?it/s][rank2]: Traceback ...``. Return (noise, line)."""
    m = _RANK_TORCHRUN.search(text)
    if m and m.start() > 0:
        return text[: m.start()], text[m.start():]
    return "", text


def _vllm_prefix(text: str):
    """vLLM's logger prefix as a match, None on an error record outside a traceback (see _VLLM_LOG)."""
    m = _VLLM_LOG.match(text)
    return None if m and m.group("level")[0] in "EC" and not _TRACEBACK_PART.match(text, m.end()) else m


def clean(raw: str) -> CleanLine:
    """Normalize one decoded line (without its newline)."""
    return clean_spans(raw)[0]


Span = tuple[int, int]


def clean_spans(raw: str) -> tuple[CleanLine, Span | None, Span | None, Span | None, int]:
    """`clean`, with where the rank, the host and the time stamp sit in the text after
    `strip_terminal`, and where the clean text starts in it (-1: the text was rewritten, not cut out).
    Every prefix pattern tells digits from other characters but never one digit from another, so two
    lines that differ only in their digits clean alike and hold these parts at the same places."""
    text = strip_terminal(raw.rstrip("\r\n"))
    ts = ts_span = None
    at = 0  # characters of the stripped line consumed so far
    m = _GHA_TS.match(text)
    if m:
        ts, ts_span, text, at = m.group(1), m.span(1), text[m.end():], m.end()
    host = rank = host_span = rank_span = None
    for _ in range(5):  # prefixes nest at most this deep in practice
        m = _QUOTE.match(text) or _LINENO.match(text) or _vllm_prefix(text)
        if m and m.end():
            text, at = text[m.end():], at + m.end()
            continue
        if ts is None:
            m = _GHA_TS.match(text) or _LOG_TS.match(text)
            if m:
                g = 1 if m.group(1) else 2
                ts, ts_span = m.group(g), (at + m.start(g), at + m.end(g))
                text, at = text[m.end():], at + m.end()
                continue
        if host is None:
            m = _COMPOSE.match(text) or _KUBECTL.match(text) or _RAY.match(text)
            if m:
                host, host_span, text, at = m.group(1), (at + m.start(1), at + m.end(1)), text[m.end():], at + m.end()
                continue
        else:  # a process inside a Ray actor: vLLM's engine core ("(LLMRayActor pid=1) (EngineCore_DP0 pid=2) ERROR ...")
            m = _RAY.match(text)
            if m:
                text, at = text[m.end():], at + m.end()
                continue
        m = _RANK_TORCHRUN.match(text) or _RANK_MPI.match(text) or _RANK_LIGHTNING.match(text) \
            or (_RANK_BARE.match(text) if at == 0 else None)
        if m:
            rank, rank_span, text, at = m.group(1), (at + m.start(1), at + m.end(1)), text[m.end():], at + m.end()
            continue
        if rank is None:
            m = _RANK_SRUN.match(text)
            if m:
                rank, rank_span, text, at = m.group(1), (at + m.start(1), at + m.end(1)), text[m.end():], at + m.end()
                continue
        if host is None:
            m = _HOST_PDSH.match(text)
            if m and (m.group(1) == "localhost" or m.group(1)[0].isdigit() or _HOST_DIGIT.match(m.group(1))) \
                    and not _NOT_HOSTS.search(m.group(1)):
                host, host_span, text, at = m.group(1), (at + m.start(1), at + m.end(1)), text[m.end():], at + m.end()
                continue
        break
    if 'File ""' in text:  # a traceback a log viewer escaped CSV-style: its quotes doubled, one left at the end
        text, at = _CSV_FRAME.sub(r'File "\1", line \2\3', text), -1
    return CleanLine(text=text, rank=rank, host=host, timestamp=ts), rank_span, host_span, ts_span, at


# ---- canonical text for fuzzy and TF-IDF comparison ------------------------------------------
_CANON_SUBS = [
    (rx.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+@~-]+){2,}[\\/]?"), " PATH "),  # paths, both slashes
    (rx.compile(r"0x[0-9a-fA-F]+"), " HEX "),
    (rx.compile(r"\b[\w]+(?:\.[\w]+){3,}\b"), " DOTTED "),  # parameter names: a.b.c.d.weight
    (rx.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"), " "),  # numbers vanish
    (rx.compile(r"\s+"), " "),
]


DIGIT_RUN = rx.compile(r"\d{2,}")


def template(text: str) -> str:
    """The line with every run of two or more digits masked: the key of per-line work, so a warning
    repeated with new times, steps, pids and values is classified once. Single digits stay, because
    some shapes hang on one (an exit code, a loss scale collapsed to 1, a loss of exactly 0). A line
    longer than a memo key may be (memo.MAX_KEY_LEN) is returned as it is: it is never remembered."""
    return DIGIT_RUN.sub("#", text) if len(text) <= MAX_KEY_LEN else text


def canon(text: str) -> str:
    """Numbers, hex, paths and dotted parameter names removed, whitespace collapsed, lower case."""
    for pattern, repl in _CANON_SUBS:
        text = pattern.sub(repl, text)
    return text.strip().lower()


def who(raw: str) -> str | None:
    """The rank label (as `Line.who` shows it) of one raw log line, None when no prefix names one."""
    c = clean(raw)
    return who_label(c.rank, c.host)
