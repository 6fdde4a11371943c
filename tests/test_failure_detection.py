"""A failure is found without the KB, and the cascade never wins over it (issue 13, parts 2, 3, 5, 6).

Inputs are real logs: KB fixtures and unknown fixtures, whole or re-encoded, and the cascade lines
real runs print after them."""
import codecs
from pathlib import Path

import pytest

from vlkb.analyzer import defining
from vlkb.analyzer.lead import library_of, search_terms
from vlkb.kb import fixtures as fx
from vlkb.kb.loader import shipped_dir

UNKNOWN = sorted(fx.unknown_dir().glob("*.log"))
ROOT_FIELD = Path(__file__).resolve().parent.parent / "data" / "corpus" / "field" / "cases"
NCCL = fx.parse(shipped_dir() / "nccl-timeout" / "nccl-timeout.pos-llamafactory-reduce-scatter.log")
ZERO = fx.parse(shipped_dir() / "zero-grad-reduced-twice" / "zero-grad-reduced-twice.pos-ms-swift-dpo-minicpmv.log")
SIGKILL = fx.parse(shipped_dir() / "host-oom-sigkill" / "host-oom-sigkill.pos-minicpmv-lora-killed.log")
# what torchrun prints for the other ranks once one failed (torch/distributed/elastic/multiprocessing/api.py)
SIGTERM = "W1206 18:44:13.000000 140 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2607 closing signal SIGTERM"


def _write(tmp_path, name, text, encoding="utf-8", bom=b""):
    path = tmp_path / name
    path.write_bytes(bom + text.encode(encoding))
    return path


@pytest.mark.parametrize("log", UNKNOWN, ids=lambda p: p.name)
def test_an_unknown_failure_stays_the_root_before_an_nccl_cascade(engine, tmp_path, log):
    """The first real failure is unrecognised: the answer is unknown with it as the root, not the
    watchdog timeouts and SIGTERM notices that followed it."""
    alone = engine.diagnose([str(_write(tmp_path, "alone.log", fx.parse(log).text))])
    text = fx.parse(log).text + NCCL.text + "\n" + SIGTERM + "\n"
    d = engine.diagnose([str(_write(tmp_path, "cascade.log", text))])
    assert d.verdict == "unknown", [(s.entry.id, s.confidence) for s in d.matches]
    assert d.root.summary == alone.root.summary
    assert all(s.entry.id != "nccl-timeout" for s in d.matches)


def test_a_launchers_own_failure_is_not_its_cascade(engine, tmp_path):
    """`accelerate launch` without a config fails in its own frames (AttributeError on None.lower(),
    huggingface/diffusers#125): that is the root, not a child's exit the launcher reports, so an NCCL
    timeout after it never wins."""
    text = (ROOT_FIELD / "diffusers-125.log").read_text(encoding="utf-8").rstrip("\n") + "\n" + NCCL.text
    d = engine.diagnose([str(_write(tmp_path, "launch.log", text))])
    assert d.root.exception == "AttributeError" and not d.root.cascade
    assert all(s.entry.id != "nccl-timeout" for s in d.matches if s.confidence >= d.threshold)



def test_a_wrappers_report_of_a_childs_exit_is_its_cascade(engine):
    """DeepSpeed-Chat's train.py runs each step as a child and raises `RuntimeError: Step 2 exited with
    non-zero status 247` once the deepspeed launcher logged `exits with return code = -9` (DeepSpeed#3261):
    the wrapper's exception reports the child's death, so the kill line is the root."""
    d = engine.diagnose([str(ROOT_FIELD / "DeepSpeed-3261.log")])
    assert d.root.first.text.startswith("exits with return code = -9")
    assert d.verdict == "known" and d.matches[0].entry.id == "host-oom-sigkill"
    wrapper = [inc for inc in d.incidents if inc.exception == "RuntimeError"]
    assert wrapper and all(inc.cascade for inc in wrapper)


def test_a_traceback_cut_inside_runpy_is_not_a_launchers_report(engine, tmp_path):
    """`python -m axolotl.cli.train` cut right after its runpy frames (axolotl#1092): runpy is the entry
    of any `python -m` run, so the cut traceback stays the root before an NCCL timeout after it."""
    text = (ROOT_FIELD / "axolotl-1092.log").read_text(encoding="utf-8").rstrip("\n") + "\n" + NCCL.text
    d = engine.diagnose([str(_write(tmp_path, "runpy.log", text))])
    assert d.root.kind == "traceback" and not d.root.cascade and d.verdict == "unknown"


def test_an_nccl_timeout_is_named_when_nothing_failed_first(engine, tmp_path):
    d = engine.diagnose([str(_write(tmp_path, "t.log", NCCL.text + SIGTERM + "\n"))])
    assert d.verdict == "known" and d.matches[0].entry.id == "nccl-timeout"


@pytest.mark.parametrize("encoding,bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE),
                                          ("utf-32-le", codecs.BOM_UTF32_LE)])
def test_wide_encodings_with_a_bom_read_as_utf8(engine, tmp_path, encoding, bom):
    """PowerShell's `>` writes UTF-16 LE with a BOM; the diagnosis and line numbers are unchanged."""
    plain = engine.diagnose([str(_write(tmp_path, "u8.log", ZERO.text))])
    wide = engine.diagnose([str(_write(tmp_path, "wide.log", ZERO.text, encoding, bom))])
    assert (wide.verdict, wide.matches[0].entry.id) == (plain.verdict, plain.matches[0].entry.id)
    assert wide.root.first.lineno == plain.root.first.lineno
    assert any(encoding.upper() in note for note in wide.stats.notes)


