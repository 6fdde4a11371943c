"""The error kind's one-line shapes: failures a line states with no exception line of its own (a
CUDA kernel's assert, a native build that failed, glibc's heap checks, a job runner's notice, ...).

standaloneshapes.STANDALONE tries them as its "error" kind. elect.py names four of them (BUILD_ERROR,
GLIBC_HEAP, HYDRA_JOB, STATED_FAILED): each says where or that a failure happened, not what, so what
follows it is elected first.

Pattern-writing rules (STYLE.md point 5): anchor where the printer anchors, match stable text, never
numbers or paths; a pattern that is not obvious says which program prints it.
"""
from . import rx

# a native extension that does not build (DeepSpeed ops, flash-attn, apex at install or JIT load): the
# compiler's "csrc/adam/cpu_adam.cpp:5:10: fatal error: cuda_runtime.h: No such file or directory",
# setuptools' "error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1" (pip indents the
# build's output; a CI runner stamps each line). It says what the build lacked; the exception that
# follows (torch's "Error building extension 'cpu_adam'") says which op, and is elected first.
# Hydra's notice that the @hydra.main job raised ("Error executing job with overrides: ['trainer.n_gpus=8',
# ...]"): a failure when the paste stops there, else the traceback it prints next says what failed. Hydra
# refusing a command-line override before the job runs ("Error merging override +a.j=2", then the reason)
# ends the run as well.
HYDRA_JOB = rx.compile(r"^Error executing job with overrides: \[|^Error merging override \S")
BUILD_ERROR = rx.compile(
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
GLIBC_HEAP = rx.compile(
    r"^\*\*\* Error in `[^`]{1,300}': .{1,200}: 0x[0-9a-f]{4,16} \*\*\*"
    r"|^(?:free\(\): (?:invalid (?:pointer|size|next size \((?:fast|normal)\))|double free detected in tcache 2)"
    r"|double free or corruption \((?:top|out|!prev|fasttop)\)|munmap_chunk\(\): invalid pointer"
    r"|realloc\(\): invalid (?:pointer|old size|next size)|malloc\(\): (?:memory corruption|corrupted top size"
    r"|unaligned tcache chunk detected|unsorted double linked list corrupted)|corrupted size vs\. prev_size"
    r"|corrupted double-linked list|malloc_consolidate\(\): invalid chunk size)\s*$"
)

# a job, a service or a step saying in a sentence of its own that it failed, the whole line ("Job failed:
# {'job_id': 3459, 'status': 'FAILED', ...}" from Lamini's client, "Finetune is failed" from Refact's before
# its exception, "Service started failed." from a ComfyUI node): that, not what; glog's "Check failed:" and
# the BSD "Assertion failed:" have shapes of their own
STATED_FAILED = rx.compile(r"^(?:> )?(?!Check |Assertion )[A-Z][a-z]{1,20}(?: [a-z]{1,20}){0,3} (?:failed|FAILED)(?:[.!]?\s*$|: \S)")

# failures stated on one line, with no exception line of their own: a CUDA kernel's assert
# (`...Loss.cu:250: ...: block: [0,0,0] ... Assertion `t >= 0` failed.`), a state dict whose tensors
# do not fit (`size mismatch for x: copying a param with shape ...`, the header may be cut off),
# a native library that cannot load (`undefined symbol:`), transformers' lazy import failing
ERROR_LINE = rx.compile(
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
    # an OpenAI-compatible server's error answer (vLLM's and FastChat's ErrorResponse, printed as JSON
    # or a dict's repr: "{'object': 'error', 'message': 'Internal Server Error', 'code': 50001}")
    r"""|['"]object['"]: ?['"]error['"], ?['"]message['"]: ?"""
    # a C library's function naming what it could not do (llama.cpp's "clip_model_load: failed to load
    # vision model tensors"), and STATED_FAILED
    r"|\b[a-z][a-z0-9_]{2,40}: failed to (?:load|open|read|allocate|initiali[sz]e|create|map|mmap) "
    r"|" + STATED_FAILED.pattern + r"|^\[(?:CUDA|cuBLAS|CUBLAS|cuDNN|CUDNN|NCCL) ERROR\] |^Assertion failed: \(.{1,300}\), function \S{1,200}, file \S{1,300}, line \d"
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
    # ggml's assert before it aborts (llama.cpp, Ollama's runner: ".../ggml.c:2718: GGML_ASSERT(ggml_nelements(a) ==
    # ne0*ne1*ne2) failed", intel/ipex-llm#12707)
    r"|\bGGML_ASSERT\(.{1,300}\) failed"
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
    # VS Code's notebook when its kernel process died (vscode-jupyter, older releases "in the the current cell")
    r"|The Kernel crashed while executing code in the (?:the )?current cell"
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
)
# the same kind's shapes that hold no literal of MIN_LITERAL bytes, kept apart so the literal
# prefilter (standalone.StandaloneFilter) can skip the first part: a CANN error report led by its
# code ("EZ9999: Inner Error!"), glog's and absl's F-severity record ("F0522 14:58:03.803087 32152
# Vector.h:139] Check failed: ...")
ERROR_LINE_NO_LITERAL = rx.compile(
    r"^E[A-Z0-9]\d{4}: \S|^F\d{4} \d\d:\d\d:\d\d\.\d{6} {1,8}\d{1,9} [\w./-]{1,200}:\d{1,7}\] \S"
)
