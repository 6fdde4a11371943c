"""The line shapes the parser recognises, in one place.

Pattern-writing rules (STYLE.md point 5): anchor where the printer anchors, match stable text, never
numbers or paths; a pattern that is not obvious says which program prints it.
"""
import re

# ---- tracebacks ------------------------------------------------------------------------------
TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
# torch re-raising a worker's exception (DataLoader workers, DataParallel replicas: "RuntimeError: Caught
# KeyError in DataLoader worker process 0." then this line and the worker's own traceback): the
# worker's exception, last in the chain, is the failure
ORIGINAL_TRACEBACK = re.compile(r"^\s{0,8}Original Traceback \(most recent call last\):")
# The function is at most five words (a name, "<module>", a logger's suffix): a lazy `.*?` before `\s*$`
# retried the trailing spaces at each character (10 s for a frame line of 64 KB of spaces and a word).
FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in ?(?P<func>\S{0,300}(?: \S{1,300}){0,4}))?\s*$')
# a traceback's indented source line that raises, behind a logger's prefix when the traceback was logged
# ("ERROR 11-18 18:07:28 engine.py:366]     raise ValueError("No available memory ...")"): it quotes
# the message of the exception line that follows, it is not a failure of its own
RAISE_LINE = re.compile(r"^(?:[^\]]{0,200}\] )?\s+raise [A-Z]\w*\(")
# a traceback flattened onto one line: its frames, and its exception after the last of them
FLAT_FRAME = re.compile(r'File "(?P<file>[^"]{1,400})", line (?P<line>\d{1,7}), in (?P<func>[\w.<>]{1,200})')
FLAT_EXC = re.compile(r"(?<![\w.])(?P<type>(?:[a-z_]\w*\.){0,8}[A-Z]\w{0,100}(?:Error|Exception|Interrupt|Exit))"
                      r"(?::[ ]?(?P<msg>.*)|\s*$)")


# a frame line the excerpt cut inside its path: 'File "/home/u/Developments/github.com/scenario'
CUT_FRAME = re.compile(r'^\s*File "[^"]{1,400}$')
# IPython 8: "File /env/lib/python3.10/site-packages/torch/nn/modules/module.py:1501, in Module._call_impl(self, ...)"
# with the home folder abbreviated: "File ~/anaconda3/envs/x/lib/python3.10/site-packages/transformers/trainer.py:1531, in Trainer.train(...)"
# JupyterLab links the path: "File [/env/lib/python3.10/site-packages/accelerate/hooks.py:165](http://host:8888/...), in new_forward(...)"
IPYTHON_FRAME = re.compile(r"^File \[?(?P<file>~?/[^\s:\]]{1,400}\.pyx?):(?P<line>\d+)(?:\]\([^)\s]{0,2000}\))?, in (?P<func>[\w.<>]{1,200})\(")


# pytest's report of a failed test that ran training: "venv/lib/.../pytorch_lightning/trainer/trainer.py:768: in fit"
PYTEST_FRAME = re.compile(r"^(?P<file>[^\s:\"]{1,400}\.pyx?):(?P<line>\d{1,7}): in (?P<func>[\w.<>]{1,200})\s*$")
# and its exception line, marked "E" in the left margin: "E       RuntimeError: CUDA error: ..."
PYTEST_EXC = re.compile(r"^E {3,}(?=\S)")


# IPython before 8 names a frame without its line, which the "-->" arrow below it carries:
# "~/anaconda3/envs/tf/lib/python3.6/site-packages/sagemaker/estimator.py in fit(self, inputs, wait)"
IPYTHON7_FRAME = re.compile(r"^(?P<file>(?:~|/|[A-Za-z]:\\)[^\s]{0,400}\.py) in (?P<func>[\w<>.]{1,200})\(.{0,2000}\)\s*$(?P<line>)")
# and names the notebook cell's frame "<ipython-input-15-3d42788289b5> in <module>()" (the parentheses
# depend on the release; Lightning-AI/pytorch-lightning#8395)
IPYTHON7_CELL = re.compile(r"^(?P<file><ipython-input-[\w-]{1,80}>) in (?P<func><module>|\w{1,200})(?:\(.{0,2000}\))?\s*$(?P<line>)")


def frame_match(text: str) -> re.Match | None:
    """A frame line as Python, IPython or pytest prints it, with the groups file, line and func."""
    return (FRAME.match(text) or IPYTHON_FRAME.match(text) or PYTEST_FRAME.match(text) or IPYTHON7_FRAME.match(text)
            or IPYTHON7_CELL.match(text))


# rich's traceback handler (ColossalAI, accelerate): "│ /path/x.py:251 in set_l2_norm   │"
RICH_FRAME = re.compile(r"^[│|]\s*(?P<file>[^\s│|]+\.pyx?):(?P<line>\d+)\s+in\s*(?P<func>[^\s│|]*)")
RICH_BOX = re.compile(r"^\s*[│╭╰|]")
# a rich frame that names a file by its path: one opens a traceback even when the box's top was cut off.
# The path may be relative or a Windows one, the file a console script ("│ /env/bin/accelerate:8 in
# <module> │"), the line number wrapped onto the next row ("│ C:\...\launch.py:6 │" then "│ 04 in ...").
RICH_PATH_FRAME = re.compile(r"^│\s*(?P<file>(?:[A-Za-z]:)?[^\s│]{0,400}[/\\][^\s│]{1,200}):(?P<line>\d+)"
                             r"(?:\s+in\s*(?P<func>[^\s│]*))?\s*(?:│|$)")