@pytest.mark.parametrize("line", [
    # each printed by a real run: torchrun, a CUDA kernel, torch's load_state_dict, libc
    "failed (exitcode: -7) local_rank: 0 (pid: 1235) of binary: /usr/bin/python",
    "/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
    "thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.",
    "\tsize mismatch for lm_head.weight: copying a param with shape torch.Size([32101, 768]) from checkpoint, "
    "the shape in current model is torch.Size([32128, 768]).",
    "Segmentation fault (core dumped)",
    "Bus error (core dumped)",
    "Floating point exception (core dumped)",
    # a logger's error record without an exception (Trinity-RFT, field case trinityrft-309)
    "ERROR 10-05 14:02:14 [launcher.py:124] Explorer or Trainer failed:",
    # SLURM ending a job and srun's notice of its tasks (labsyspharm/mcmicro#163, desihub/desitarget#628)
    "slurmstepd: error: *** JOB 13055114 ON compute-h-17-51 CANCELLED AT 2020-07-11T22:48:26 DUE TO TIME LIMIT ***",
    "srun: error: nid01934: tasks 2,4-5,7: Terminated",
    # bash's notice of a job ended by SIGTERM (a public build script's log)
    "./build_image.sh: line 171: 14815 Terminated              python3 -m http.server",
    # a native extension that does not build: the compiler, its command line, setuptools behind a CI
    # runner's time stamp (deepspeedai/DeepSpeed#2684, erikwijmans/Pointnet2_PyTorch#181, DeepSpeed#5653)
    "/opt/conda/envs/bitten/lib/python3.8/site-packages/torch/include/ATen/cuda/CUDAContext.h:10:10: fatal error: "
    "cusolverDn.h: No such file or directory",
    "      <command-line>: fatal error: cuda_runtime.h: No such file or directory",
    "2024-06-12T22:49:08.2182741Z   error: command '/home/conda/feedstock_root/build_artifacts/deepspeed_1718232254780"
    "/_build_env/bin/x86_64-conda-linux-gnu-cc' failed with exit code 1",
    # torch_npu's NPU_CHECK_ERROR with no RuntimeError line (hiyouga/LlamaFactory#975)
    "npuSynchronizeDevice:/usr1/02/workspace/j_vqN6BFvg/pytorch/torch_npu/csrc/core/npu/NPUStream.cpp:370 NPU error, "
    "error code is 107020.",
    # Hydra's notice that the @hydra.main job raised, the paste cut before the traceback (verl-project/verl#2592)
    "Error executing job with overrides: ['algorithm.adv_estimator=grpo', 'trainer.n_gpus_per_node=8']",
    # schedulers and containers ending the job: SLURM over its memory limit (heronsystems/adeptRL#13),
    # docker compose (YanWenKun/ComfyUI-Docker#68), Ray's raylet, wrapped and with syslog's "#033"
    # escapes (vllm-project/vllm#1160), Ray Tune's summaries (ray-project/ray#14156, #28196)
    "slurmstepd: Job 1171978 exceeded memory limit (18202456 > 16384000), being killed",
    "comfyui-1 exited with code 139",
    "#033[2m#033[33m(raylet)#033[0m [DATE] (raylet) node_manager.cc:3007: 2 Workers (tasks /\n"
    " actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: abd406d415bd2b74a5",
    "Number of errored trials: 1",
    "Number of trials: 10/10 (2 ERROR, 3 RUNNING, 5 TERMINATED)",
    # NCCL's trace of a call that returned an error (espnet/espnet#1940)
    "tj1-asr-train-v100-13:941227:943077 [0] NCCL INFO bootstrap.cc:100 -> 2",
    # zsh's notice of a job that aborted (karpathy/llm.c#74)
    "zsh: abort      python train_gpt2.py",
    # Paddle's launcher (PaddlePaddle/Paddle#47326): its ERROR record and the container that failed
    "LAUNCH ERROR 2022-10-25 15:17:31,067 Container failed !!!",
    "Container rank 0 status failed cmd ['/usr/bin/python3.8', '-u', 'train.py'] code -6 log log/default.fpwuxo.0.log",
    # xtuner's CLI at WARNING level (InternLM/Tutorial#727), dash failing a script's cd (PRBonn/LiDAR-MOS#10)
    "05/30 18:04:29 - mmengine - WARNING - WARNING: command error: '[Errno 2] No such file or directory: "
    "'/root/autodl-tmp/ft/data/cutlass/CHANGELOG.md''!",
    "./train.sh: 4: cd: can't cd to path/to/kitti",
    # a build that failed: nvcc, the linker, make (karpathy/llm.c#359, #805); llm.c's CUDA check macro (#63)
    'train_gpt2.cu(215): error: no instance of overloaded function "atomicAdd" matches the argument list',
    "collect2: error: ld returned 1 exit status",
    "make: *** [Makefile:277: train_gpt2fp32cu] Error 255",
    "[CUDA ERROR] at file train_gpt2.cu:341:",
    # Kaldi/ESPnet's job runner (espnet/espnet#4809), the BSD/macOS assert (drawthingsai/draw-things-community#114)
    "run.pl: 32 / 32 failed, log is in exp/lm_stats_en_bpe30/logdir/stats.*.log",
    "Assertion failed: (input_size == 3), function _ccv_nnc_swish_mul_back, file ccv_nnc_swish_mul_mps.m, line 130.",
    # a notebook's kernel died under the run (mrdbourke/m1-machine-learning-test#17, microsoft/vscode-jupyter#13591)
    "The kernel for Untitled.ipynb appears to have died. It will restart automatically.",
    "17:03:43.114 [error] Disposing session as kernel process died ExitCode: undefined, Reason: 0.00s - Debugger warning: "
    "It seems that frozen modules are being used, which may",
    # nanoGPT's print of a nan loss (karpathy/nanoGPT#215, a Markdown quote of the paste)
    "> 2023-03-22 09:32:52 iter 3010: loss nan, time 1019.95ms, mfu 14.12%",
    # cloud consoles: SageMaker's training toolkit and job status (aws/sagemaker-python-sdk#1722),
    # AI Platform's replica notice (tensorflow/models#6912)
    "> 2020-07-17 08:45:46,383 sagemaker-training-toolkit ERROR    ExecuteUserScriptError:",
    "> 2020-07-17 08:45:54 Failed - Training job failed",
    "The replica worker 0 exited with a non-zero status of 1. Termination reason: Error.",
    # zh_CN shells and glibc (Jittor/jittor#444); RLlib when a rollout worker died (ray-project/ray#24955)
    "已放弃 (核心已转储)",
    "`(DQNTrainer pid=12200) 2022-06-10 14:14:38,704  WARNING trainer.py:546 -- Worker crashed during call to "
    "`step_attempt()`. To try to continue training without failed worker(s), set `ignore_worker_fa",
    # glibc's heap checks: the old report (bindog/pytorch-model-parallel#1, facebookresearch/Detectron#380)
    # and the bare message, then zsh's job table (NVlabs/FoundationPose#63)
    "*** Error in `/opt/conda/bin/python': double free or corruption (fasttop): 0x00007f0018011960 ***",
    "*** Error in `python2': munmap_chunk(): invalid pointer: 0x00007f97800e7d10 ***",
    "free(): invalid pointer",
    "[1]    21958 IOT instruction  python bundlesdf/run_nerf.py --ref_view_dir",
    # glog's fatal check (PaddlePaddle/Paddle#10830, chuanqi305/MobileNet-SSD#180), absl's banner
    # (pytorch/xla#7138), TensorFlow's failure handler (DeepLabCut/DeepLabCut#1970)
    "F0522 14:58:03.803087 32152 Vector.h:139] Check failed: start + size <= static_cast<size_t>(getSize()) (482 vs. 474) ",
    "*** Check failure stack trace: ***",
    "*** Received signal 11 ***",
    # a failed check inside a TensorFlow/XLA status and TensorFlow's stack banner (pytorch/xla#2627, cut at its start)
    "xception in device=TPU:3: tensorflow/compiler/xla/xla_client/xrt_computation_client.cc:245 : Check failed: "
    "default_device_target != options_.global_device_map.end() ",
    "*** Begin stack trace ***",
    # torchrun's failure table behind SkyPilot's per-node prefix (skypilot-org/skypilot#2355)
    "(worker1, rank=1, pid=22249, ip=10.31.0.9)   exitcode  : 1 (pid: 22640)",
    # a notebook's traceback header copied without its padding, cut after the arrow (Lightning-AI/pytorch-lightning#3311)
    "ExceptionTraceback (most recent call last)",
    # the AWS Neuron runtime's error record (aws-neuron/aws-neuron-parallelcluster-samples#25)
    "2024-Jan-11 19:01:15.502435 18506:21252 ERROR   ENC:configure_net_connector                 [rank 0, channel 0] "
    "failed to register channel buffer, addr: 0x0x7fd881000000, len: 50331648",
    # an IDE's console after a crash, in English and zh_CN (WongKinYiu/PyTorch_YOLOv4#72, bubbliiiing/mask-rcnn-tf2#2)
    "Process finished with exit code -1073740791 (0xC0000409)",
    "进程已结束,退出代码-1073740940 (0xC0000374)",
    # named loss terms gone nan (HAST#3), ESPnet's trainer giving up on an epoch (espnet/espnet#3630),
    # the fish shell's notice (KishanBagaria/AirDoS#2)
    "2023-10-11 08:22:25,695 INFO: [Epoch 5/151] [Batch 200/200] [acc: 94.8750%] [loss KL: nan] [loss FA: nan] "
    "[loss perturbed KL: nan] [loss perturbed FA: nan] ",
    "(trainer:404) WARNING: The gradients at all steps are invalid in this epoch. Something seems wrong. This "
    "training was stopped at 2epoch",
    "fish: 'python3 AirDoS.py' terminated by signal SIGABRT (Abort)",
    # Ray's C++ log at error level (ray-project/ray#28372, #24361), behind its process name and indented
    "[2022-09-08 17:15:36,340 E 46829 46829] gcs_rpc_client.h:202: Failed to connect to GCS at address "
    "10.90.95.155:6379 within 5 seconds.",
    "  [2022-05-17 11:03:58,975 E 14628 12592] (raylet.exe) agent_manager.cc:107: The raylet exited immediately "
    "because the Ray agent failed.",
    # pytest's report behind Buildkite's bracketed stamp (vllm-project/vllm#34700), its banner (#43086);
    # vLLM's error record behind the same stamp (vllm-project/vllm#6999); systemd-coredump (systemd/systemd#2449)
    "[2026-02-17T08:12:14Z] FAILED v1/e2e/test_spec_decode.py::test_ngram_and_suffix_correctness[speculative_config1] "
    "- assert 53 >= 66",
    "=========================================================================== FAILURES "
    "===========================================================================",
    "[2024-08-09T08:48:57Z] ERROR 08-09 08:48:57 async_llm_engine.py:61] Engine background task failed",
    "Process 7744 (journalctl) of user 0 dumped core.",
    # ComfyUI rejecting a workflow, its ERROR record shown bare (Comfy-Org/ComfyUI#1090)
    "Failed to validate prompt for output 448:",
    # zsh's job table in lower case (karpathy/llm.c#35); W&B's sweep agent on a run that raised (wandb/wandb#4628)
    "[1]    15017 bus error  python3 train_gpt2.py",
    "wandb: ERROR Run 0jbbwa4t errored: IndexError('list index out of range')",
    "Waiting for W&B process to finish... (failed 1). Press Control-C to abort syncing.",
    # Metal Performance Shaders asserting under torch's MPS backend, glued to a tqdm bar (THU-MIG/yolov10#305)
    "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95):   0%|          | 0/19 "
    "[00:00<?, ?it/s]/AppleInternal/Library/BuildRoots/91a344b1-f985-11ee-b563-fe8bc7981bff/Library/Caches/com.apple.xbs/"
    "Sources/MetalPerformanceShaders/MPSNDArray/Kernels/MPSNDArrayGatherND.mm:256: failed assertion `Rank of updates "
    "array (1) must be greater than or equal to inner-most dimension of indices array (300)'",
    # a bare assert's exception alone, its traceback lost (ColossalAI Gemini's `assert grad_chunk.l2_norm
    # is not None` ends so), also behind a rank prefix; an exception group (davidbrochart/anycorn#89)
    "AssertionError",
    "[rank1]: AssertionError",
    "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
    # a loss printed as a tensor (vincrichard/EfficientPS#5)
    "'loss_rpn_loc': tensor(nan, device='cuda:0', grad_fn=<MulBackward0>)",
    # the kernel assert of the first line above, cut inside its condition by a paste or a line limit
    "/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
    "thread: [3,0,0] Assertion `t >= 0 && t < n_cl",
    # a capitalised loss gone nan (cchen156/Learning-to-See-in-the-Dark#117); nvcc refusing the GPU's
    # architecture while a LoRA trainer JIT-builds its kernels (FlyMyAI/flymyai-lora-trainer#54)
    "333 154 Loss=nan Time=0.040",
    "nvcc fatal   : Unsupported gpu architecture 'compute_89'",
    # the NCCL watchdog's report of the work that timed out, alone (deepseek-ai/DeepEP#106); Open MPI's fatal
    # banner (NVIDIA-NeMo/Megatron-Bridge#650); Triton's LLVM failing (AssemblyAI-Community/MinImagen#16);
    # bitsandbytes' CUDA check (bitsandbytes-foundation/bitsandbytes#198); a c10 internal assert whose
    # RuntimeError line was not pasted (unslothai/unsloth#1819)
    "[rank1]:[E ProcessGroupNCCL.cpp:1540] [PG 1 Rank 1] Timeout at NCCL work: 7, last enqueued NCCL work: 8, last "
    "completed NCCL work: 6.",
    "*** An error occurred in MPI_Init_thread",
    "LLVM ERROR: Failed to infer result type(s).",
    "Error named symbol not found at line 508 in file /home/ubuntu/test/bitsandbytes/csrc/ops.cu",
    '!handles_.at(i) INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":393, please report a bug to PyTorch.',
    # llama.cpp's export-lora giving up in lower case (field case llamacpp-3547, ggml-org/llama.cpp#3547)
    "error: unexpectedly reached end of file",
    # the NCCL watchdog's end cut before its reason (hiyouga/LlamaFactory#8261), and inside c10's what()
    # wrapped across lines (huggingface/open-r1#620)
    "[rank4]:[E602 11:18:52.536602063 ProcessGroupNCCL.cpp:1896] [PG ID 1 PG GUID 1 Rank 4] Process group watchdog "
    "thread terminated with exception: [Rank 4] Watchdog",
    "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: "
    "[Rank 3] Watchdog caught colle",
    # nccl-tests' check macro (NVIDIA/nccl-tests#5)
    "NCCL failure all_reduce.cu:95 'unhandled cuda error'",
    # a kernel assert whose final period the paste lost (InternLM/xtuner#997)
    'Assertion `idx_dim >= 0 && idx_dim < index_size && "index out of bounds"` failed',
    # a ComfyUI node that raised (Comfy-Org/ComfyUI#12277)
    "!!! Exception during processing !!! 'Florence2LanguageConfig' object has no attribute 'forced_bos_token_id'",
    # fish's kill notice glued to a progress bar, the signal's name cut after the quoted command (field case
    # lerobot-755, huggingface/lerobot#755)
    "Stepping through eval batches:   0%|          | 0/1 [00:00<?, ?it/s]fish: Job 1, 'python lerobot/scripts/"
    "train.py…' terminated by signal     --policy.type=act \\ (    --da",
    # pip giving up on a build (NVIDIA/NeMo-Aligner#342)
    "  error: subprocess-exited-with-error",
    # vLLM's engine core inside a Ray actor: two process prefixes before the error record (NovaSky-AI/SkyRL#1398)
    "(AsyncVLLMInferenceEngine pid=597306) (EngineCore_DP2 pid=598582) ERROR 03-26 20:21:53 [core.py:1299] "
    "Invocation of collective_rpc method failed",
    # vLLM's sleep-mode allocator check macro (csrc/cumem_allocator.cpp: "CUDA Error: %s at %s:%d")
    "CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62",
    # a module-qualified exception type without an Error suffix (PaddlePaddle/Paddle#10608)
    "paddle.fluid.core.EnforceNotMet: unhandled cuda error at [/workspace/agent/work/62dea99fa81a5ba4/paddle/"
    "fluid/platform/nccl_helper.h:93]",
    # VS Code's debugger stopped on the exception (huggingface/diffusers#3405)
    "Exception has occurred: AssertionError",
    # a Ray actor whose __init__ raised, vLLM's engine in OpenRLHF (OpenRLHF/OpenRLHF#679)
    "(LLMRayActor pid=427151) Exception raised in creation task: The actor died because of an error raised in its "
    "creation task, ray::LLMRayActor.__init__() (pid=427151, ip=10.181.130.26, actor_id=739ab55c",
    # Hydra refusing an override before the job runs (hydra-ecosystem/hydra#1515)
    "Error merging override +a.j=2",
    # requests refusing a cloud API's answer, behind a node's own prefix (field case, Flux finetune node #9)
    "[FLUX API] Finetuning Error: 422 Client Error: Unprocessable Entity for url: https://api.bfl.ai/v1/finetune",
    # the end of faulthandler's extension-module list after a fatal error, its header cut (field case EasyR1-12)
    "aiohttp._websocket.mask, aiohttp._websocket.reader_c, frozenlist._frozenlist, sentencepiece._sentencepiece, "
    "regex._regex (total: 96)",
    # a traceback cut at both ends, each line led by a rank-only prefix (field case NeMo-8460)
    '[0]:  File "/workspace/src/3rdparty/NeMo/build/__editable__.nemo_toolkit-1.23.0rc0-py3-none-any/nemo/collections/'
    'nlp/models/nlp_model.py", line 397, in load_from_checkpoint',
    # the tail of a native crash handler's stack, its signal line cut off (field case unsloth-7922, a ROCm
    # build on Windows), and gdb's frame shape
    r"#94 0x00007ffba032560e (E:\Program Files\Python312\python312.dll+0x6560e)",
    "#0  0x00007ffff7a42428 in __GI_raise (sig=sig@entry=6) at ../sysdeps/unix/sysv/linux/raise.c:54",
    # torch elastic's failure summary cut to its last line (field case X-R1-48)
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    # vLLM's logger at error level, no traceback behind it: the level says it (public report PKU-YuanGroup/Helios#62)
    "ERROR 04-09 21:56:46 [diffusion_engine.py:82] [PID: 210907] 2026-04-09-21:56:40.384.694 "
    "Memory_Allocation_Failure(EL0004): Failed to allocate memory requested by GE module.",
    # a hosted job's, a client's and a ComfyUI node's sentence that it failed (field cases lamini-24,
    # refact's dataset-info-missing fixture, comfyuijanuspro-8)
    "Job failed: {'job_id': 3459, 'status': 'FAILED', 'start_time': '2023-09-27T12:52:33.304092', 'model_name': None}",
    "Finetune is failed",
    "Service started failed.",
    # an OpenAI-compatible server's error answer as a caught exception's repr (field case gnn4taskplan-10)
    "Failed #id 17556704: <class 'Exception'> {'object': 'error', 'message': 'Internal Server Error', 'code': 50001}",
    # llama.cpp's CLIP loader through LocalAI's debug log (field case minicpm-v-114)
    "8:31PM DBG GRPC(minicpm-v2-f16.gguf-127.0.0.1:33079): stderr clip_model_load: failed to load vision model tensors",
    # ggml's assert under Ollama's runner (field case ipex-llm-12707), glibc's backtrace_symbols frames of a
    # crash handler behind a Ray actor's prefix (field case chatlearn-175)
    "GGML_ASSERT(ggml_nelements(a) == ne0*ne1*ne2) failed",
    "(PolicyReference pid=2416, ip=10.66.164.60) /usr/lib/x86_64-linux-gnu/libstdc++.so.6(+0xaa37c) [0x7f82978cf37c]",
    # macOS's C++ runtime on an uncaught exception (ggml-org/llama.cpp#11749), Go's exec naming a SIGKILLed
    # child (Ollama's runner), kubectl's status of a SIGKILLed command, VS Code's notebook when its kernel died
    "libc++abi: terminating due to uncaught exception of type std::out_of_range: vector",
    'Ollama server error: {"error":"llama runner process has terminated: signal: killed"}',
    "command terminated with exit code 137",
    "The Kernel crashed while executing code in the current cell or a previous cell. ",
])
def test_a_visible_failure_is_never_clean(engine, tmp_path, line):
    d = engine.diagnose([str(_write(tmp_path, "one.log", "Loading checkpoint shards: 100%\n" + line + "\n"))])
    assert d.verdict in ("known", "unknown") and d.root is not None and d.root.first.lineno >= 2


