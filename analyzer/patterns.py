"""The shapes the parser reads records by: a traceback and its frames, an exception line, where a
message stops, torchrun's failure block; and TRIGGER, the raw words a line needs to be parsed at all.

The one-line shapes that are incidents on their own are in standaloneshapes.py, the error kind's
in errorshapes.py.

Pattern-writing rules (STYLE.md point 5): anchor where the printer anchors, match stable text, never
numbers or paths; a pattern that is not obvious says which program prints it.
"""
import re

from . import rx

# ---- tracebacks ------------------------------------------------------------------------------
TRACEBACK = rx.compile(r"Traceback \(most recent call last\)")


def _any_prefix(text: str) -> str:
    """A regex for any beginning of `text`, the empty one included."""
    out = ""
    for ch in reversed(text):
        out = f"(?:{re.escape(ch)}{out})?"
    return out


# the header cut off where the excerpt or the log ends ("  0%|   | 0/769 [00:00<?, ?it/s]Traceback (most r",
# unslothai/unsloth#1060): something raised, though nothing of it is left
CUT_TRACEBACK = rx.compile(r"Traceback \(most" + _any_prefix(" recent call last)") + r"\s*$")
# torch re-raising a worker's exception (DataLoader workers, DataParallel replicas: "RuntimeError: Caught
# KeyError in DataLoader worker process 0." then this line and the worker's own traceback): the
# worker's exception, last in the chain, is the failure
ORIGINAL_TRACEBACK = rx.compile(r"^\s{0,8}Original Traceback \(most recent call last\):")
# The function is at most five words (a name, "<module>", a logger's suffix): a lazy `.*?` before `\s*$`
# retried the trailing spaces at each character (10 s for a frame line of 64 KB of spaces and a word).
# faulthandler's dump after a fatal signal writes no comma ('  File "x.py", line 1747 in _call_impl'): its
# frames, innermost first, are read as a traceback's when its header was cut (afruizh/TreeEyed#9).
FRAME = rx.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:,? in ?(?P<func>\S{0,300}(?: \S{1,300}){0,4}))?\s*$')
FAULT_FRAME = rx.compile(r'^\s*File "[^"]{1,4000}", line \d{1,7} in \S')  # faulthandler's, innermost first
# macOS's C++ runtime on an uncaught exception, before the abort notice (LLVM libc++abi)
LIBCXXABI = rx.compile(r"^libc\+\+abi(?:\.dylib)?: terminating (?:due to|with) uncaught exception of type ")
# a traceback's indented source line that raises, behind a logger's prefix when the traceback was logged
# ("ERROR 11-18 18:07:28 engine.py:366]     raise ValueError("No available memory ...")"): it quotes
# the message of the exception line that follows, it is not a failure of its own
RAISE_LINE = rx.compile(r"^(?:[^\]]{0,200}\] )?\s+raise [A-Z]\w*\(")
# a traceback flattened onto one line: its frames, and its exception after the last of them
FLAT_FRAME = rx.compile(r'File "(?P<file>[^"]{1,400})", line (?P<line>\d{1,7}), in (?P<func>[\w.<>]{1,200})')
FLAT_EXC = rx.compile(r"(?<![\w.])(?P<type>(?:[a-z_]\w*\.){0,8}[A-Z]\w{0,100}(?:Error|Exception|Interrupt|Exit))"
                      r"(?::[ ]?(?P<msg>.*)|\s*$)")


# a frame line the excerpt cut inside its path: 'File "/home/u/Developments/github.com/scenario'
CUT_FRAME = rx.compile(r'^\s*File "[^"]{1,400}$')
# IPython 8: "File /env/lib/python3.10/site-packages/torch/nn/modules/module.py:1501, in Module._call_impl(self, ...)"
# with the home folder abbreviated: "File ~/anaconda3/envs/x/lib/python3.10/site-packages/transformers/trainer.py:1531, in Trainer.train(...)"
# JupyterLab links the path: "File [/env/lib/python3.10/site-packages/accelerate/hooks.py:165](http://host:8888/...), in new_forward(...)"
IPYTHON_FRAME = rx.compile(r"^File \[?(?P<file>~?/[^\s:\]]{1,400}\.pyx?):(?P<line>\d+)(?:\]\([^)\s]{0,2000}\))?, in (?P<func>[\w.<>]{1,200})\(")