# IPython/Jupyter: "NameError                                 Traceback (most recent call last)"; a copy
# from a rendered notebook may lose the padding ("ExceptionTraceback (most recent call last)",
# Lightning-AI/pytorch-lightning#3311)
IPYTHON_HEADER = re.compile(r"^(?P<type>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?(?:Error|Exception|Interrupt))\s*Traceback \(most recent call last\)")
RICH_WRAPPED_FUNC = re.compile(r"^[│|]\s*([A-Za-z_<][\w<>]*)\s*[│|]\s*$")
CHAIN = re.compile(
    r"^\s*(?:During handling of the above exception, another exception occurred"
    r"|The above exception was the direct cause of the following exception):?\s*$"
)
# "AssertionError: msg", "torch.OutOfMemoryError: msg", "KeyboardInterrupt"
EXC_LINE = re.compile(r"^(?P<type>(?:[A-Za-z_]\w*\.)*(?P<name>[A-Z]\w*))(?::[ ]?(?P<msg>.*))?$")
EXC_SUFFIX = re.compile(r"(?:Error|Exception|ExceptionGroup|Interrupt|Exit|Failure|Fault|Timeout|Iteration)$")
# an exception type alone on its line, outside a traceback ("AssertionError", "[rank1]: AssertionError"):
# a bare `assert` prints nothing else. "Error" and "Exception" alone are headings.
BARE_EXC = re.compile(r"^(?:[a-z_]\w*\.)*[A-Z]\w+(?:Error|Exception)\s*$")
# an exception printed by a logger, anywhere in the line: "[E ...] RuntimeError: msg"
# A module-qualified type may end the line with an empty message, as torchrun's ChildFailedError
# does before its summary block ("... torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ").
LOGGED_EXC = re.compile(
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
DEBUGGER_EXC = re.compile(r"^(?:Exception has occurred|发生异常): (?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*)(?:\s|$)")
# a module-qualified exception type whose name carries no telling suffix (pyarrow.lib.ArrowInvalid,
# paddle.fluid.core.EnforceNotMet, torch._dynamo.exc.Unsupported): a line it leads with a message is an
# exception line too, where a bare "Name: text" is not
QUALIFIED_TYPE = re.compile(r"^(?:[a-z_][a-z0-9_]*\.){2,}[A-Z][A-Za-z0-9]*$")
NOTEBOOK_NAME = re.compile(r'^\s*"name": "(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt))",\s*$')
NOTEBOOK_MESSAGE = re.compile(r'^\s*"message": "(?P<msg>.*?)(?:",)?\s*$')
NOTEBOOK_END = re.compile(r'^\s*(?:",|"stack": ")')

# threading's excepthook before a thread's traceback: "Exception in thread Thread-5:",
# "Exception in thread Thread-1 (_pin_memory_loop):"
THREAD_EXC = re.compile(r"^Exception in thread [^:]{1,200}:\s*$")
# a C++ backtrace (c10::Error and friends): "frame #2: c10::cuda::c10_cuda_check_implementation(...) + 0x118 (0x7f... in /.../libc10_cuda.so)"
CPP_FRAME = re.compile(r"^frame #\d{1,5}: \S")

# ---- where a message stops: the next record of another kind begins ----------------------------
# an exception's message printed without its type (a logger, ComfyUI's console) whose telling part is on
# the next lines: transformers' lazy import (utils/import_utils.py _LazyModule._get_module: the error it
# wraps follows), torch.load's weights_only refusal (serialization.py _get_wo_message: the unpickler's
# reason, "WeightsUnpickler error: Unsupported ...", two lines on)
MESSAGE_FOLLOWS = re.compile(r"^Failed to import \S{1,300} because of the following error \(look up to see its traceback\):\s*$"
                             r"|^(?:!!! Exception during processing !!! )?Weights only load failed\. ")

RECORD_START = re.compile(
    r"^(?:\[?\d{4}-\d\d-\d\d[ T]"  # "2024-11-29 16:19:03 ..." / "[2024-..."
    r"|\[?(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b"  # logging / LLaMA-Factory "[INFO|..."
    r"|[IWEF]\d{4} \d\d:"  # glog: "E1122 10:00:00.123 ..."
    r"|\[[IWEF](?:\d{3,4} | )"  # c10 logging: "[E ProcessGroupNCCL.cpp:563]", "[E1206 18:44:12.7 ...]", "[W110 18:05:28 ...]"
    r"|\s*\d+%\|"  # tqdm bar
    r"|\{['\"]\w"  # a metrics dict
    r")"
)

# ---- standalone lines that are incidents on their own ------------------------------------------
# a native extension that does not build (DeepSpeed ops, flash-attn, apex at install or JIT load): the
# compiler's "csrc/adam/cpu_adam.cpp:5:10: fatal error: cuda_runtime.h: No such file or directory",
# setuptools' "error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1" (pip indents the
# build's output; a CI runner stamps each line). It says what the build lacked; the exception that
# follows (torch's "Error building extension 'cpu_adam'") says which op, and is elected first.
# Hydra's notice that the @hydra.main job raised ("Error executing job with overrides: ['trainer.n_gpus=8',
# ...]"): a failure when the paste stops there, else the traceback it prints next says what failed. Hydra
# refusing a command-line override before the job runs ("Error merging override +a.j=2", then the reason)
# ends the run as well.
HYDRA_JOB = re.compile(r"^Error executing job with overrides: \[|^Error merging override \S")
BUILD_ERROR = re.compile(
    r"(?:^|\s)(?:[^\s:]{1,300}\.(?:c|cc|cpp|cxx|cu|cuh|h|hpp):\d{1,7}:(?:\d{1,5}:)?|<command-line>:) (?:fatal )?error: "
    r"|(?:^|\s)error: command '[^']{1,300}' failed with exit (?:code|status) \d"
    # nvcc's own location form ("train_gpt2.cu(215): error: no instance of overloaded function"), the
    # linker ("collect2: error: ld returned 1 exit status"), make giving up on a target
    # ("make: *** [Makefile:277: train_gpt2fp32cu] Error 255", not "... Error 1 (ignored)")
    r"|^[^\s:()]{1,300}\.(?:cu|cuh|c|cc|cpp|h|hpp)\(\d{1,7}\): error: |^collect2: error: ld returned [1-9]"
    # nvcc refusing its own options ("nvcc fatal   : Unsupported gpu architecture 'compute_90'")
    r"|^nvcc fatal {0,8}: \S"
    r"|^make(?:\[\d{1,3}\])?: \*\*\* \[[^\]]{1,300}\] Error [1-9]\d{0,2}\s*$"
)
# glibc's heap checks before they abort the process: the report of glibc < 2.26 ("*** Error in
# `python': double free or corruption (fasttop): 0x00007f0018011960 ***") and its later bare messages
# as whole lines ("free(): invalid pointer"). They say that the heap broke; the abort notice after
# them, when the paste has it, says how the process ended.
GLIBC_HEAP = re.compile(
    r"^\*\*\* Error in `[^`]{1,300}': .{1,200}: 0x[0-9a-f]{4,16} \*\*\*"
    r"|^(?:free\(\): (?:invalid (?:pointer|size|next size \((?:fast|normal)\))|double free detected in tcache 2)"
    r"|double free or corruption \((?:top|out|!prev|fasttop)\)|munmap_chunk\(\): invalid pointer"
    r"|realloc\(\): invalid (?:pointer|old size|next size)|malloc\(\): (?:memory corruption|corrupted top size"
    r"|unaligned tcache chunk detected|unsorted double linked list corrupted)|corrupted size vs\. prev_size"
    r"|corrupted double-linked list|malloc_consolidate\(\): invalid chunk size)\s*$"
)
# an IDE's run console when the process ended, in English and zh_CN (PyCharm: "Process finished with exit
# code 1", "进程已结束,退出代码-1073740940 (0xC0000374)"); the code follows
_IDE_EXIT = r"^(?:Process finished with exit code|进程已结束[,，]\s{0,4}退出代码为?)\s{0,4}"
# kind -> pattern searched in the cleaned line
# torch.distributed ProcessGroupNCCL watchdog and friends: a line of its own, or inside a rank's
# exception (elect.py: the SIGABRT after either is its aftermath)
NCCL = re.compile(
    r"Watchdog caught collective operation timeout|collective operation timeout"
    r"|NCCL operations have failed or timed out|Some NCCL operations have failed"
    r"|NCCL communicator was aborted|ProcessGroupNCCL's watchdog got stuck"
    r"|\bnccl\w*Error\b|NCCL error"
    # NCCL's trace of a call that returned an error, printed only on failure ("NCCL INFO bootstrap.cc:100 -> 2")
    r"|NCCL INFO [\w/.-]{1,100}\.cc:\d{1,6} -> [1-9]\d?\b"
    # the watchdog's report of the work it found failed (torch 2.3+ ProcessGroupNCCL: "[PG 0 Rank 2]
    # Timeout at NCCL work: 1, last enqueued NCCL work: 1, ...", "Exception (either an error or timeout)
    # detected by watchdog at work: 6463, ...")
    r"|\bTimeout at NCCL work: \d|detected by watchdog at work: \d"
    # the watchdog ending its thread with its reason cut off by a paste (torch 2.2+ ProcessGroupNCCL:
    # "[PG ID 1 PG GUID 1 Rank 4] Process group watchdog thread terminated with exception: [Rank 4] Watchdog";
    # a reason that is there decides: a timeout above, a CUDA error the rank's own), and nccl-tests'
    # check macro ("NCCL failure all_reduce.cu:95 'unhandled cuda error'")
    r"|watchdog thread terminated with exception:(?: \[[^\]]{0,80}\])?(?: Watchdog(?: caught(?: c\w{0,20})?)?)?\s*$"
    r"|\bNCCL failure [\w./-]{1,100}:\d{1,6} '"
)

STANDALONE = [
    ("nccl", NCCL),
    # a process that died by a signal: torchrun's "exitcode: -N" and ChildFailedError block, DeepSpeed's
    # "return code = -N", mp.spawn's "terminated with signal", the shell's and libc's own notices, the
    # kernel OOM killer. The signal number decides which failure it is (-9 host OOM, -7 SIGBUS, ...).
    ("signal", re.compile(
        r"exitcode\s*:\s*-\d+\b|Signal \d+ \(SIG[A-Z]+\) received|terminated with signal SIG[A-Z]+"
        r"|\bKilled\s*$|killed by signal|Out of memory: Kill(?:ed)? process|exits with return code = -\d+"
        r"|Segmentation fault|Bus error|Floating point exception|^(?:\S+: line \d+: +\d+ +)?Aborted\b"
        # zsh's job notices ("zsh: killed     python3 train.py", "zsh: abort      python train_gpt2.py"),
        # macOS's "Killed: 9", SLURM killing a step over its memory limit ("slurmstepd: Job 1171978
        # exceeded memory limit (18202456 > 16384000), being killed")
        r"|^zsh: (?:killed|abort|segmentation fault|bus error|illegal hardware instruction|floating point exception|trace trap) "
        # zsh's job table after the job died ("[1]    21958 IOT instruction  python bundlesdf/run_nerf.py",
        # IOT being SIGABRT's other name); TensorFlow's failure handler ("*** Received signal 11 ***")
        r"|^\[\d{1,4}\] {1,8}[+-]? {0,8}\d{1,9} {1,8}(?:killed|abort|IOT instruction|segmentation fault|bus error"
        r"|illegal hardware instruction|floating point exception|trace trap)(?: \(core dumped\))? "
        r"|^\*\*\* Received signal \d{1,2} \*\*\*"
        # the fish shell's notice ("fish: 'python3 AirDoS.py' terminated by signal SIGABRT (Abort)"); an
        # IDE's console after a death by signal or a Windows crash code ("Process finished with exit code
        # 134 (interrupted by signal 6: SIGABRT)", "... -1073740791 (0xC0000409)", zh_CN "进程已结束,退出代码-1073740940")
        r"|\bterminated by signal SIG[A-Z]{2,6}\b"
        # fish's notice of a job whose multi-line command it quotes before the signal's name, which a
        # paste may then cut ("fish: Job 1, 'python lerobot/scripts/train.py…' terminated by signal     --policy.type=act \")
        r"|\bfish: Job \d{1,6}, '.{0,2000}?' terminated by signal\b"
        # systemd-coredump's report ("Process 7744 (journalctl) of user 0 dumped core.")
        r"|^Process \d{1,10} \([^)]{1,64}\) of user \d{1,10} dumped core\."
        r"|" + _IDE_EXIT + r"(?:-\d{1,11}|\d{1,3} \(interrupted by signal \d)"
        r"|^Killed: 9\s*$|^slurmstepd: (?:error: )?.{0,120}exceeded memory limit .{0,120}being killed"
        # the same notices in a zh_CN locale (glibc's and bash's translations: "已放弃 (核心已转储)" is
        # "Aborted (core dumped)"), and Windows' faulthandler header ("Windows fatal exception: access violation")
        r"|^(?:\S+: (?:line|行) \d+: +\d+ +)?(?:段错误|已放弃|总线错误|非法指令|浮点数例外|已终止|已杀死)(?:\s*[(（]核心已转储[)）])?\s*$"
        r"|核心已转储|^Windows fatal exception: \w"
        # Ray's raylet killing workers over the node's memory ("2 Workers (tasks / actors) killed due to
        # memory pressure (OOM)", wrapped anywhere)
        r"|killed due to memory pressure \(OOM\)"
        # the shell's notice of a job that SIGTERM ended ("./build_image.sh: line 171: 14815 Terminated
        # python3 -m http.server", job control's "[1]+  Terminated   python3 app.py")
        r"|^(?:\S+: line \d+: +\d+ +|\[\d+\][+-]? +)Terminated\b"
        r"|core dumped|Fatal Python error: |^terminate called after throwing an instance of"
        r"|\*\*\* SIG[A-Z]{3,5} (?:received|\(@)"  # absl/glog failure handlers (Ray, TensorFlow, Paddle)
        # faulthandler's dump of every thread after a fatal signal (its first line may be cut off)
        r"|^(?:Current thread|Thread) 0x[0-9a-f]{6,16} \(most recent call first\):"
        # and the list of extension modules it ends with (Python 3.10+, "Extension modules: numpy.core._multiarray_umath,
        # ..., regex._regex (total: 96)"), which a paste may keep alone, its header cut off
        r"|(?:^Extension modules: |, )[A-Za-z_]\w{0,60}(?:\.\w{1,60}){1,6} \(total: \d{1,5}\)\s*$"
    )),
    # launchers reporting that a child failed (cascade unless nothing else explains it)
    ("launcher", re.compile(
        r"Sending process \d+ closing signal SIG\w+|failed \(exitcode: -?\d+\) local_rank"
        r"|exits with return code|returned non-zero exit status|Received (?:Signals\.)?SIG(?:TERM|INT) death signal"
        r"|Killing subprocess \d+|^Exit code: [1-9]\d*\s*$"  # ColossalAI's launcher after a failed torchrun
        r"|^\s*exitcode\s*:\s*[1-9]\d*\s+\(pid: "  # torchrun's Failures block: a rank that exited with an error
        # SLURM ending a job: its time limit, a preemption, scancel ("slurmstepd: error: *** JOB 4242 ON
        # gpu01 CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT ***")
        r"|^slurmstepd: (?:error: )?\*\*\* (?:JOB|STEP) \S{1,40} (?:ON \S{1,100} )?CANCELLED AT "
        # and srun's notice of its tasks' end ("srun: error: nid01934: tasks 2,4-5,7: Terminated")
        r"|^srun: error: \S{1,100}: tasks? [\d,-]{1,200}: \S"
        # docker compose's note of a service that ended badly ("comfyui-1 exited with code 139"), Ray
        # Tune's summary of trials that raised ("Number of errored trials: 1")
        r"|^[\w.-]{1,100} exited with code [1-9]\d{0,2}\s*$|^Number of errored trials: [1-9]"
        r"|^Number of trials: \d{1,7}/\d{1,7} \((?:[^)]{0,80}, )?[1-9]\d{0,6} ERROR\b"
        # SageMaker's job status after its time stamp ("2020-07-17 08:45:54 Failed - Training job failed"),
        # AI Platform's ("The replica worker 0 exited with a non-zero status of 1. Termination reason: Error.")
        r"|^(?:Failed|MaxRuntimeExceeded) - \S|^The replica \S{1,100}(?: \d{1,5})? exited with a non-zero status of [1-9]"
        # Paddle's launcher ("Container rank 0 status failed cmd ['/usr/bin/python3.8', '-u', 'train.py'] code -6 log ...")
        r"|^Container rank \d{1,6} status failed cmd \["
        # the same IDE line after any other failed exit ("Process finished with exit code 1")
        r"|" + _IDE_EXIT + r"[1-9]\d{0,10}\b"
    )),
    # metrics: HF Trainer dicts, ms-swift jsonl, plain "loss=nan" ("Loss: NaN", "Grad Norm: inf" as
    # progress prints capitalise them), a loss printed as a tensor
    # ("'loss_rpn_loc': tensor(nan, device='cuda:0', grad_fn=<MulBackward0>)"); and fp16 dynamic loss scaling that
    # collapsed to single digits (DeepSpeed loss_scaler.py / stage_1_and_2.py "OVERFLOW! ... reducing to 2",
    # apex/Megatron "reducing loss scale to 1.0"): early overflows at scales like 65536 are normal warm-up
    ("metric", re.compile(
        r"""['"]?\b(?:\w*(?:loss|Loss|LOSS)\w*|grad_norm|[Gg]rad[ _][Nn]orm|rewards/\w{1,40}|logps/\w{1,40})['"]?\s*[:=]\s*['"]?(?:tensor\()?(?:nan|NaN|NAN|-?inf|-?Infinity)\b"""
        # nanoGPT's and llm.c's prints ("iter 3010: loss nan, time 1019.95ms", "train loss nan | norm nan")
        r"|\b(?:train |val |lm )?loss (?:nan|-?inf)\b"
        # a loss or grad norm named, then its value after spaces or a table rule: deepspeech's "Loss nan
        # (nan)", W&B's run summary ("wandb:    train/grad_norm nan"), a rich or Markdown results table
        # ("│ train_loss │ nan │")
        r"|(?<![A-Za-z])(?:[Ll]oss|LOSS|grad_norm)(?: {1,40}| {0,40}[│|] {0,40})(?:nan|NaN|NAN|-?inf)(?= {0,40}(?:$|[(|│,]))"
        # a named loss term before its value ("[loss KL: nan] [loss FA: nan]", HAST's trainer), DETR's and
        # torchvision references' stop ("Loss is nan, stopping training"), YOLOv5's ("WARNING: non-finite
        # loss, ending training"), ESPnet's trainer after every step of an epoch was skipped
        r"|\b[Ll]oss [A-Za-z][\w./()-]{0,30}(?: [A-Za-z][\w./()-]{0,30}){0,2}\s{0,4}[:=：]\s{0,4}(?:nan|NaN|-?inf)\b"
        r"|^Loss is (?:nan|-?inf)\b|non-finite loss, ending training|The gradients at all steps are invalid in this epoch"
        r"|(?:OVERFLOW!|[Oo]verflow).{0,300}?reducing (?:loss scale )?to (?:[0-8](?:\.0+)?|0\.\d+|\d(?:\.\d+)?e-\d+)\s*$"
    )),
    # failures stated on one line, with no exception line of their own: a CUDA kernel's assert
    # (`...Loss.cu:250: ...: block: [0,0,0] ... Assertion `t >= 0` failed.`), a state dict whose tensors
    # do not fit (`size mismatch for x: copying a param with shape ...`, the header may be cut off),
    # a native library that cannot load (`undefined symbol:`), transformers' lazy import failing
    ("error", re.compile(
        r"^CUDA error: |^CUDA Error: .{1,200} at \S{1,300}:\d{1,7}\s*$|CUDA out of memory|\b[Cc]uda (?:runtime )?error: out of memory|Assertion `.{0,300}` failed(?:\.|\s*$)|\.cuh?:\d+: .{0,300}Assertion .{0,300}failed"
        # the same assert cut before "failed" by a paste or a line limit, from a .cu file or a Triton kernel
        r"|\.cuh?:\d{1,7}: .{0,300}Assertion `|block: \[\d{1,6},\d{1,6},\d{1,6}\], thread: \[\d{1,6},\d{1,6},\d{1,6}\] Assertion `"
        r"|^\s*size mismatch for \S+: copying a param with shape|\bundefined symbol: \w"
        r"|Failed to import \S+ because of the following error"
        r"|The actor (?:is dead because|died unexpectedly)|\bActorDiedError\b"  # Ray: a worker process died
        r"|^CUDA SETUP: Problem: "  # bitsandbytes could not load its CUDA library
        # Ascend: torch_npu's NPU_CHECK_ERROR ("npuSynchronizeDevice:.../NPUStream.cpp:370 NPU error, error
        # code is 107020.") and, when its line is read, a CANN error report led by its code ("EZ9999:
        # Inner Error!", "EI0002: The wait execution of the Notify register times out.")
        r"|\bNPU (?:function )?error\b.{0,200}?error code is \d"
        # Kaldi/ESPnet's job runners ("run.pl: 32 / 32 failed, log is in exp/.../stats.*.log"); the CUDA/cuBLAS
        # check macro that llm.c and its forks print ("[CUDA ERROR] at file train_gpt2.cu:341:"); the BSD/macOS
        # assert ("Assertion failed: (input_size == 3), function f, file x.m, line 130."); an MPSGraph op
        # that rejects its operands ("error: 'mps.multiply' op operands don't have broadcast-compatible shapes")
        r"|^\S{1,100}\.pl: (?:\d{1,7} / \d{1,7} failed|job failed), log is in \S"
        # requests refusing an HTTP answer (models.py raise_for_status: "422 Client Error: Unprocessable Entity for
        # url: https://api.bfl.ai/v1/finetune"), whatever a logger put before it
        r"|\b[45]\d\d (?:Client|Server) Error: .{0,200}? for url: \S"
        r"|^\[(?:CUDA|cuBLAS|CUBLAS|cuDNN|CUDNN|NCCL) ERROR\] |^Assertion failed: \(.{1,300}\), function \S{1,200}, file \S{1,300}, line \d"
        r"|^error: 'mps\.\w{1,60}' op "
        # glibc's assert() ("python: ../nptl/pthread_mutex_lock.c:81: __pthread_mutex_lock: Assertion
        # `mutex->__data.__owner == 0' failed."), a c10 internal assert without its RuntimeError line
        # ("!handles_.at(i) INTERNAL ASSERT FAILED at \"../c10/cuda/CUDACachingAllocator.cpp\":393, please
        # report a bug to PyTorch."), Open MPI's fatal error banner ("*** An error occurred in
        # MPI_Init_thread"), LLVM's fatal error (Triton's compiler: "LLVM ERROR: Failed to infer result
        # type(s)."), and bitsandbytes' CUDA check ("Error named symbol not found at line 508 in file
        # /src/csrc/ops.cu")
        r"|: Assertion `.{1,300}' failed\.|\bINTERNAL ASSERT FAILED at \"|^\*\*\* An error occurred in MPI_\w"
        r"|^LLVM ERROR: \S|^Error [a-z][\w ]{2,80} at line \d{1,7} in file \S{1,300}\.cu\s*$"
        # Apple's frameworks asserting (Metal Performance Shaders under torch's MPS backend; the line may be
        # glued to a tqdm bar): ".../MPSNDArrayGatherND.mm:256: failed assertion `Rank of updates array ...'"
        r"|[\\/][\w+-]{1,100}\.mm:\d{1,6}: failed assertion `"
        # ComfyUI rejecting a workflow before it runs (execution.py validate_prompt, logged at ERROR but
        # shown bare on its console: "Failed to validate prompt for output 448:", then the reasons)
        # and a node that raised while the workflow ran (execution.py: "!!! Exception during processing !!! <message>")
        r"|^!!! Exception during processing !!!"
        r"|^Failed to validate prompt for output \S{1,40}:\s*$|^invalid prompt: \{'type': 'prompt_outputs_failed_validation'"
        # W&B's sweep agent on a run that raised ("Run 0jbbwa4t errored: IndexError('list index out of range')"),
        # giving up on the sweep, and the footer of a run that failed ("Waiting for W&B process to finish... (failed 1)")
        r"|^(?:wandb: ERROR )?Run \w{1,40} errored: [A-Z]\w{0,60}(?:Error|Exception|Interrupt)\b"
        r"|Detected \d{1,6} failed runs in the first \d{1,7} seconds, killing sweep"
        r"|Waiting for W&B process to finish\.{0,3} ?\(failed [1-9]"
        # pytest's report of failed tests: a FAILED summary line, the FAILURES banner
        r"|^FAILED \S{1,300}::\S{1,300}|^={3,200} (?:FAILURES|ERRORS) ={3,200}\s*$"
        # glibc's heap checks (GLIBC_HEAP); glog's and absl's fatal check (an F-severity record,
        # "F0522 14:58:03.803087 32152 Vector.h:139] Check failed: ...", then its stack banner), also
        # inside a TensorFlow/XLA status ("Exception in device=TPU:3: .../xrt_computation_client.cc:245 :
        # Check failed: ...", then TensorFlow's "*** Begin stack trace ***", pytorch/xla#2627)
        r"|" + GLIBC_HEAP.pattern + r"|^\*\*\* Check failure stack trace: \*\*\*|^\*\*\* Begin stack trace \*\*\*"
        r"|[\w/-]{1,200}\.(?:cc|cpp|h):\d{1,7} {0,2}[:\]] {0,2}Check failed: \S"
        # a notebook's kernel died under the run (Jupyter's "The kernel for x.ipynb appears to have died",
        # its restarter's "restarting kernel (1/5)", VS Code's "Disposing session as kernel process died")
        r"|appears to have died\. It will restart automatically|KernelRestarter: restarting kernel \(\d"
        r"|Disposing session as kernel process died"
        # RLlib's trainer when a rollout worker died, before it re-raises (logged at WARNING, or INFO in
        # older releases): "Worker crashed during call to `step_attempt()`"
        r"|Worker crashed during call to `?(?:step_attempt|train)\(\)"
        # xtuner's CLI, logged at WARNING level ("WARNING: command error: '[Errno 2] No such file ...'!");
        # dash (/bin/sh) failing a script's command ("./train.sh: 4: cd: can't cd to path/to/kitti")
        r"|\bWARNING: command error: '|^\S{1,300}: \d{1,6}: (?:\S{1,100}: )?(?:can't cd to |can't open |cannot (?:open|create) |Syntax error: )"

        # argparse (and jsonargparse) rejecting the command line, after its "usage:" lines (a paste may
        # wrap it in Markdown's bold or code marks)
        r"|^[`*]{0,2}(?:[\w./-]{1,100}: )?error: (?:unrecognized arguments: |the following arguments are required: "
        r"|argument \S{1,100}: (?:invalid |expected ))"
        "|" + BUILD_ERROR.pattern + "|" + HYDRA_JOB.pattern
    )),
    # the same kind's shapes that hold no literal of MIN_LITERAL bytes, kept apart so the literal
    # prefilter (standalone.StandaloneFilter) can skip the first part: a CANN error report led by its
    # code ("EZ9999: Inner Error!"), glog's and absl's F-severity record ("F0522 14:58:03.803087 32152
    # Vector.h:139] Check failed: ...")
    ("error", re.compile(
        r"^E[A-Z0-9]\d{4}: \S|^F\d{4} \d\d:\d\d:\d\d\.\d{6} {1,8}\d{1,9} [\w./-]{1,200}:\d{1,7}\] \S"
    )),
    # a logger's error-level record with no exception in it ("[ERROR:swift] There are errors in the
    # dataset", vLLM's "ERROR 09-20 19:54:33 [core.py:398] EngineCore encountered a fatal error.",
    # loguru's "| ERROR    | ...", logging's "ERROR:name:msg" and "- ERROR -", behind a container's
    # time stamp): the run says it failed without saying how. glog's E-lines are left out (torchrun
    # prints benign ones), and so is pip's resolver notice, which heads many notebook logs of runs that
    # went on fine.
    ("logged", re.compile(
        # Ray: an actor whose __init__ raised ("Exception raised in creation task: The actor died because of an
        # error raised in its creation task, ray::LLMRayActor.__init__() ..."; ray/exceptions.py): the
        # exception it wraps, when the paste has it, is the failure
        r"^.{0,200}?Exception raised in creation task: The actor died because of an error raised in its creation task|"
        r"^(?!ERROR: pip's )(?:(?:LAUNCH )?\[?(?:ERROR|CRITICAL|FATAL)\b(?!\]?\s*$)"  # Paddle's launcher: "LAUNCH ERROR <time> ..."
        # a C/C++ tool's fatal message in lower case (llama.cpp's finetune/export-lora: "error: unexpectedly
        # reached end of file"; git's and cargo's "error: ..."), words after it
        r"|error: [a-z][a-z'-]{1,40} [a-z]"
        # pip giving up on a package it builds ("  error: subprocess-exited-with-error", pip >= 22.1)
        r"|\s{0,8}error: subprocess-exited-with-error\b"
        r"|\[?\d{4}-\d\d-\d\d[ T][\d:,.]{8,15}\]? ?(?:-|\|)? ?\[?(?:ERROR|CRITICAL|FATAL)\b"
        r"|[^|]{0,120}\|\s{0,4}ERROR\s{0,8}\|\s{0,4}\S"
        r"|.{0,120}? - ERROR - \S"
        # a logger's name before its level, its time stamp already read ("2020-07-17 08:45:46,383
        # sagemaker-training-toolkit ERROR    ExecuteUserScriptError:")
        r"|[A-Za-z_]\w{0,40}(?:[.-]\w{1,40}){1,8}\s{1,8}(?:ERROR|CRITICAL|FATAL)\s{1,8}\S"
        # behind a container's or a CI runner's RFC 3339 stamp ("[rl-swarm] 2025-05-23T16:49:12.287821163Z ERROR:...")
        r"|.{0,60}?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z (?:ERROR|CRITICAL|FATAL)\b(?!\]?\s*$)"
        # a month-name date and pid:tid before the level (the AWS Neuron runtime: "2024-Jan-11 19:01:15.502435
        # 18506:21252 ERROR   ENC:configure_net_connector ...")
        r"|\d{4}-[A-Z][a-z]{2}-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? {1,8}(?:\d{1,9}(?::\d{1,9})? {1,8})?(?:ERROR|CRITICAL|FATAL) {1,8}\S"
        # Ray's C++ log at error or fatal level ("[2022-09-08 17:15:36,340 E 46829 46829] gcs_rpc_client.h:202:
        # Failed to connect to GCS ...", "[... C 46829 46957] ...:  Check failed: ..."); its I and W lines are left out
        # (its time stamp is read off as the line's own, leaving "E 46829 46829] ...")
        r"|\s{0,8}(?:\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} )?[EC] \d{1,10} \d{1,10}\] (?:\([\w.-]{1,64}\) )?[\w./-]{1,200}:\d{1,7}: \S)"
    )),
    # a training loss of exactly zero (HF Trainer/TRL/LLaMA-Factory/ms-swift dicts, the train-metrics
    # summary, kohya's postfix): not a failure, a sign the run learns nothing (silent entries decide)
    ("warning", re.compile(
        r"""['"](?:train_)?loss['"]\s*:\s*0(?:\.0+)?\s*[,}]|^\s*train_loss\s{0,40}=\s{0,40}0(?:\.0+)?\s*$"""
        r"|[\s,(]avr_loss=0(?:\.0+)?\]"
    )),
    ("warning", re.compile(
        r"None of the inputs have requires_grad=True|\bOVERFLOW!|Gradient overflow\.\s+Skipping step"
        r"|Attempted loss scale: \S+, reducing to|\b[A-Z]\w*Warning: "
    )),
    # LLaVA/FastChat-style preprocessing that masked a whole sample (llava-tokenization-mismatch):
    # "WARNING: tokenization mismatch: 55 vs. 54. (ignored)", loguru's "- tokenization mismatch: 1 vs. 81."
    ("warning", re.compile(r"\btokenization mismatch:? \d{1,7} vs\.? \d{1,7}|WARNING: tokenization mismatch\b")),
]

# torchrun's ChildFailedError block
ROOT_CAUSE = re.compile(r"Root Cause \(first observed failure\)")
BLOCK_RANK = re.compile(r"^\s*rank\s*:\s*(\d+)")
BLOCK_EXIT = re.compile(r"^\s*exitcode\s*:\s*(-?\d+)")

# Raw trigger for the fast byte scan: a line matching none of these is never parsed unless it sits
# inside an open traceback. Lower-cased words are matched case-sensitively as written in logs.
TRIGGER = re.compile(
    rb"Traceback \(most|File \"|Error|Exception|error:|Assertion|nan\b|NaN|NAN\b|inf\b|Infinity|Killed|SIG[A-Z]{3,4}"
    rb"|exitcode|exit status|return code|OVERFLOW|Overflow|loss scale|Watchdog|NCCL|nccl|CUDA error"
    rb"|out of memory|requires_grad|tokenization mismatch|Warning: |Segmentation|core dumped|Root Cause|killed|Killing subprocess"
    rb"|Bus error|Floating point exception|Aborted|Fatal Python error|terminate called|size mismatch for"
    rb"|undefined symbol|Failed to import|Exit code: |The actor |Received signal |IOT instruction|Check failure stack"
    rb"|free\(\): |double free or corruption|munmap_chunk\(\): |malloc\(\): |realloc\(\): |corrupted size vs"
    rb"|corrupted double-linked|malloc_consolidate\(\): |Check failed: |Begin stack trace |Failed to connect to GCS|raylet exited|terminated by signal|Process finished with exit code"
    rb"|Loss is |non-finite loss|gradients at all steps are invalid|dumped core\.|FAILED |= FAILURES =|= ERRORS ="
    rb"|Failed to validate prompt|prompt_outputs_failed_validation|\(total: "
    # zsh's job table names the signal in lower case, padded to its column ("[1]    15017 bus error  python3 x.py")
    rb"|failed assertion `|errored: |killing sweep|\(failed |abort  |bus error  |segmentation fault  |trace trap  |illegal hardware instruction|floating point exception"
    rb"|" + "进程已结束".encode() + "|发生异常: ".encode()
    # module-qualified exception types whose name has no Error/Exception suffix (records.QUALIFIED_TYPE)
    + rb"|ArrowInvalid: |EnforceNotMet: |BrokenProcessPool: "
    + rb"|File /|File ~/|File \[/|CUDA SETUP: Problem|most recent call first|<ipython-input-"
    rb"|ERROR|CRITICAL|FATAL"  # a logger's error-level record
    rb"|Terminated|CANCELLED AT |error code is |zsh: |exceeded memory limit|exited with code |errored trials"
    rb"|status failed cmd|command error|can't cd to|can't open |cannot open |cannot create |Syntax error: "
    rb"|An error occurred in MPI_|Weights only load failed|atchdog thread terminated"
    rb"|Worker crashed during|Windows fatal exception|Failed - |MaxRuntimeExceeded|non-zero status of|\.py in "
    rb"|make: |make\[|nvcc fatal|ERROR\] |Assertion failed: |failed, log is in|job failed, log|have died|restarting kernel|kernel process died"
    rb"|frame #|: in "  # a C++ backtrace's frames, pytest's ("trainer.py:768: in fit")
    # a loss of exactly zero, never every metric line whose loss starts with "0." (a hot path)
    rb"|loss': 0\.0,|loss': 0\.0\}|loss': 0,|loss': 0\}|loss\": 0\.0,|loss\": 0\.0\}|loss\": 0,|loss\": 0\}"
    rb"|train_loss|avr_loss=0\]|avr_loss=0\.0\]"
    rb"|" + "│ ".encode()  # a rich box's row: a frame naming its file, a wrapped path's tail
    + "|核心已转储|段错误|已放弃|总线错误|非法指令|浮点数例外|已终止|已杀死".encode()  # signal notices in a zh_CN locale
)