@pytest.mark.parametrize("line", [
    # pip's resolver notice heads many notebook logs of runs that went on fine (huggingface/autotrain-advanced#158)
    "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. "
    "This behaviour is the source of the following dependency conflicts.",
    # a trainer that logs its set-up at CRITICAL level (field case cosmos-163, a run that did not fail)
    "[04-07 03:28:04|CRITICAL|cosmos_predict1/utils/trainer.py:136:train] Distributed parallelism mode: fsdp",
    # glog's info record has the fatal check's shape but an I (a healthy run's, field case nanotron-166)
    "I0425 17:05:53.758841  4566 ProcessGroupNCCL.cpp:686] [Rank 0] ProcessGroupNCCL initialization options:"
    "NCCL_ASYNC_ERROR_HANDLING: 1, NCCL_DESYNC_DEBUG: 0",
    # the IDE's line after a run that ended well (signal-sigabrt's PyCharm fixture has the failed form)
    "Process finished with exit code 0",
    # vLLM's logger at info level, its prefix read off (the head of a line of vllm-project/vllm#1984)
    "INFO 12-08 08:57:50 llm_engine.py:73] Initializing an LLM engine with config: model='NousResearch/Yarn-Llama-2-70b-32k',",
    # a count in parentheses after a list (a line written for this test) is not faulthandler's module list
    "Loaded datasets: alpaca, sharegpt (total: 2)",
    # an address in a healthy log's own words (a line written for this test) is not a native frame
    "model loaded at 0x00007f3a2c1d5e80 with 7241732096 parameters",
    # "failed" inside a longer sentence, a count, or a library's note of a fallback (lines written for this test)
    "Some weights of the model checkpoint failed to load and were newly initialized",
    "Tests: 12 passed, 0 failed",
    "Installing flash-attn wheel failed, building it from source instead",
    # a heading, not a raised exception
    "Error",
    "Exception",
])
def test_error_level_lines_of_healthy_runs_stay_clean(engine, tmp_path, line):
    d = engine.diagnose([str(_write(tmp_path, "ok.log", "Loading checkpoint shards: 100%\n" + line + "\n"))])
    assert d.verdict == "clean", d.root and d.root.first.text