# pytest's report of a failed test that ran training: "venv/lib/.../pytorch_lightning/trainer/trainer.py:768: in fit"
PYTEST_FRAME = rx.compile(r"^(?P<file>[^\s:\"]{1,400}\.pyx?):(?P<line>\d{1,7}): in (?P<func>[\w.<>]{1,200})\s*$")
# and its exception line, marked "E" in the left margin: "E       RuntimeError: CUDA error: ..."
PYTEST_EXC = rx.compile(r"^E {3,}(?=\S)")


# IPython before 8 names a frame without its line, which the "-->" arrow below it carries:
# "~/anaconda3/envs/tf/lib/python3.6/site-packages/sagemaker/estimator.py in fit(self, inputs, wait)"
IPYTHON7_FRAME = rx.compile(r"^(?P<file>(?:~|/|[A-Za-z]:\\)[^\s]{0,400}\.py) in (?P<func>[\w<>.]{1,200})\(.{0,2000}\)\s*$(?P<line>)")
# and names the notebook cell's frame "<ipython-input-15-3d42788289b5> in <module>()" (the parentheses
# depend on the release; Lightning-AI/pytorch-lightning#8395)
IPYTHON7_CELL = rx.compile(r"^(?P<file><ipython-input-[\w-]{1,80}>) in (?P<func><module>|\w{1,200})(?:\(.{0,2000}\))?\s*$(?P<line>)")


def frame_match(text: str) -> re.Match | None:
    """A frame line as Python, IPython or pytest prints it, with the groups file, line and func."""
    return (FRAME.match(text) or IPYTHON_FRAME.match(text) or PYTEST_FRAME.match(text) or IPYTHON7_FRAME.match(text)
            or IPYTHON7_CELL.match(text))


# rich's traceback handler (ColossalAI, accelerate): "│ /path/x.py:251 in set_l2_norm   │"
RICH_FRAME = rx.compile(r"^[│|]\s*(?P<file>[^\s│|]+\.pyx?):(?P<line>\d+)\s+in\s*(?P<func>[^\s│|]*)")
RICH_BOX = rx.compile(r"^\s*[│╭╰|]")
# a rich frame that names a file by its path: one opens a traceback even when the box's top was cut off.
# The path may be relative or a Windows one, the file a console script ("│ /env/bin/accelerate:8 in
# <module> │"), the line number wrapped onto the next row ("│ C:\...\launch.py:6 │" then "│ 04 in ...").
RICH_PATH_FRAME = rx.compile(r"^│\s*(?P<file>(?:[A-Za-z]:)?[^\s│]{0,400}[/\\][^\s│]{1,200}):(?P<line>\d+)"
                             r"(?:\s+in\s*(?P<func>[^\s│]*))?\s*(?:│|$)")
# IPython/Jupyter: "NameError                                 Traceback (most recent call last)"; a copy
# from a rendered notebook may lose the padding ("ExceptionTraceback (most recent call last)",
# Lightning-AI/pytorch-lightning#3311)
IPYTHON_HEADER = rx.compile(r"^(?P<type>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?(?:Error|Exception|Interrupt))\s*Traceback \(most recent call last\)")
RICH_WRAPPED_FUNC = rx.compile(r"^[│|]\s*([A-Za-z_<][\w<>]*)\s*[│|]\s*$")
CHAIN = rx.compile(
    r"^\s*(?:During handling of the above exception, another exception occurred"
    r"|The above exception was the direct cause of the following exception):?\s*$"
)
# "AssertionError: msg", "torch.OutOfMemoryError: msg", "KeyboardInterrupt"
EXC_LINE = rx.compile(r"^(?P<type>(?:[A-Za-z_]\w*\.)*(?P<name>[A-Z]\w*))(?::[ ]?(?P<msg>.*))?$")
EXC_SUFFIX = rx.compile(r"(?:Error|Exception|ExceptionGroup|Interrupt|Exit|Failure|Fault|Timeout|Iteration)$")
# an exception type alone on its line, outside a traceback ("AssertionError", "[rank1]: AssertionError"):
# a bare `assert` prints nothing else. "Error" and "Exception" alone are headings.
BARE_EXC = rx.compile(r"^(?:[a-z_]\w*\.)*[A-Z]\w+(?:Error|Exception)\s*$")
# an exception printed by a logger, anywhere in the line: "[E ...] RuntimeError: msg"
# A module-qualified type may end the line with an empty message, as torchrun's ChildFailedError
# does before its summary block ("... torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ").
LOGGED_EXC = rx.compile(
    r"(?<![\w.])(?P<type>(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?:Group)?)(?::[ ]?(?P<msg>\S.*))$"
    r"|(?<![\w.])(?P<qualified>(?:[a-z_]\w*\.){2,}[A-Z]\w*(?:Error|Exception)):\s*(?P<empty>)$"
)

