"""The one-line shapes that are incidents on their own, by kind, in the order they are tried
(standalone.standalone_kind): NCCL's watchdog, a death by signal, a launcher's notice of a failed
child, a metric gone non-finite, a failure stated on one line (errorshapes.py), a logged error, a
warning. A shape added here needs a word of it in patterns.TRIGGER, or the scan never hands its
line over.

Pattern-writing rules (STYLE.md point 5): anchor where the printer anchors, match stable text, never
numbers or paths; a pattern that is not obvious says which program prints it.
"""

from . import rx
from .errorshapes import ERROR_LINE, ERROR_LINE_NO_LITERAL
from .patterns import LIBCXXABI

# an IDE's run console when the process ended, in English and zh_CN (PyCharm: "Process finished with exit
# code 1", "进程已结束,退出代码-1073740940 (0xC0000374)"); the code follows
_IDE_EXIT = r"^(?:Process finished with exit code|进程已结束[,，]\s{0,4}退出代码为?)\s{0,4}"
# torch.distributed ProcessGroupNCCL watchdog and friends: a line of its own, or inside a rank's
# exception (elect.py: the SIGABRT after either is its aftermath)
NCCL = rx.compile(
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

# kind -> pattern searched in the cleaned line
STANDALONE = [
    ("nccl", NCCL),
    # a process that died by a signal: torchrun's "exitcode: -N" and ChildFailedError block, DeepSpeed's
    # "return code = -N", mp.spawn's "terminated with signal", the shell's and libc's own notices, the
    # kernel OOM killer. The signal number decides which failure it is (-9 host OOM, -7 SIGBUS, ...).
    ("signal", rx.compile(
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
        # macOS's C++ runtime aborting on an uncaught exception (LLVM libc++abi: "libc++abi: terminating due to
        # uncaught exception of type std::runtime_error: ..."); Go's exec naming a child killed by SIGKILL
        # (Ollama: "llama runner process has terminated: signal: killed"); 128 + 9 as an exit status (docker,
        # kubectl, CI runners); gunicorn's arbiter killing a worker ("Worker (pid:41) was sent SIGKILL!")
        r"|" + LIBCXXABI.pattern + r"|\bsignal: killed\b"
        r"|\bexit (?:code|status) 137\b|\bWorker \(pid:\d{1,10}\) was sent SIGKILL!"
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
        # a native crash handler's stack, of which a paste may keep only the tail: LLVM's and ROCm's
        # ("#94 0x00007ffba032560e (E:\Program Files\Python312\python312.dll+0x6560e)"), gdb's ("#0  0x00007ffff7a42428 in raise ()")
        r"|^#\d{1,4} {1,3}0x00007f[0-9a-f]{6,10} (?:\(|in )"
        # glibc's backtrace_symbols, which crash handlers print frame by frame ("/usr/lib/x86_64-linux-gnu/
        # libstdc++.so.6(+0xaa37c) [0x7f82978cf37c]", behind a Ray actor's prefix: alibaba/ChatLearn#175)
        r"|(?:^|\s)/[^\s()]{1,400}\.so(?:\.\d{1,4}){0,3}\([\w@.]{0,200}\+0x[0-9a-f]{1,16}\) ?\[0x[0-9a-f]{4,16}\]"
    )),
    # launchers reporting that a child failed (cascade unless nothing else explains it)
    ("launcher", rx.compile(
        r"Sending process \d+ closing signal SIG\w+|failed \(exitcode: -?\d+\) local_rank"
        r"|exits with return code|returned non-zero exit status|Received (?:Signals\.)?SIG(?:TERM|INT) death signal"
        r"|Killing subprocess \d+|^Exit code: [1-9]\d*\s*$"  # ColossalAI's launcher after a failed torchrun
        r"|^\s*exitcode\s*:\s*[1-9]\d*\s+\(pid: "  # torchrun's Failures block: a rank that exited with an error
        # the same block's last line, which a paste may keep alone (torch.distributed.elastic's error summary)
        r"|^\s*traceback\s*: To enable traceback see: https://pytorch\.org/docs/stable/elastic/errors\.html"
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
    ("metric", rx.compile(
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
        # BigDL's DistriOptimizer ("... Throughput is 447.2 records/second. Loss is Infinity. Current learning rate")
        r"|(?:^|\. )Loss is (?:nan|NaN|-?inf|-?Infinity)\b|non-finite loss, ending training|The gradients at all steps are invalid in this epoch"
        r"|(?:OVERFLOW!|[Oo]verflow).{0,300}?reducing (?:loss scale )?to (?:[0-8](?:\.0+)?|0\.\d+|\d(?:\.\d+)?e-\d+)\s*$"
        # a non-zero count of NaNs found in activations or gradients (Fast-LLM's tensor-parallel check:
        # "MISMATCH layer 0 fw 31,297,822 / 33,554,432 [31,297,822 nans detected locally]")
        r"|\b[1-9][\d,]{0,20} (?:[Nn]a[Nn]s?|NANS?) detected\b"
    )),
    # failures stated on one line, with no exception line of their own (errorshapes.py); the shapes that
    # hold no literal of MIN_LITERAL bytes apart, so that the literal prefilter can skip the first
    ("error", ERROR_LINE),
    ("error", ERROR_LINE_NO_LITERAL),
    # a logger's error-level record with no exception in it ("[ERROR:swift] There are errors in the
    # dataset", vLLM's "ERROR 09-20 19:54:33 [core.py:398] EngineCore encountered a fatal error.",
    # loguru's "| ERROR    | ...", logging's "ERROR:name:msg" and "- ERROR -", behind a container's
    # time stamp): the run says it failed without saying how. glog's E-lines are left out (torchrun
    # prints benign ones), and so is pip's resolver notice, which heads many notebook logs of runs that
    # went on fine.
    ("logged", rx.compile(
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
    ("warning", rx.compile(
        r"""['"](?:train_)?loss['"]\s*:\s*0(?:\.0+)?\s*[,}]|^\s*train_loss\s{0,40}=\s{0,40}0(?:\.0+)?\s*$"""
        r"|[\s,(]avr_loss=0(?:\.0+)?\]"
    )),
    ("warning", rx.compile(
        r"None of the inputs have requires_grad=True|\bOVERFLOW!|Gradient overflow\.\s+Skipping step"
        r"|Attempted loss scale: \S+, reducing to|\b[A-Z]\w*Warning: "
    )),
    # LLaVA/FastChat-style preprocessing that masked a whole sample (llava-tokenization-mismatch):
    # "WARNING: tokenization mismatch: 55 vs. 54. (ignored)", loguru's "- tokenization mismatch: 1 vs. 81."
    ("warning", rx.compile(r"\btokenization mismatch:? \d{1,7} vs\.? \d{1,7}|WARNING: tokenization mismatch\b")),
]