def test_a_chain_of_causes_is_a_failure_headed_by_its_last_cause(engine):
    """An error chain the JVM or a Node app prints (LM Studio's log, field case lmstudio-bug-tracker-1347:
    "Error: Rehydrated error" carried on from an [error] line, then "- Caused By: Error: Channel Error",
    "- Caused By: Error: The model has crashed ..."): a failure, quoted by its last cause."""
    d = engine.diagnose([str(ROOT_FIELD / "lmstudio-bug-tracker-1347.log")])
    assert d.verdict == "unknown"
    assert d.root.exception == "Error" and d.root.message.startswith("The model has crashed without additional")
    assert d.root.quoted.text.startswith("- Caused By: Error: The model has crashed")
    assert [e.message.split("\n")[0] for e in d.root.chain] == [
        "Channel Error", "The model has crashed without additional information. (Exit code: 18446744072635812000)"]


def test_a_vllm_engine_cores_logged_traceback_is_read_frame_by_frame(engine, tmp_path):
    """vLLM's engine core logs a traceback one line at a time behind its logger's prefix ("ERROR 09-11
    06:29:59 [core.py:702] "), and GitHub shows its coloured process prefix without the ESC byte
    ("[1;36m(EngineCore_0 pid=399)[0;0m "): field case qwen3-reranker-0.6b-6, once called clean. Both
    are read off, so its frames are frames; with the ESC bytes in place it reads the same."""
    case = ROOT_FIELD / "qwen3-reranker-0.6b-6.log"
    d = engine.diagnose([str(case)])
    assert d.verdict == "unknown" and d.root.kind == "traceback"
    assert d.root.first.host == "EngineCore_0 pid=399"
    assert [f.func for f in d.root.frames][-3:] == ["_process_engine_step", "step", "execute_model_with_error_logging"]
    text = case.read_text(encoding="utf-8").replace("[1;36m", "\x1b[1;36m").replace("[0;0m", "\x1b[0;0m")
    escaped = engine.diagnose([str(_write(tmp_path, "esc.log", text))])
    assert [f.where for f in escaped.root.frames] == [f.where for f in d.root.frames]