# VS Code's "copy output" of a notebook cell that raised: a JSON object, the exception type first
#   "name": "RuntimeError",
#   "message": "CUDA error: device-side assert triggered
#   CUDA kernel errors might be ... (the message's further lines, then `",`)
#   "stack": "-----... (the IPython traceback, which opens its own record)
# VS Code's debugger stopping on an uncaught exception ("Exception has occurred: KeyError", in a zh_CN
# locale "发生异常: KeyError       (note: full exception trace is shown but execution is paused at: ...)"):
# the type, then the message on the next line and the frames
DEBUGGER_EXC = rx.compile(r"^(?:Exception has occurred|发生异常): (?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*)(?:\s|$)")
# a module-qualified exception type whose name carries no telling suffix (pyarrow.lib.ArrowInvalid,
# paddle.fluid.core.EnforceNotMet, torch._dynamo.exc.Unsupported): a line it leads with a message is an
# exception line too, where a bare "Name: text" is not
QUALIFIED_TYPE = rx.compile(r"^(?:[a-z_][a-z0-9_]*\.){2,}[A-Z][A-Za-z0-9]*$")
NOTEBOOK_NAME = rx.compile(r'^\s*"name": "(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt))",\s*$')
NOTEBOOK_MESSAGE = rx.compile(r'^\s*"message": "(?P<msg>.*?)(?:",)?\s*$')
NOTEBOOK_END = rx.compile(r'^\s*(?:",|"stack": ")')

# an exception chained under another as the JVM and some Node apps print it, "Caused by:
# java.io.IOException: ..." or LM Studio's "- Caused By: Error: The model has crashed ...": the
# exception line follows the prefix
CAUSED_BY = rx.compile(r"^(?:- )?Caused [Bb]y: ")
# threading's excepthook before a thread's traceback: "Exception in thread Thread-5:",
# "Exception in thread Thread-1 (_pin_memory_loop):"
THREAD_EXC = rx.compile(r"^Exception in thread [^:]{1,200}:\s*$")
# a C++ backtrace (c10::Error and friends): "frame #2: c10::cuda::c10_cuda_check_implementation(...) + 0x118 (0x7f... in /.../libc10_cuda.so)"
CPP_FRAME = rx.compile(r"^frame #\d{1,5}: \S")

# ---- where a message stops: the next record of another kind begins ----------------------------
# an exception's message printed without its type (a logger, ComfyUI's console) whose telling part is on
# the next lines: transformers' lazy import (utils/import_utils.py _LazyModule._get_module: the error it
# wraps follows), torch.load's weights_only refusal (serialization.py _get_wo_message: the unpickler's
# reason, "WeightsUnpickler error: Unsupported ...", two lines on)
MESSAGE_FOLLOWS = rx.compile(r"^Failed to import \S{1,300} because of the following error \(look up to see its traceback\):\s*$"
                             r"|^(?:!!! Exception during processing !!! )?Weights only load failed\. ")

RECORD_START = rx.compile(
    r"^(?:\[?\d{4}-\d\d-\d\d[ T]"  # "2024-11-29 16:19:03 ..." / "[2024-..."
    r"|\[?(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b"  # logging / LLaMA-Factory "[INFO|..."
    r"|[IWEF]\d{4} \d\d:"  # glog: "E1122 10:00:00.123 ..."
    r"|\[[IWEF](?:\d{3,4} | )"  # c10 logging: "[E ProcessGroupNCCL.cpp:563]", "[E1206 18:44:12.7 ...]", "[W110 18:05:28 ...]"
    r"|\s*\d+%\|"  # tqdm bar
    r"|\{['\"]\w"  # a metrics dict
    r")"
)

# torchrun's ChildFailedError block
ROOT_CAUSE = rx.compile(r"Root Cause \(first observed failure\)")
BLOCK_RANK = rx.compile(r"^\s*rank\s*:\s*(\d+)")
BLOCK_EXIT = rx.compile(r"^\s*exitcode\s*:\s*(-?\d+)")