def test_the_debuggers_message_line_is_quoted_and_its_frames_read(engine, tmp_path):
    """VS Code's "Exception has occurred: T" is followed by the message, then the frames, innermost first
    (huggingface/diffusers#3405 as the similar-reports index keeps it): the message line is the
    exception's line and the frames are frames, kept innermost last as every traceback's. The shape-mismatch fixture of CGCL-codes/AdvCLIP#3 is the
    same shape, its message the telling one."""
    lines = ["Exception has occurred: AssertionError", "exception: no description",
             'File "/root/autodl-tmp/diffusers_per_exp_5/train_control.py", line 122, in log_validation',
             'File "/root/autodl-tmp/diffusers_per_exp_5/train_control.py", line 1125, in main',
             'File "/root/autodl-tmp/diffusers_per_exp_5/train_control.py", line 1169, in <module>']
    d = engine.diagnose([str(_write(tmp_path, "debugger.log", "\n".join(lines) + "\n"))])
    assert (d.root.exception, d.root.message) == ("AssertionError", "exception: no description")
    assert d.root.headline.line.lineno == 2
    assert [f.func for f in d.root.frames] == ["<module>", "main", "log_validation"]  # innermost last


def test_ipython7_frames_cut_before_their_exception_are_a_failure(engine, tmp_path):
    """IPython before 8 names a frame as "path.py in func(args)" with the line on a "-->" arrow below
    (aws/sagemaker-python-sdk#1442, pasted without its banner or exception): the frames are read."""
    lines = ["~/anaconda3/envs/tensorflow_p36/lib/python3.6/site-packages/sagemaker/tensorflow/estimator.py in fit_super()",
             "    456 ",
             "    457         def fit_super():",
             "--> 458             super(TensorFlow, self).fit(inputs, wait, logs, job_name, experiment_config)",
             "    459 ",
             "    460         if run_tensorboard_locally and wait is False:",
             "",
             "~/anaconda3/envs/tensorflow_p36/lib/python3.6/site-packages/sagemaker/estimator.py in fit(self, inputs, "
             "wait, logs, job_name, experiment_config)",
             "    475         self.jobs.append(self.latest_training_job)",
             "    476         if wait:",
             "--> 477             self.latest_training_job.wait(logs=logs)"]
    d = engine.diagnose([str(_write(tmp_path, "ipython7.log", "\n".join(lines) + "\n"))])
    assert d.verdict == "unknown" and d.root.truncated
    assert [f.func for f in d.root.frames] == ["fit_super", "fit"]


@pytest.mark.parametrize("cell", ["<ipython-input-15-3d42788289b5> in <module>()", "<ipython-input-3-8d3997ec0919> in <module>"])
def test_an_ipython7_cell_frame_cut_after_its_arrow_is_a_failure(engine, tmp_path, cell):
    """The notebook cell's own frame, with or without parentheses by release, and nothing after its
    arrow (Lightning-AI/pytorch-lightning#8395)."""
    lines = [cell, "     21          callbacks=[b]", "     22          )", "---> 23         trainer.fit(client['model'])"]
    d = engine.diagnose([str(_write(tmp_path, "cell.log", "\n".join(lines) + "\n"))])
    assert d.verdict == "unknown" and d.root.truncated and d.root.frames[0].func == "<module>"


# Excerpts cut before their exception: (dev-split field case, its first line to take, lines taken)
CUT_SHAPES = {
    "thread": ("openclip-40.log", "Exception in thread Thread-5:", 2),
    "pytest": ("pykeen-930.log", "venv/venv-gpu/lib/python3.8/site-packages/pytorch_lightning/trainer/trainer.py:768: in fit", 2),
    "c10 frames": ("speech-8637.log", "frame #3: c10::cuda::ExchangeDevice(int)", 1),
    "rich, console script": ("chatglmefficienttuning-195.log", "│ /root/miniconda3/envs/ChatGLM/bin/accelerate:8 in <module>", 2),
    "rich, wrapped path": ("tpd-17.log", "[rank0]: │ ng_epoch_loop.py:302 in on_run_end", 2),
    "rich, Windows path": ("kohyass-1147.log", "│ C:\\Users\\Oliver\\Documents\\Github\\kohya_ss\\venv\\lib\\site-packages\\accelerate\\commands\\launch.py:6", 2),
    "torchrun failures block": ("videollama2-58.log", "[1]:", 6),
    "console table": ("deepseekv2-40.log", "  |   | 2024-07-26 16:07:35.024 | Traceback (most recent call last):", 3),
    # a logger's prefix that is longer on the header line than on the frames (the server's own stamp)
    "longer prefix on the header": ("sglang-2037.log", "2024-11-14T22:16:37.097121828Z 2024-11-14 22:16:37,096 - sglang - INFO - [", 2),
    # an editor's line numbers before every line, the header glued to a tqdm bar
    "editor gutter": ("axolotl-1597.log", " 2   0%|", 3),
    # the header itself cut mid-word after a tqdm bar
    "cut header": ("unsloth-1060.log", "wandb: WARNING The `run_name`", 1),
    # faulthandler's frames (innermost first, no comma before "in"), its fatal-error header cut off
    "faulthandler frames": ("treeeyed-9.log", '  File "C:', 4),
}


@pytest.mark.parametrize("shape", CUT_SHAPES)
def test_a_failure_cut_before_its_exception_is_never_clean(engine, tmp_path, shape):
    """A thread's exception header, pytest's and rich's frames, a C++ backtrace, torchrun's Failures
    block, a log console's table: each shows the run failed even when the excerpt stops before the
    exception line (the field corpus's dev split had each called clean)."""
    case, first, n = CUT_SHAPES[shape]
    lines = (ROOT_FIELD / case).read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(first))
    excerpt = "\n".join(["Loading checkpoint shards: 100%", *lines[at:at + n]]) + "\n"
    d = engine.diagnose([str(_write(tmp_path, "cut.log", excerpt))])
    assert d.verdict != "clean" and d.root is not None and d.root.first.lineno >= 2


def test_faulthandlers_frames_are_read_innermost_first_and_stay_the_dumps(engine, tmp_path):
    """faulthandler lists a thread's frames innermost first: cut from their header they are a traceback
    whose last frame is the first listed; behind "Current thread 0x... (most recent call first):" they
    are the dump's, and the fatal error above it stays the root (the signal-sigsegv fixtures)."""
    frames = ['  File "/env/torch/nn/modules/module.py", line 1747 in _call_impl',
              '  File "/plugins/tree_eyed/hrch/models/backbone.py", line 909 in forward',
              '  File "/env/torch/nn/modules/module.py", line 1736 in _wrapped_call_impl']
    d = engine.diagnose([str(_write(tmp_path, "cut.log", "\n".join(frames) + "\n"))])
    assert d.verdict == "unknown" and [f.func for f in d.root.frames] == ["_wrapped_call_impl", "forward", "_call_impl"]
    dump = ["Fatal Python error: Segmentation fault", "", "Current thread 0x00007f58548cf700 (most recent call first):",
            *frames]
    d = engine.diagnose([str(_write(tmp_path, "dump.log", "\n".join(dump) + "\n"))])
    assert d.named.entry.id == "signal-sigsegv" and not [i for i in d.incidents if i.kind == "traceback"]


def test_a_terminate_and_frames_a_fatal_signal_left_yield_to_its_notice(engine, tmp_path):
    """libc++abi's terminate (macOS) and faulthandler's frames whose header was cut come from a fatal
    signal: the notice that names it (zsh's, bash's, "Abort trap: 6") is the root, as it was before
    either was read; alone, each is still a failure."""
    terminate = "libc++abi: terminating due to uncaught exception of type std::out_of_range: vector"
    frames = '  File "/x/backbone.py", line 909 in forward\n  File "/x/train.py", line 12 in <module>'
    # a public report's record puts a traceback's header over the dump's frames (vllm-project/vllm#6783)
    headed = ('Traceback (most recent call last):\n  File "/usr/local/lib/python3.10/dist-packages/vllm/distributed/'
              'device_communicators/pynccl_wrapper.py", line 257 in ncclAllReduce\n'
              "(RayWorkerWrapper pid=24036) Fatal Python error: Segmentation fault\n")
    assert engine.diagnose([str(_write(tmp_path, "headed.log", headed))]).named.entry.id == "signal-sigsegv"
    for first in (terminate, frames):
        d = engine.diagnose([str(_write(tmp_path, "abort.log", first + "\n\nAbort trap: 6\n"))])
        assert d.named.entry.id == "signal-sigabrt" and d.root.first.text == "Abort trap: 6"
        d = engine.diagnose([str(_write(tmp_path, "alone.log", first + "\n"))])
        assert d.verdict == "unknown" and d.root.first.lineno == 1


def test_a_cut_cpp_backtrace_yields_to_the_abort_that_ends_it(engine):
    """c10's frames cut before their message say where, not what: the abort after them is the root."""
    d = engine.diagnose([str(shipped_dir() / "signal-sigabrt" / "signal-sigabrt.pos-obbdetection-frames-aborted.log")])
    assert d.verdict == "known" and d.matches[0].entry.id == "signal-sigabrt"


def test_sigterm_notices_alone_are_a_failure_but_cascade(engine, tmp_path):
    d = engine.diagnose([str(_write(tmp_path, "t.log", SIGTERM + "\n" + SIGTERM.replace("2607", "2608") + "\n"))])
    assert d.verdict == "unknown" and d.root.cascade