# Raw trigger for the fast byte scan: a line matching none of these is never parsed unless it sits
# inside an open traceback. Lower-cased words are matched case-sensitively as written in logs.
TRIGGER = rx.compile(
    rb"Traceback \(most|File \"|Error|Exception|error:|Assertion|nan\b|NaN|NAN\b|inf\b|Infinity|Killed|SIG[A-Z]{3,4}"
    rb"|exitcode|exit status|return code|OVERFLOW|Overflow|loss scale|Watchdog|NCCL|nccl|CUDA error"
    rb"|out of memory|requires_grad|tokenization mismatch|Warning: |Segmentation|core dumped|Root Cause|killed|Killing subprocess"
    rb"|Bus error|Floating point exception|Aborted|Fatal Python error|terminate called|size mismatch for"
    rb"|undefined symbol|Failed to import|Exit code: |The actor |Received signal |IOT instruction|Check failure stack"
    rb"|free\(\): |double free or corruption|munmap_chunk\(\): |malloc\(\): |realloc\(\): |corrupted size vs"
    rb"|corrupted double-linked|malloc_consolidate\(\): |Begin stack trace |Failed to connect to GCS|raylet exited|terminated by signal|Process finished with exit code"
    rb"|Loss is |non-finite loss|gradients at all steps are invalid|dumped core\.|FAILED |= FAILURES =|= ERRORS =|nans detected|NaNs detected"
    rb"|Failed to validate prompt|prompt_outputs_failed_validation|\(total: "
    # zsh's job table names the signal in lower case, padded to its column ("[1]    15017 bus error  python3 x.py")
    rb"|failed assertion `|errored: |killing sweep|\(failed |abort  |bus error  |segmentation fault  |trace trap  |illegal hardware instruction|floating point exception"
    rb"|" + "进程已结束".encode() + "|发生异常: ".encode()
    # module-qualified exception types whose name has no Error/Exception suffix (QUALIFIED_TYPE above)
    + rb"|ArrowInvalid: |EnforceNotMet: |BrokenProcessPool: "
    + rb"|File /|File ~/|File \[/|CUDA SETUP: Problem|most recent call first|<ipython-input-"
    rb"|ERROR|CRITICAL|FATAL"  # a logger's error-level record
    rb"|Terminated|CANCELLED AT |error code is |zsh: |exceeded memory limit|exited with code |errored trials"
    rb"|command error|can't cd to|can't open |cannot open |cannot create |Syntax error: "
    # a word before "failed" ("Job failed: {...}", glog's "Check failed: ", "Weights only load failed.",
    # "Assertion failed: (...)", "run.pl: job failed, log is in", Paddle's "status failed cmd")
    rb"| failed"
    rb"|An error occurred in MPI_|atchdog thread terminated|object': 'error'|object\": \"error\"|object\":\"error\""
    rb"|Worker crashed during|Windows fatal exception|Failed - |MaxRuntimeExceeded|non-zero status of|\.py in "
    rb"|make: |make\[|nvcc fatal|ERROR\] |failed, log is in|have died|restarting kernel|kernel process died"
    rb"|frame #|: in "  # a C++ backtrace's frames, pytest's ("trainer.py:768: in fit")
    # a native crash handler's frames (LLVM's and ROCm's "#94 0x00007ffba032560e (python312.dll+0x6560e)",
    # gdb's "#0  0x00007ffff7a42428 in raise ()", glibc's "libstdc++.so.6(+0xaa37c) [0x7f82978cf37c]"); torch
    # elastic's failure summary ("traceback : To enable ...")
    rb"| 0x00007f|\) \[0x|To enable traceback see: |libc\+\+abi|signal: killed|exit code 137|exit status 137"
    rb"|Kernel crashed while"
    # a loss of exactly zero, never every metric line whose loss starts with "0." (a hot path)
    rb"|loss': 0\.0,|loss': 0\.0\}|loss': 0,|loss': 0\}|loss\": 0\.0,|loss\": 0\.0\}|loss\": 0,|loss\": 0\}"
    rb"|train_loss|avr_loss=0\]|avr_loss=0\.0\]"
    rb"|" + "│ ".encode()  # a rich box's row: a frame naming its file, a wrapped path's tail
    + "|核心已转储|段错误|已放弃|总线错误|非法指令|浮点数例外|已终止|已杀死".encode()  # signal notices in a zh_CN locale
)