def test_the_kill_wins_over_the_sigterm_of_its_peers(engine, tmp_path):
    d = engine.diagnose([str(_write(tmp_path, "k.log", SIGTERM + "\n" + SIGKILL.text))])
    assert d.verdict == "known" and d.matches[0].entry.id == "host-oom-sigkill"


@pytest.mark.parametrize("a,b,clash", [
    ("failed (exitcode: -8) local_rank: 0 (pid: 1)", "failed (exitcode: -9) local_rank: 1 (pid: 1168)", "signal 8 vs 9"),
    ("traceback : Signal 7 (SIGBUS) received by PID 2198", "terminated with signal SIGKILL", "signal 7 vs 9"),
    ("size mismatch for w: copying a param with shape torch.Size([32101, 768]) from checkpoint",
     "size mismatch for w: copying a param with shape torch.Size([768, 768]) from checkpoint, the shape in current "
     "model is torch.Size([0]).", "shape sized vs empty"),
    ("ImportError: cannot import name 'x' from 'y'", "KeyError: 'qwen2_vl'", "exception ImportError vs KeyError"),
    ("ModuleNotFoundError: No module named 'x'", "ImportError: cannot import name 'x'", None),
    ("torch.OutOfMemoryError: CUDA out of memory.", "RuntimeError: CUDA out of memory.", None),
    # two GPU tensors of different dtypes, against a GPU tensor meeting a CPU one (ACmix#15 vs device-mismatch)
    ("RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.cuda.HalfTensor) should be the same",
     "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same",
     "placement same device vs two devices"),
    ("Expected tensor for argument #1 'grad_output' to have the same type as tensor for argument #2 'weight'; but "
     "type CUDABFloat16Type does not equal torch.cuda.HalfTensor", "Input type (c10::BFloat16) and bias type (float) "
     "should be the same", None),
])
def test_defining_tokens(a, b, clash):
    assert defining.conflict(defining.tokens(a), defining.tokens(b)) == clash


def test_the_lead_names_the_library_that_raised(engine):
    """A dev field case no entry knows: transformers' HfArgumentParser reading a training-arguments file
    that is not valid JSON (yangjianxin1/Firefly#283)."""
    d = engine.diagnose([str(ROOT_FIELD / "firefly-283.log")])
    assert d.verdict == "unknown" and d.lead is not None
    assert d.lead.quoted is d.root.quoted
    assert d.lead.library == "transformers" and d.lead.frames == d.root.frames[-3:]
    assert d.lead.search_url.startswith("https://github.com/huggingface/transformers/issues?q=is%3Aissue+JSONDecodeError+")


def test_library_of_skips_torch_plumbing_under_a_library():
    from vlkb.analyzer.model import Frame
    frames = [Frame("/env/lib/python3.10/site-packages/transformers/trainer.py", 1, "train"),
              Frame("/env/lib/python3.10/site-packages/torch/nn/modules/module.py", 2, "_call_impl")]
    assert library_of(frames) == "transformers"
    assert library_of(frames[1:]) == "torch"
    assert library_of([Frame("/home/u/train.py", 3, "main")]) is None


def test_library_of_is_none_when_the_projects_own_code_raised_and_passes_over_the_stdlib():
    from vlkb.analyzer.model import Frame
    llava = [Frame("/home/u/LLaVA/llava/train/train.py", 1, "train"),
             Frame("/home/u/LLaVA/env/lib/python3.10/site-packages/torch/utils/_contextlib.py", 115, "decorate_context"),
             Frame("/home/u/LLaVA/llava/model/llava_arch.py", 199, "prepare_inputs_labels_for_multimodal")]
    assert library_of(llava) is None  # torch's decorator between two of LLaVA's frames did not raise
    json_under_hf = [Frame(r"E:\envs\x\lib\site-packages\transformers\configuration_utils.py", 1, "_dict_from_json_file"),
                     Frame(r"E:\envs\x\lib\json\__init__.py", 346, "loads"),
                     Frame("/usr/lib/python3.10/json/decoder.py", 353, "raw_decode")]
    assert library_of(json_under_hf) == "transformers"
    assert library_of([Frame("/w/LLaMA-Factory/src/llamafactory/data/loader.py", 9, "get_dataset")]) == "llamafactory"
    # a library run from its checkout, not installed (field case transformercompression-117)
    assert library_of([Frame("/data2/lm-evaluation-harness-0.4.0/lm_eval/models/huggingface.py", 103, "__init__")]) == "lm_eval"
    assert library_of([Frame("/home/u/train.py", 1, "main"),
                       Frame("/env/site-packages/torch/nn/functional.py", 2, "cross_entropy")]) == "torch"


def test_an_unknown_raised_in_the_projects_own_code_names_its_file_not_torch(engine):
    """LLaVA-NeXT's own prepare_inputs_labels_for_multimodal raised under torch's no_grad decorator
    (LLaVA-VL/LLaVA-NeXT#4): the lead names that file; no library's tracker is searched."""
    d = engine.diagnose([str(ROOT_FIELD / "llavanext-4.log")])
    assert d.verdict == "unknown" and d.lead.library is None and d.lead.search_url is None
    assert d.lead.where == "the project's or your own code (llava_arch.py:199)"


def test_a_flattened_traceback_without_its_header_is_read_frame_by_frame(engine):
    """A quoted paste that lost its newlines and its "Traceback" line (LLaMA-VID#30): the frames are
    read from the one line, the last one named."""
    d = engine.diagnose([str(ROOT_FIELD / "llamavid-30.log")])
    assert d.verdict == "unknown" and len(d.root.frames) > 2 and d.root.frames[-1].func == "_process_data"


def test_no_search_is_offered_without_a_stated_message():
    from vlkb.analyzer.model import Exc, Incident, Line
    line = Line("x.log", 1, "Traceback (most recent call last):")
    assert search_terms(Incident("traceback", [line])) == ""  # cut before its exception
    bare = Incident("traceback", [line], chain=[Exc("AssertionError", "", line)])
    assert search_terms(bare) == ""
    boxed = Incident("traceback", [line], chain=[Exc("AttributeError", "'NoneType' object has no attribute 'lower'", line)])
    assert search_terms(boxed) == "AttributeError NoneType object has no attribute lower"


def test_search_terms_drop_paths_numbers_and_ids():
    from vlkb.analyzer.model import Exc, Incident, Line
    line = Line("x.log", 1, "x")
    inc = Incident("traceback", [line], chain=[Exc("ValueError", "Unrecognized configuration class <class "
                   "'transformers.models.qwen2_vl.configuration_qwen2_vl.Qwen2VLConfig'> for /opt/x 12", line)])
    assert search_terms(inc) == "ValueError Unrecognized configuration class for"


def test_a_signature_pattern_raised_in_library_code_ignores_the_users_own_call(engine, tmp_path):
    """`raised_in: library`: a call that does not fit, made from an installed package (coati calling
    ColossalAI's Booster.boost), is two releases out of step; the same TypeError with the user's own
    script as the last frame is the user's call, and that pattern does not count."""
    entry = "version-skew-signature-mismatch"
    text = fx.parse(shipped_dir() / entry / f"{entry}.pos-coati-booster-boost.log").text
    lines = text.splitlines()
    library = engine.diagnose([str(_write(tmp_path, "lib.log", text))])
    assert library.verdict == "known" and library.matches[0].entry.id == entry
    at = next(i for i, line in enumerate(lines) if "site-packages/coati/trainer/strategies/base.py" in line)
    users = "\n".join(lines[:at] + lines[at + 2:]) + "\n"  # the same traceback without coati's frame
    d = engine.diagnose([str(_write(tmp_path, "user.log", users))])
    assert d.root.frames[-1].file.endswith("train_prompts.py")
    assert all(s.entry.id != entry for s in d.matches if s.confidence >= d.threshold)


def test_a_lone_header_is_a_failure(engine, tmp_path):
    """A lone traceback header says something raised: as the last line of the input (a paste cut right
    there: yiren-jian/BLIText#5, a dev field case) and followed by other output (its frames lost), it is
    the root, as the header alone, and the lines after it are read on their own."""
    case = (ROOT_FIELD / "blitext-5.log").read_text(encoding="utf-8")
    d = engine.diagnose([str(_write(tmp_path, "cut.log", case))])
    assert d.verdict == "unknown" and d.root.summary == "traceback cut right after its header"
    followed = case + "\nbuilder_cls=None, dataset_name=sentence_dataset\n" + SIGKILL.text
    d = engine.diagnose([str(_write(tmp_path, "followed.log", followed))])
    assert d.verdict == "known" and d.named.entry.id == "host-oom-sigkill"  # the kill says more
    followed = case + "\nbuilder_cls=None, dataset_name=sentence_dataset\n"
    d = engine.diagnose([str(_write(tmp_path, "followed.log", followed))])
    assert d.verdict == "unknown" and d.root.header_only and len(d.root.lines) == 1


def test_a_header_alone_yields_to_a_signal_before_it(engine):
    """torchrun's -9 exit line, then its own traceback header where the paste stopped
    (huggingface/open-r1#675): the kill is the root, the header only says something raised."""
    d = engine.diagnose([str(ROOT_FIELD / "openr1-675.log")])
    assert d.verdict == "known" and d.matches[0].entry.id == "host-oom-sigkill"


def test_frames_alone_do_not_name_an_entry_against_a_stated_exception(engine):
    """LLaVA-NeXT#4 raises 'ValueError: vision_tower_image_size is not found in the vision tower' inside
    prepare_inputs_labels_for_multimodal, the frame where image-token mismatches are raised too: with
    neither the entry's patterns nor its messages resembling the exception, the frame keeps it a
    candidate below the threshold (a cut traceback with no exception may still be named by its frames,
    zero-grad-reduced-twice.pos-llamafactory-minicpmv-partial)."""
    d = engine.diagnose([str(ROOT_FIELD / "llavanext-4.log")])
    assert d.verdict == "unknown"
    assert all(s.confidence < d.threshold for s in d.matches)


# A traceback under what a log viewer puts before or around its lines: Kaggle's export (seconds and
# line number, tab-separated; unslothai/unsloth#516), Buildkite's web view (the header unprefixed, a
# '--' row, then '  | ' before every later line; ray-project/ray#32468), a job-log viewer that doubles
# each frame's quotes and leaves one at the end (lm-sys/FastChat#1100): the lines are read as if the
# viewer had not been there. (shape, lines, exception or None when cut, frames)
VIEWERS = {
    "kaggle": (["450.9s\t321\tTraceback (most recent call last):",
                '450.9s\t322\t  File "/opt/conda/lib/python3.10/site-packages/nbclient/client.py", line 730, in _async_poll_for_reply',
                "450.9s\t323\t    msg = await ensure_async(self.kc.shell_channel.get_msg(timeout=new_timeout))",
                '450.9s\t324\t  File "/opt/conda/lib/python3.10/site-packages/nbclient/util.py", line 96, in ensure_async',
                "450.9s\t325\t    result = await obj",
                '450.9s\t326\t  File "/opt/conda/lib/python3.10/site-packages/jupyter_client/channels.py", line 310, in get_msg',
                "450.9s\t327\t    ready = await self.socket.poll(timeout)",
                "450.9s\t328\tasyncio.exceptions.CancelledError"],
               "asyncio.exceptions.CancelledError", ["_async_poll_for_reply", "ensure_async", "get_msg"]),
    "buildkite": (["Traceback (most recent call last):", "--",
                   '  | File "/tmp/release-L9lFxomu4C/release/ray_release/glue.py", line 313, in run_release_test',
                   "  | command, env=command_env, timeout=command_timeout",
                   '  | File "/tmp/release-L9lFxomu4C/release/ray_release/command_runner/job_runner.py", line 119, in run_command',
                   '  | raise CommandError(f"Command returned non-success status: {status_code}")',
                   "  | ray_release.exception.CommandError: Command returned non-success status: -1"],
                  "ray_release.exception.CommandError", ["run_release_test", "run_command"]),
    "csv-escaped": (["2023-05-08 10:33:13.000 [INFO] [Driver] Traceback (most recent call last):",
                     '2023-05-08 10:33:13.000 [INFO] [Driver] File ""/home/xxxxxx/source/FastChat/fastchat/train/train_mem.py"", '
                     'line 13, in <module>"',
                     "2023-05-08 10:33:13.000 [INFO] [Driver] train()",
                     '2023-05-08 10:33:13.000 [INFO] [Driver] File ""/home/xxxxxx/source/FastChat/fastchat/train/train.py"", '
                     'line 245, in train"',
                     "2023-05-08 10:33:13.000 [INFO] [Driver] trainer.train()"],
                    None, ["<module>", "train"]),
}


@pytest.mark.parametrize("viewer", VIEWERS)
def test_a_traceback_under_a_log_viewer_is_read_through(engine, tmp_path, viewer):
    lines, exception, funcs = VIEWERS[viewer]
    d = engine.diagnose([str(_write(tmp_path, "v.log", "Loading\n" + "\n".join(lines) + "\n"))])
    assert d.root.exception == exception and d.root.truncated == (exception is None)
    assert [f.func for f in d.root.frames] == funcs


def test_a_kernel_assert_cut_inside_its_condition_is_still_named(engine, tmp_path):
    line = ("/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
            "thread: [3,0,0] Assertion `t >= 0 && t < n_cl")
    d = engine.diagnose([str(_write(tmp_path, "cut.log", "Loading checkpoint shards: 100%\n" + line + "\n"))])
    assert d.verdict == "known" and d.named.entry.id == "cuda-device-side-assert"
